"""Escape ends a turn and takes the ``Working`` line out of the editor's border with it: before
the first word arrives, while the answer streams, and while a tool runs (the audit saw the
line stay on screen after an abort). The three aborts are three prompts of one session, run on
ours (in-process) and on Pi 0.85's TUI in tmux, with the same script and the same checks (one
start of Pi's TUI, 2-4 CPU-s, instead of one per case)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._tmux import editor_text
from tests.support.scripted_provider import Turn

pytestmark = pytest.mark.timeout(600)

# (prompt, what the provider answers it with, what is on screen when Escape is pressed)
CASES: list[tuple[str, list[Turn], str | None]] = [
    ("before the answer", [{"text": "slow answer " * 20, "chunk_delay": 0.3}], None),
    ("while streaming", [{"text": "streamed words " * 20, "chunk_delay": 0.3}], "streamed words"),
    (
        "while a tool runs",
        [
            {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "sleep 20"}}]},
            {"text": "after"},
        ],
        "sleep 20",
    ),
]


def _route(body: dict[str, Any]) -> tuple[str, list[Turn]]:
    """Each prompt gets its own case's answer, whatever the aborted turns before it left in the
    history (a turn's place in the script counts the assistant messages sent back)."""
    users = [message for message in body["messages"] if message.get("role") == "user"]
    last = json.dumps(users[-1]["content"])
    prompt, turns, _ = next(case for case in CASES if case[0] in last)
    return prompt, [*turns[:1] * 8, *turns[1:]]


def _aborted(which: str, wait_for: str | None) -> str:
    """The abort's line: after a tool was stopped Pi 0.85 records the turn as failed
    (``stopReason: "error"``) and says ``Error: This operation was aborted``; ours records
    ``"aborted"`` and says ``Operation aborted``, as Pi 1.6 does (docs/tui/README.md)."""
    return "This operation was aborted" if which == "pi" and wait_for == "sleep 20" else "Operation aborted"


def _after(screen: str, prompt: str) -> str:
    """The screen below the prompt's own line (what this case drew, not an earlier case)."""
    return screen[screen.rindex(prompt) + len(prompt) :] if prompt in screen else ""


@pytest.mark.parametrize("which", ["ours", "pi"])
def test_escape_clears_the_working_line(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        for prompt, _, wait_for in CASES:
            await app.submit(prompt)
            await app.wait_for("Working")
            if wait_for is not None:
                await app.wait_until(
                    lambda s, p=prompt, w=wait_for: w in _after(s, p), f"{wait_for!r} not shown"
                )
            await app.send("Escape")
            aborted = _aborted(app.which, wait_for)
            await app.wait_until(
                lambda s, p=prompt, a=aborted: a in _after(s, p), f"{prompt}: {aborted!r} not shown"
            )
            await app.wait_until_gone("Working")
            await app.type("next")  # another frame drawn: nothing brings the line back
            await app.wait_for("next", region="editor")
            assert "Working" not in app.screen(), prompt
            await app.send("C-u")
            await app.wait_until(lambda s: not editor_text(s).strip(), "the editor was not emptied")

    play(tmp_path, which, [], scenario, route=_route)  # type: ignore[arg-type]
