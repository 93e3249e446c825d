"""The real ``pi`` in a real terminal (tmux), against a scripted provider on 127.0.0.1.

The same scenarios also run against Pi 0.85's own TUI (``pi-cli``) where they depend only
on what Pi shows, not on our wording, so they check Pi's behaviour as well as ours. The
session files our runs leave are read back by the live oracle.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox, oracle_context
from tests.pi_coding_agent.interactive._tmux import TmuxPane
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

ANSWER = "# Result\n\nThe file says **hi**.\n\n```python\ndef f(x):\n    return x + 1\n```\n\n- one\n- two\n"
TOOL_TURNS: list[dict[str, Any]] = [
    {
        "text": "I'll read it.",
        "tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "hello.txt"}}],
    },
    {"text": ANSWER},
]
SETTINGS = {
    "retry": {"enabled": False},
    "defaultProvider": "scripted-openai",
    "defaultModel": "scripted-model",
}


def _sandbox(tmp_path: Path, provider: ScriptedProvider) -> Sandbox:
    sandbox = Sandbox.create(tmp_path, provider.base_url, SETTINGS)
    (sandbox.work / "hello.txt").write_text("hi\n", encoding="utf-8")
    return sandbox


def _pane(sandbox: Sandbox, which: str, *args: str) -> TmuxPane:
    if which == "pi":
        command = [str(oracle.require_live_oracle() / "pi-cli"), *args]
    else:
        command = [str(OUR_PI), *args]
    env = sandbox.env(TERM="xterm-256color")
    return TmuxPane(command, sandbox.work, env)


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def provider() -> Iterator[ScriptedProvider]:
    with ScriptedProvider(TOOL_TURNS) as server:
        yield server


def _ready(pane: TmuxPane) -> None:
    pane.wait_for("scripted-model", limit=60)


def _editor_text(screen: str) -> str:
    """What the editor shows: the lines between the last two horizontal rules."""
    lines = screen.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("────")]
    return "\n".join(lines[rules[-2] + 1 : rules[-1]]) if len(rules) >= 2 else ""


def _submit(pane: TmuxPane, text: str) -> None:
    """Type ``text`` and press Enter; again while the editor still holds it (Pi refuses
    submissions while its startup is still in progress)."""
    pane.type(text)
    pane.wait_for(text)
    pane.send("Enter")
    for _ in range(120):
        pane.settle(0.5)
        if text not in _editor_text(pane.screen()):
            return
        pane.send("Enter")
    raise AssertionError(pane.screen())


def _messages(sandbox: Sandbox) -> list[dict[str, Any]]:
    [path] = sandbox.session_files()
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [entry["message"] for entry in entries if entry.get("type") == "message"]


def test_prompt_streams_an_answer_with_a_tool_call(
    tmp_path: Path, provider: ScriptedProvider, which: str
) -> None:
    sandbox = _sandbox(tmp_path, provider)
    pane = _pane(sandbox, which)
    try:
        _ready(pane)
        _submit(pane, "read hello.txt please")
        screen = pane.wait_for("- two")
        assert "read hello.txt please" in screen
        assert "I'll read it." in screen
        assert "read hello.txt" in screen
        assert "The file says hi." in screen
        assert "def f(x):" in screen and "```python" in screen
        assert "↑20 ↓10" in screen  # the footer's token totals of both answers
        pane.send("C-d")
        pane.wait_for("[exit 0]")
    finally:
        pane.close()
    roles = [m["role"] for m in _messages(sandbox)]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    if which == "ours":
        [path] = sandbox.session_files()
        context = oracle_context(path)
        assert [m["role"] for m in context["context"]["messages"]] == roles
        assert context["context"]["messages"][2]["content"][0]["text"] == "hi\n"


def test_user_bash_runs_and_is_recorded(tmp_path: Path, provider: ScriptedProvider, which: str) -> None:
    sandbox = _sandbox(tmp_path, provider)
    pane = _pane(sandbox, which)
    try:
        _ready(pane)
        _submit(pane, "read hello.txt please")  # the session file is written once an answer arrived
        pane.wait_for("- two")
        _submit(pane, "!echo hello-from-bash; exit 3")
        pane.wait_for("hello-from-bash")
        pane.settle()  # let the command exit before the next one (a second would be refused)
        _submit(pane, "!!echo hidden-run")
        pane.wait_until_gone("!!echo hidden-run")
        pane.wait_for("hidden-run")
        pane.settle()
        pane.send("C-d")
        pane.wait_for("[exit 0]")
    finally:
        pane.close()
    runs = [m for m in _messages(sandbox) if m["role"] == "bashExecution"]
    assert [(m["command"], m["exitCode"], m["excludeFromContext"]) for m in runs] == [
        ("echo hello-from-bash; exit 3", 3, False),
        ("echo hidden-run", 0, True),
    ]


def test_escape_aborts_a_streaming_answer(tmp_path: Path, which: str) -> None:
    slow = [{"text": "word " * 400, "chunk_delay": 0.05}]
    with ScriptedProvider(slow) as server:
        sandbox = _sandbox(tmp_path, server)
        pane = _pane(sandbox, which)
        try:
            _ready(pane)
            _submit(pane, "talk")
            pane.wait_for("word word")
            pane.send("Escape")
            pane.wait_for("aborted")
            pane.send("C-d")
            pane.wait_for("[exit 0]")
        finally:
            pane.close()
    last = _messages(sandbox)[-1]
    assert last["role"] == "assistant" and last["stopReason"] == "aborted"


def test_ctrl_c_clears_then_quits(tmp_path: Path, provider: ScriptedProvider, which: str) -> None:
    sandbox = _sandbox(tmp_path, provider)
    pane = _pane(sandbox, which)
    try:
        _ready(pane)
        pane.type("some draft text")
        pane.wait_for("some draft text")
        pane.send("C-c")
        pane.wait_until_gone("some draft text")
        # Two presses within 0.5 s quit (Pi's rule). The clearing press must fall outside that
        # window however fast the screen updated, and the two quitting presses inside it
        # however slow the machine is: one send-keys call delivers them together.
        time.sleep(0.6)
        pane.send("C-c", "C-c")
        pane.wait_for("[exit 0]")
    finally:
        pane.close()


def test_quit_command(tmp_path: Path, provider: ScriptedProvider, which: str) -> None:
    sandbox = _sandbox(tmp_path, provider)
    pane = _pane(sandbox, which)
    try:
        _ready(pane)
        _submit(pane, "/quit")
        pane.wait_for("[exit 0]")
    finally:
        pane.close()


def test_transcript_stays_in_the_scrollback(tmp_path: Path) -> None:
    """A long answer scrolls off the top into the terminal's own history, whole and in order."""
    numbered = "\n\n".join(f"Paragraph {i:03d}" for i in range(120))
    with ScriptedProvider([{"text": numbered}]) as server:
        sandbox = _sandbox(tmp_path, server)
        pane = _pane(sandbox, "ours")
        try:
            _ready(pane)
            _submit(pane, "long")
            pane.wait_for("Paragraph 119")
            history = pane.history()
            positions = [history.find(f"Paragraph {i:03d}") for i in range(120)]
            assert all(p >= 0 for p in positions), history
            assert positions == sorted(positions)
            assert history.count("Paragraph 050") == 1
            pane.send("C-d")
            pane.wait_for("[exit 0]")
        finally:
            pane.close()
