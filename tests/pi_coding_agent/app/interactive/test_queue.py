"""The message queue while an answer streams (ours in-process, Pi's own TUI in tmux):
Enter steers, Alt+Enter queues a follow-up, Alt+Up takes the queue back into the editor,
``!cmd`` runs at once but is held until the run ends, Escape aborts and restores the queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._scenario import pi_reads_the_same
from tests.pi_coding_agent.app.interactive._tmux import editor_text

# Pi's TUI alone takes seconds to start on a loaded machine, so the suite-wide 120 s limit
# is too tight for its runs.
pytestmark = pytest.mark.timeout(600)

SLOW: dict[str, Any] = {"text": "word " * 150 + "END", "chunk_delay": 0.03}
TURNS: list[dict[str, Any]] = [SLOW, {"text": "steered answer"}, {"text": "followed answer"}, SLOW]


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_steer_follow_up_dequeue_held_bash_and_abort(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.submit("go")
        await app.wait_for("word word")
        await app.submit("steer me")
        await app.submit("follow me", key="M-Enter")
        screen = await app.wait_for("Follow-up: follow me")
        assert "Steering: steer me" in screen and "Alt+Up to edit all queued messages" in screen
        await app.send("M-Up")
        await app.wait_for("Restored 2 queued messages to editor")
        assert app.editor().split("\n") == ["steer me", "", "follow me"]
        assert "Steering: steer me" not in app.screen()
        await app.send("C-c")
        await app.wait_until(lambda s: "steer me" not in editor_text(s), "Ctrl+C did not clear the editor")
        await app.submit("steer me")
        await app.submit("follow me", key="M-Enter")
        await app.submit("!echo held-bash")
        await app.wait_for("held-bash")
        assert "END" not in app.screen()  # the bash run finished while the answer still streams
        screen = await app.wait_for("followed answer", limit=60)
        assert "steered answer" in screen and "Steering:" not in screen and "Follow-up:" not in screen
        await app.wait_until_gone("Working")  # the run is over: the held bash is stored
        await app.submit("abort me")
        await app.wait_for("word word word")
        await app.submit("queued again")
        await app.wait_for("Steering: queued again")
        await app.send("Escape")
        await app.wait_for("Operation aborted")
        await app.wait_for("queued again", region="editor")
        assert "Steering:" not in app.screen()
        await app.send("C-c")
        await app.quit()

    app = play(tmp_path, which, TURNS, scenario)
    messages = app.messages()
    summary = [(m["role"], _text(m)) for m in messages]
    assert summary == [
        ("user", "go"),
        ("assistant", SLOW["text"]),
        ("user", "steer me"),
        ("assistant", "steered answer"),
        ("user", "follow me"),
        ("assistant", "followed answer"),
        ("bashExecution", "held-bash\n"),
        ("user", "abort me"),
        ("assistant", summary[-1][1]),
    ]
    assert messages[-1]["stopReason"] == "aborted" and SLOW["text"].startswith(summary[-1][1])
    if app.ours:
        pi_reads_the_same(app.session_files())


def _text(message: dict[str, Any]) -> str:
    if message["role"] == "bashExecution":
        return str(message["output"])
    return "".join(block.get("text", "") for block in message["content"] if block["type"] == "text")
