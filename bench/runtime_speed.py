"""Prefill and decode speed of the two llama.cpp runtimes on the same GGUF and threads, same run.

    .venv/bin/python bench/runtime_speed.py [--model qwen2.5-coder-1.5b] [--rounds 2] [--prompt-tokens 1100]

Each round runs the prebuilt runtime (xllamacpp's library) and the source build (llama-cpp-python's
``libllama.so``) in turn, each in a fresh process through the same binding (``pi_ai.api.local``):
a prompt of about ``--prompt-tokens`` tokens is evaluated from an empty cache (prefill), then 64
tokens are generated greedily without a grammar (decode). Both runtimes must be installed
(``python -m pi_coding_agent.core.local_model setup --with-source-build``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from pi_coding_agent.core.local_model import PrebuiltSpec, RuntimeSpec, cache_root, find_spec

DECODE_TOKENS = 64

_WORKER = """
import json, sys, time
sys.path.append(sys.argv[3])
from pi_ai.api.local import use_library
from pi_ai.api.local._engine import Engine
use_library(sys.argv[1])
started = time.perf_counter()
engine = Engine(sys.argv[2], 4096)
loaded = time.perf_counter() - started
words = "def function_{0}(value):\\n    return value * {0} + {0}\\n\\n"
text = "".join(words.format(i) for i in range(400))
tokens = engine.tokenize(text)[: int(sys.argv[4])]
started = time.perf_counter()
engine.prefill(tokens)
prefill = time.perf_counter() - started
started = time.perf_counter()
out = engine.generate(tokens, grammar=None, max_tokens=DECODE_TOKENS, temperature=0.0, on_text=lambda _t: False)
decode = time.perf_counter() - started
print(json.dumps({"load_s": loaded, "prompt": len(tokens) - 1, "prefill_s": prefill, "decoded": out.output_tokens,
                  "decode_s": decode}))
""".replace("DECODE_TOKENS", str(DECODE_TOKENS))


def _run(library: Path, deps: Path, model: Path, prompt_tokens: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _WORKER, str(library), str(model), str(deps), str(prompt_tokens)],
        capture_output=True, text=True, check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--prompt-tokens", type=int, default=1100)
    args = parser.parse_args()
    spec = find_spec(args.model)
    if spec is None:
        parser.error(f"unknown embedded model {args.model}")
    model = cache_root() / "models" / spec.file
    runtimes = {}
    for name, runtime in (("prebuilt", PrebuiltSpec()), ("source", RuntimeSpec())):
        folder = runtime.site_dir()
        if not (folder / "complete").exists():
            parser.error(f"{folder} is not installed")
        runtimes[name] = (runtime.library(folder), folder / "deps")
    totals: dict[str, list[dict[str, float]]] = {name: [] for name in runtimes}
    for round_number in range(args.rounds):
        for name, (library, deps) in runtimes.items():
            started = time.monotonic()
            result = _run(library, deps, model, args.prompt_tokens)
            totals[name].append(result)
            print(
                f"round {round_number + 1} {name:8} load {result['load_s']:.2f}s  prefill {result['prompt']:.0f} tok "
                f"{result['prompt'] / result['prefill_s']:.1f} tok/s  decode {result['decoded']:.0f} tok "
                f"{result['decoded'] / result['decode_s']:.1f} tok/s  ({time.monotonic() - started:.0f}s)",
                flush=True,
            )
    rates = {}
    for name, results in totals.items():
        prefill = sum(r["prompt"] for r in results) / sum(r["prefill_s"] for r in results)
        decode = sum(r["decoded"] for r in results) / sum(r["decode_s"] for r in results)
        rates[name] = (prefill, decode)
        print(f"{name:8} prefill {prefill:.1f} tok/s  decode {decode:.1f} tok/s")
    print(
        f"prebuilt / source: prefill {rates['prebuilt'][0] / rates['source'][0]:.2f}, "
        f"decode {rates['prebuilt'][1] / rates['source'][1]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
