"""Keystroke to screen: how long a typed key takes to come back as output, for our ``pi``
and Pi 0.85's TUI in the same run, against the render frame interval (16 ms in both).

Each program runs on a pseudo-terminal of its own (no tmux in between, so no polling): a key
is written to the terminal's input and the clock stops when the first output after it that
holds the typed character arrives. Keys are letters that appear nowhere else (Cyrillic and
Greek, one each), so a redraw of older text cannot be mistaken for the echo. Two phases:
idle (the prompt waiting), and while a 20,000-token markdown answer streams (frames keep
being drawn, so a key may have to wait for the frame throttle). Device-attribute queries
are answered as a terminal would; other queries go unanswered (as in a plain terminal).

    .venv/bin/python bench/tui_keystroke.py [--samples N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.tui_stream import PI_CLI, TOKENS, markdown_answer  # noqa: E402
from tests.support.pty_terminal import Pty  # noqa: E402
from tests.support.scripted_provider import ScriptedProvider, models_json  # noqa: E402

FRAME_S = 0.016  # MIN_FRAME_INTERVAL in pi_tui._tui; Pi's TUI.MIN_RENDER_INTERVAL_MS
KEYS = "жщфцыйэюяблгдпзкмнстхчшъьвиуеоѐђѓєѕіїјљњћќѝўџαβγδεζηθικλμνξπρστυφχψω"


def _sandbox(runs_dir: Path, base_url: str) -> tuple[Path, dict[str, str]]:
    home = Path(tempfile.mkdtemp(dir=runs_dir))
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(json.dumps(models_json(base_url)))
    settings = {"defaultProvider": "scripted-openai", "defaultModel": "scripted-model", "retry": {"enabled": False}}
    (agent / "settings.json").write_text(json.dumps(settings))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG")}
    env.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent), TERM="xterm-256color")
    env["PI_ORACLE_HOME"] = os.environ.get("PI_ORACLE_HOME", str(Path.home() / ".cache" / "pi-oracle-0.85.0"))
    return home, env


def measure(which: str, runs_dir: Path, samples: int) -> dict[str, list[float]]:
    turns = [{"text": markdown_answer(TOKENS), "chunk_delay": 0.0004}]
    keys = iter(KEYS)
    with ScriptedProvider(turns) as provider:
        home, env = _sandbox(runs_dir, provider.base_url)
        command = [str(PI_CLI)] if which == "pi" else [str(REPO / ".venv" / "bin" / "pi")]
        program = Pty(command, home, env)
        try:
            program.wait_for("scripted-model")
            time.sleep(8 if which == "pi" else 2)  # startup work in the background ends first
            idle = []
            for _ in range(samples):
                idle.append(program.echo_time(next(keys)))
                time.sleep(0.1)
            os.write(program.fd, b"\x15")  # Ctrl+U: an empty editor again
            time.sleep(0.3)
            mark = program.mark()
            os.write(program.fd, b"go\r")
            program.wait_for("Section 3", mark)  # the answer is streaming
            streaming = []
            for _ in range(samples):
                streaming.append(program.echo_time(next(keys)))
                time.sleep(0.05)
            still = "END-OF-ANSWER" not in program.text_since(mark)[0]
        finally:
            program.close()
    if not still:
        print(f"{which}: the answer ended before the streaming samples did", file=sys.stderr)
    return {"idle": idle, "streaming": streaming}


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    within = sum(v <= FRAME_S for v in values) / len(values)
    return (f"median {statistics.median(values) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms, "
            f"max {ordered[-1] * 1000:.1f} ms, within one frame ({FRAME_S * 1000:.0f} ms) {within:.0%}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    if 2 * args.samples > len(KEYS):
        parser.error(f"at most {len(KEYS) // 2} samples")
    with tempfile.TemporaryDirectory() as runs_dir:
        results = {which: measure(which, Path(runs_dir), args.samples) for which in ("ours", "pi")}
    for which, phases in results.items():
        for phase, values in phases.items():
            print(f"{which:4} {phase:9} {summary(values)}")


if __name__ == "__main__":
    main()
