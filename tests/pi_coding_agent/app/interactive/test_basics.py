"""The real ``pi`` in a real terminal (tmux) against a scripted provider on 127.0.0.1: a
streamed answer with a tool call, user commands, the session commands that only show
things, quitting. Each scenario runs against our ``pi`` and against Pi 0.85's own TUI
(``pi-cli``) where it does not depend on our wording, so it checks Pi's behaviour too; the
session files ours leaves are read by the live oracle."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import launch, pi_reads_the_same

# A scenario drives a whole session in a terminal; Pi's TUI alone takes seconds to start
# on a loaded machine, so the suite-wide 120 s limit is too tight here.
pytestmark = pytest.mark.timeout(600)

ANSWER = "# Result\n\nThe file says **hi**.\n\n```python\ndef f(x):\n    return x + 1\n```\n\n- one\n- two\n"
TOOL_TURNS: list[dict[str, Any]] = [
    {"text": "I'll read it.", "tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "hello.txt"}}]},
    {"text": ANSWER},
]


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_answer_with_a_tool_call_user_commands_and_quit(tmp_path: Path, which: str) -> None:
    with launch(tmp_path, which, TOOL_TURNS, files={"hello.txt": "hi\n"}) as run:
        pane = run.pane
        run.submit("read hello.txt please")
        screen = pane.wait_for("↑20 ↓10")  # the footer's token totals of both answers
        for shown in ("read hello.txt please", "I'll read it.", "read hello.txt", "The file says hi.",
                      "def f(x):", "```python", "- two"):  # fmt: skip
            assert shown in screen, shown
        run.submit("!echo hello-from-bash; exit 3")
        pane.wait_for("hello-from-bash")
        pane.wait_until(lambda s: "exit 3" in s, "the exit status is not shown")
        run.submit("!!echo hidden-run")
        pane.wait_for("hidden-run")
        run.submit("/name my task")
        pane.wait_for("Session name set: my task")
        pane.wait_until(lambda s: re.search(r"work • my task", s) is not None, "the footer lacks the session name")
        run.submit("/session")
        screen = pane.wait_for("Tools:")
        assert "Name: my task" in screen and "User: 1" in screen and "1 calls, 1 results" in screen
        pane.type("a draft to clear")
        pane.wait_for("a draft to clear", region="editor")
        pane.send("C-c")
        pane.wait_until(lambda s: "a draft to clear" not in "\n".join(s.split("\n")[-8:]), "Ctrl+C did not clear")
        run.submit("/quit")
        screen = pane.wait_for("[exit 0]")
        [path] = run.session_files()
        session_id = run.entries(path)[0]["id"]
        assert f"To resume this session: pi --session {session_id}" in screen
    messages = run.messages(path)
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "assistant", "bashExecution",
                                             "bashExecution"]  # fmt: skip
    runs = [(m["command"], m["exitCode"], m["excludeFromContext"]) for m in messages if m["role"] == "bashExecution"]
    assert runs == [("echo hello-from-bash; exit 3", 3, False), ("echo hidden-run", 0, True)]
    names = [entry["name"] for entry in run.entries(path) if entry["type"] == "session_info"]
    assert names == ["my task"]
    if run.ours:
        [context] = pi_reads_the_same([path])
        roles = [m["role"] for m in context["context"]["messages"]]
        assert roles == ["user", "assistant", "toolResult", "assistant", "bashExecution", "bashExecution"]
        assert context["context"]["messages"][2]["content"][0]["text"] == "hi\n"


def test_ctrl_c_twice_and_ctrl_d_quit(tmp_path: Path) -> None:
    for key in ("C-c", "C-d"):
        folder = tmp_path / key
        folder.mkdir()
        with launch(folder, "ours", [{"text": "unused"}]) as run:
            run.pane.type("draft")
            run.pane.wait_for("draft", region="editor")
            if key == "C-d":
                run.pane.send("C-d")  # with text in the editor Ctrl+D deletes forward, it does not quit
                run.pane.send("C-u", "C-d")
            else:
                # Two presses within 0.5 s quit; one send-keys call delivers them together.
                run.pane.send("C-c", "C-c")
            run.pane.wait_for("[exit 0]")


def test_transcript_stays_in_the_scrollback(tmp_path: Path) -> None:
    """A long answer scrolls off the top into the terminal's own history, whole and in order."""
    numbered = "\n\n".join(f"Paragraph {i:03d}" for i in range(120))
    with launch(tmp_path, "ours", [{"text": numbered}]) as run:
        run.submit("long")
        run.pane.wait_for("Paragraph 119")
        history = run.pane.history()
        positions = [history.find(f"Paragraph {i:03d}") for i in range(120)]
        assert all(p >= 0 for p in positions), history
        assert positions == sorted(positions)
        assert history.count("Paragraph 050") == 1
        run.quit()

