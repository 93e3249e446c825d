"""Escape ends a turn and takes the ``Working`` line out of the editor's border with it: before
the first word arrives, while the answer streams, and while a tool runs (the audit saw the
line stay on screen after an abort). Each case runs on ours (in-process) and on Pi 0.85's TUI
in tmux, with the same script and the same checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play

pytestmark = pytest.mark.timeout(600)

SLOW_ANSWER = [{"text": "slow answer " * 20, "chunk_delay": 0.3}]
SLOW_TOOL = [
    {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "sleep 20"}}]},
    {"text": "after"},
]


def _aborted(which: str, wait_for: str | None) -> str:
    """The abort's line: after a tool was stopped Pi 0.85 records the turn as failed
    (``stopReason: "error"``) and says ``Error: This operation was aborted``; ours records
    ``"aborted"`` and says ``Operation aborted``, as Pi 1.6 does (docs/tui/README.md)."""
    return "This operation was aborted" if which == "pi" and wait_for == "sleep 20" else "Operation aborted"


@pytest.mark.parametrize(
    ("turns", "wait_for"),
    [(SLOW_ANSWER, None), (SLOW_ANSWER, "slow answer"), (SLOW_TOOL, "sleep 20")],
    ids=["before-the-answer", "while-streaming", "while-a-tool-runs"],
)
@pytest.mark.parametrize("which", ["ours", "pi"])
def test_escape_clears_the_working_line(
    tmp_path: Path, turns: list[dict[str, object]], wait_for: str | None, which: str
) -> None:
    async def scenario(app: Driven) -> None:
        await app.submit("hello")
        await app.wait_for("Working")
        if wait_for is not None:
            await app.wait_for(wait_for)
        await app.send("Escape")
        await app.wait_for(_aborted(app.which, wait_for))
        await app.wait_until_gone("Working")
        await app.type("next")  # another frame drawn: nothing brings the line back
        await app.wait_for("next", region="editor")
        assert "Working" not in app.screen()

    play(tmp_path, which, turns, scenario)  # type: ignore[arg-type]
