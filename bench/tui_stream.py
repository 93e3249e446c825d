"""Interactive mode against Pi 0.85's TUI, same scripted stream, same run, in tmux.

Measures, for each program: time from launch to the first frame (the footer with the model
on screen) and to the editable prompt (its keys work: Pi draws its editor before it listens),
CPU time (user + system, whole process tree) while a 20,000-token
markdown answer streams, how far the screen lags behind the end of the stream, and how
long a typed key takes to show up (tmux capture-pane polling, so this includes tmux's own
delay, equally for both).

    .venv/bin/python bench/tui_stream.py [--runs N]
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

from tests.pi_coding_agent.app.interactive._tmux import TmuxPane, editor_lines  # noqa: E402
from tests.support.scripted_provider import ScriptedProvider, models_json  # noqa: E402

PI_CLI = REPO.parent / "shared" / "oracle" / "pi-cli"
TOKENS = 20_000
KEYSTROKES = 7


def markdown_answer(tokens: int) -> str:
    """About ``tokens`` tokens (4 characters each) of mixed markdown, ending in a marker."""
    parts: list[str] = []
    size = 0
    index = 0
    while size < tokens * 4:
        index += 1
        block = (
            f"## Section {index}\n\nThis is **paragraph {index}** with `inline code` and a [link](https://example.com/{index}). "
            "It talks about the design of the renderer and why lines are compared one by one.\n\n"
            f"- item one of {index}\n- item two with *emphasis*\n\n"
            f"```python\ndef section_{index}(x):\n    return x * {index}  # comment\n```\n\n"
        )
        parts.append(block)
        size += len(block)
    parts.append("END-OF-ANSWER\n")
    return "".join(parts)


def cpu_seconds(root_pid: int) -> float:
    """User + system CPU of ``root_pid`` and all its descendants, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        stats[int(entry)] = (int(fields[11]) + int(fields[12])) / ticks
    total, stack = 0.0, [root_pid]
    while stack:
        pid = stack.pop()
        total += stats.get(pid, 0.0)
        stack.extend(children.get(pid, []))
    return total


def measure(which: str, runs_dir: Path) -> dict[str, float]:
    answer = markdown_answer(TOKENS)
    turns = [{"text": answer, "chunk_delay": 0.0004}]
    with ScriptedProvider(turns) as provider:
        home = Path(tempfile.mkdtemp(dir=runs_dir))
        agent = home / ".pi" / "agent"
        agent.mkdir(parents=True)
        (agent / "models.json").write_text(json.dumps(models_json(provider.base_url)))
        (agent / "settings.json").write_text(
            json.dumps(
                {
                    "defaultProvider": "scripted-openai",
                    "defaultModel": "scripted-model",
                    "retry": {"enabled": False},
                }
            )
        )
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG")}
        env.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent), TERM="xterm-256color")
        env["PI_ORACLE_HOME"] = os.environ.get("PI_ORACLE_HOME", str(Path.home() / ".cache" / "pi-oracle-0.85.0"))
        command = [str(PI_CLI)] if which == "pi" else [str(REPO / ".venv" / "bin" / "pi")]
        started = time.monotonic()
        pane = TmuxPane(command, home, env)
        try:
            pane.wait_for("scripted-model", limit=120, poll=0.005)
            first_frame = time.monotonic() - started
            launch = _keys_work(pane) - started
            time.sleep(8 if which == "pi" else 1)  # let background startup work finish before measuring
            keystroke = statistics.median(_keystroke(pane) for _ in range(KEYSTROKES))
            pid = pane.pane_pid()
            before = cpu_seconds(pid)
            pane.type("go")
            pane.send("Enter")
            pane.wait_for("END-OF-ANSWER", limit=300, poll=0.05)
            shown = time.monotonic()
            cpu = cpu_seconds(pid) - before
            lag = shown - (provider.last_response_done or shown)
            pane.send("C-d")
        finally:
            pane.close()
    return {"first_frame_s": first_frame, "launch_s": launch, "stream_cpu_s": cpu, "lag_s": lag,
            "keystroke_s": keystroke}  # fmt: skip


def _keys_work(pane: TmuxPane) -> float:
    """When the application's keys start working (Pi draws its editor before it installs
    them): Shift+Tab on a model without thinking answers with a status line, harmlessly
    pressed again and again."""
    while True:
        pane.send("BTab")
        deadline = time.monotonic() + 0.05
        while time.monotonic() < deadline:
            if "does not support thinking" in pane.screen():
                return time.monotonic()
            time.sleep(0.002)


def _keystroke(pane: TmuxPane) -> float:
    """Seconds from a typed key to its character in the editor (tmux polled every 2 ms)."""
    typed = time.monotonic()
    pane.type("x")
    pane.wait_for("x", poll=0.002, region="editor")
    shown = time.monotonic() - typed
    pane.send("BSpace")
    pane.wait_until(lambda s: "x" not in "\n".join(editor_lines(s)), "the key was not deleted", poll=0.005)
    return shown


def tmux_floor(runs_dir: Path) -> float:
    """The same keystroke measurement with ``cat`` in the pane: what tmux and the polling
    add by themselves (the part of ``keystroke_s`` that is no program's)."""
    pane = TmuxPane(["cat"], runs_dir, {"PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color"})
    try:
        times = []
        for index in range(KEYSTROKES):
            typed = time.monotonic()
            pane.type(f"k{index}")
            pane.wait_for(f"k{index}", poll=0.002)
            times.append(time.monotonic() - typed)
        return statistics.median(times)
    finally:
        pane.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    results: dict[str, list[dict[str, float]]] = {"ours": [], "pi": []}
    with tempfile.TemporaryDirectory() as runs_dir:
        for _ in range(args.runs):
            for which in ("ours", "pi"):
                results[which].append(measure(which, Path(runs_dir)))
    for which, runs in results.items():
        best = {key: min(run[key] for run in runs) for key in runs[0]}
        print(which, " ".join(f"{k}={v:.3f}" for k, v in best.items()))
    ours = {key: min(run[key] for run in results["ours"]) for key in results["ours"][0]}
    pi = {key: min(run[key] for run in results["pi"]) for key in results["pi"][0]}
    print("ours/pi", " ".join(f"{k}={ours[k] / pi[k]:.2f}" for k in ours if pi[k]))
    with tempfile.TemporaryDirectory() as runs_dir:
        print(f"tmux floor keystroke_s={tmux_floor(Path(runs_dir)):.3f} (cat in the same kind of pane)")


if __name__ == "__main__":
    main()
