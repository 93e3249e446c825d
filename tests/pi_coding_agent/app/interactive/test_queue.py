"""The message queue while an answer streams, in the real ``pi`` in tmux (ours and Pi's own):
Enter steers, Alt+Enter queues a follow-up, Alt+Up takes the queue back into the editor,
``!cmd`` runs at once but is held until the run ends, Escape aborts and restores the queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import launch, pi_reads_the_same

# A scenario drives a whole session in a terminal; Pi's TUI alone takes seconds to start
# on a loaded machine, so the suite-wide 120 s limit is too tight here.
pytestmark = pytest.mark.timeout(600)

SLOW: dict[str, Any] = {"text": "word " * 150 + "END", "chunk_delay": 0.03}
TURNS: list[dict[str, Any]] = [SLOW, {"text": "steered answer"}, {"text": "followed answer"}, SLOW]


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_steer_follow_up_dequeue_held_bash_and_abort(tmp_path: Path, which: str) -> None:
    with launch(tmp_path, which, TURNS) as run:
        pane = run.pane
        run.submit("go")
        pane.wait_for("word word")
        run.submit("steer me")
        run.submit("follow me", key="M-Enter")
        screen = pane.wait_for("Follow-up: follow me")
        assert "Steering: steer me" in screen and "Alt+Up to edit all queued messages" in screen
        pane.send("M-Up")
        pane.wait_for("Restored 2 queued messages to editor")
        assert pane.editor().split("\n") == ["steer me", "", "follow me"]
        assert "Steering: steer me" not in pane.screen()
        pane.send("C-c")
        pane.wait_until(lambda s: "steer me" not in run.editor_text(s), "Ctrl+C did not clear the editor")
        run.submit("steer me")
        run.submit("follow me", key="M-Enter")
        run.submit("!echo held-bash")
        pane.wait_for("held-bash")
        assert "END" not in pane.screen()  # the bash run finished while the answer still streams
        screen = pane.wait_for("followed answer", limit=60)
        assert "steered answer" in screen and "Steering:" not in screen and "Follow-up:" not in screen
        run.submit("abort me")
        pane.wait_for("word word word")
        run.submit("queued again")
        pane.wait_for("Steering: queued again")
        pane.send("Escape")
        pane.wait_for("Operation aborted")
        pane.wait_for("queued again", region="editor")
        assert "Steering:" not in pane.screen()
        pane.send("C-c")
        run.quit()
    messages = run.messages()
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
    if run.ours:
        pi_reads_the_same(run.session_files())


def _text(message: dict[str, Any]) -> str:
    if message["role"] == "bashExecution":
        return str(message["output"])
    return "".join(block.get("text", "") for block in message["content"] if block["type"] == "text")
