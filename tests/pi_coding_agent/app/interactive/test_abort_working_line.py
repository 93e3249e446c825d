"""Escape ends a turn and takes the ``Working`` line out of the editor's border with it: before
the first word arrives, while the answer streams, and while a tool runs (the audit saw the
line stay on screen after an abort)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app

SLOW_ANSWER = [{"text": "slow answer " * 20, "chunk_delay": 0.3}]
SLOW_TOOL = [
    {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "sleep 20"}}]},
    {"text": "after"},
]


@pytest.mark.parametrize(
    ("turns", "wait_for"),
    [(SLOW_ANSWER, None), (SLOW_ANSWER, "slow answer"), (SLOW_TOOL, "sleep 20")],
    ids=["before-the-answer", "while-streaming", "while-a-tool-runs"],
)
def test_escape_clears_the_working_line(
    tmp_path: Path, turns: list[dict[str, object]], wait_for: str | None
) -> None:
    async def scenario(app: App) -> None:
        await app.submit("hello")
        await app.wait_for("Working")
        if wait_for is not None:
            await app.wait_for(wait_for)
        await app.send("Escape")
        await app.wait_for("Operation aborted")
        await app.wait_until_gone("Working")
        await app.type("next")  # another frame drawn: nothing brings the line back
        await app.wait_for("next", region="editor")
        assert "Working" not in app.screen()

    run_app(tmp_path, turns, scenario)  # type: ignore[arg-type]
