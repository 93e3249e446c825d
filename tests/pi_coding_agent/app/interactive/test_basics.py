"""A streamed answer with a tool call, user commands, the session commands that only show
things, quitting, against a scripted provider on 127.0.0.1. Each scenario runs against our
``pi`` (in-process, on a virtual terminal) and against Pi 0.85's own TUI (``pi-cli`` in
tmux) where it does not depend on our wording, so it checks Pi's behaviour too; the session
files ours leaves are read by the live oracle."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app
from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._scenario import pi_reads_the_same

# Pi's TUI alone takes seconds to start on a loaded machine, so the suite-wide 120 s limit
# is too tight for its runs.
pytestmark = pytest.mark.timeout(600)

ANSWER = "# Result\n\nThe file says **hi**.\n\n```python\ndef f(x):\n    return x + 1\n```\n\n- one\n- two\n"
TOOL_TURNS: list[dict[str, Any]] = [
    {"text": "I'll read it.", "tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "hello.txt"}}]},
    {"text": ANSWER},
]


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def _tool_call_user_commands_and_quit(app: Driven) -> None:
    await app.submit("read hello.txt please")
    screen = await app.wait_for("↑20 ↓10")  # the footer's token totals of both answers
    for shown in ("read hello.txt please", "I'll read it.", "read hello.txt", "The file says hi.",
                  "def f(x):", "```python", "- two"):  # fmt: skip
        assert shown in screen, shown
    await app.submit("!echo hello-from-bash; exit 3")
    await app.wait_for("hello-from-bash")
    await app.wait_for("(exit 3)")  # the command is done (the command line also says "exit 3")
    await app.submit("!!echo hidden-run")
    await app.wait_for("hidden-run")
    await app.submit("/name my task")
    await app.wait_for("Session name set: my task")
    await app.wait_until(lambda s: re.search(r"work • my task", s) is not None, "the footer lacks the session name")
    await app.submit("/session")
    screen = await app.wait_for("Tools:")
    assert "Name: my task" in screen and "User: 1" in screen and "1 calls, 1 results" in screen
    await app.type("a draft to clear")
    await app.wait_for("a draft to clear", region="editor")
    await app.send("C-c")
    await app.wait_until(lambda s: "a draft to clear" not in "\n".join(s.split("\n")[-8:]), "Ctrl+C did not clear")
    await app.submit("/quit")
    await app.wait_exit()
    session_id = app.entries()[0]["id"]
    assert f"To resume this session: pi --session {session_id}" in app.screen()


def test_answer_with_a_tool_call_user_commands_and_quit(tmp_path: Path, which: str) -> None:
    app = play(tmp_path, which, TOOL_TURNS, _tool_call_user_commands_and_quit, files={"hello.txt": "hi\n"})
    [path] = app.session_files()
    messages = app.messages(path)
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "assistant", "bashExecution",
                                             "bashExecution"]  # fmt: skip
    runs = [(m["command"], m["exitCode"], m["excludeFromContext"]) for m in messages if m["role"] == "bashExecution"]
    assert runs == [("echo hello-from-bash; exit 3", 3, False), ("echo hidden-run", 0, True)]
    names = [entry["name"] for entry in app.entries(path) if entry["type"] == "session_info"]
    assert names == ["my task"]
    if app.ours:
        [context] = pi_reads_the_same([path])
        roles = [m["role"] for m in context["context"]["messages"]]
        assert roles == ["user", "assistant", "toolResult", "assistant", "bashExecution", "bashExecution"]
        assert context["context"]["messages"][2]["content"][0]["text"] == "hi\n"


@pytest.mark.parametrize("keys", [("C-c", "C-c"), ("C-d", "C-u", "C-d")])
def test_ctrl_c_twice_and_ctrl_d_quit(tmp_path: Path, keys: tuple[str, ...]) -> None:
    """Two Ctrl+C within 0.5 s quit; Ctrl+D quits on an empty editor (with text in the editor
    it deletes forward, so Ctrl+U clears it first)."""

    async def scenario(app: App) -> None:
        await app.type("draft")
        await app.wait_for("draft", region="editor")
        await app.send(*keys)
        await app.wait_exit()

    run_app(tmp_path, [{"text": "unused"}], scenario)


def test_transcript_stays_in_the_scrollback(tmp_path: Path) -> None:
    """A long answer scrolls off the top into the terminal's own history, whole and in order."""
    numbered = "\n\n".join(f"Paragraph {i:03d}" for i in range(120))

    async def scenario(app: App) -> None:
        await app.submit("long")
        await app.wait_for("Paragraph 119")
        history = app.history()
        positions = [history.find(f"Paragraph {i:03d}") for i in range(120)]
        assert all(p >= 0 for p in positions), history
        assert positions == sorted(positions)
        assert history.count("Paragraph 050") == 1
        await app.quit()

    run_app(tmp_path, [{"text": numbered}], scenario)
