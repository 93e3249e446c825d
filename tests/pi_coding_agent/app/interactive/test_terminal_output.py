"""The TUI and the terminal-output policy: an answer, its thinking and a tool's output full
of every escape family (OSC 52 clipboard, titles, links, queries, clears...) are drawn as
text; the virtual terminal's clipboard and title stay untouched and none of the sequences
is among the bytes written, live and again when the session is resumed from its file (with
a session name holding them too: footer, tree and session list). The
same holds for what an extension shows: notices, a status, a widget, a title, a card, an
error it raised. On a
real pseudo-terminal, ours writes none of them and Pi 0.85's TUI writes all but OSC 8 (the
documented difference)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app
from tests.pi_coding_agent.app.interactive._scenario import SETTINGS, pi_command
from tests.pi_coding_agent.app.interactive.test_cell_size import _submit
from tests.pi_coding_agent.e2e._harness import Sandbox
from tests.reliability.figures import record
from tests.support.escape_families import SAMPLES
from tests.support.pty_terminal import Pty
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(300)

MIX = "".join(f"<{n}>{sample}" for n, sample in enumerate(SAMPLES.values()))
TURNS = [
    {
        "thinking": f"pondering {MIX} thought-end",
        "text": f"reading {MIX} read-next",
        "tool_calls": [
            {"id": "call_1", "name": "read", "arguments": {"path": "evil.txt"}},
            {"id": "call_2", "name": "mystery", "arguments": {"nested": {"deep": [f"deep {MIX} deep-end"]}}},
        ],
    },
    {"text": f"answer {MIX} answer-end"},
]
# The sequences of the samples, each one unique to them: our own renderer writes none of these
# (it does clear with `CSI 2J CSI H CSI 3J` and sets modifyOtherKeys `CSI > 4 ; 2 m` itself, so
# those are matched only as the samples write them), and each starts with its ESC or C1
# character (JSON shows an unknown tool's arguments with `\u001b` as harmless text).
FORBIDDEN = [
    "\x1b]52;", "\x1b]0;owned", "\x1b]1;icon", "\x1b]2;window", "\x1b]8;;https://evil.example",
    "\x1b]4;1;rgb", "\x1bP$qm", "\x1b_Ga=T", "\x1b^private", "\x1bXstring", "\x9b", "\x9d",
    "\x1bZ", "\x1b[10;5H", "\x1b[1;5r", "\x1b[2J\x1b[3J\x1b[K", "\x1bc", "\x1b[?1049h", "\x1b[?1000h",
    "\x1b[4h", "\x1b[6n", "\x1b[>c", "\x1b[5n", "\x1b[21t", "\x1b[18t", "\x1b(0", "\x1b#8", "\x0e", "\x7f",
]  # fmt: skip


def _check_terminal(app: App, written: str, surface: str) -> None:
    """After the run (while it runs, the environment is the run's, without the figures file)."""
    found = [sequence for sequence in FORBIDDEN if sequence in written]
    for family in SAMPLES:
        record("escape_family", family=family, surface=surface, leaked=int(bool(found)))
    assert not found, f"reached the terminal: {found}"
    assert app.clipboard() == ""
    assert not any(word in app.terminal.title for word in ("owned", "icon", "window"))


async def _answer_and_expand(app: App) -> None:
    await app.submit("go")
    await app.wait_for("answer-end")
    await app.send("C-o")  # the read's output and the thinking, in full
    screen = await app.wait_for("file-end")
    assert "mystery" in app.history()  # an unknown tool: its arguments drawn as JSON
    assert "<0><1><2><3><4><5><6><7><8><9><10><11><12><13><14><15>" in screen.replace(" ", "")


def test_model_and_tool_text_never_reach_the_terminal_live_or_resumed(tmp_path: Path) -> None:
    live_output, resumed_output = tmp_path / "live.out", tmp_path / "resumed.out"

    async def live(app: App) -> None:
        app.record_output(live_output)
        await _answer_and_expand(app)

    first = run_app(tmp_path / "first", TURNS, live, files={"evil.txt": f"file {MIX} file-end"})
    _check_terminal(first, live_output.read_text(encoding="utf-8"), "tui")
    [session] = first.session_files()
    lines = session.read_text(encoding="utf-8").split("\n")  # not splitlines(): U+0085 is in the text
    stored = [json.loads(line) for line in lines if line]
    texts = [block.get("text") for entry in stored if entry.get("type") == "message"
             for block in entry["message"].get("content", []) if isinstance(block, dict)]  # fmt: skip
    assert f"answer {MIX} answer-end" in texts  # the file keeps the answer as it came

    last = stored[-1]
    named = {"type": "session_info", "id": "feedbeef", "parentId": last["id"], "timestamp": last["timestamp"],
             "name": f"named {MIX}"}  # fmt: skip
    with session.open("a", encoding="utf-8") as file:
        file.write(json.dumps(named) + "\n")

    async def resumed(app: App) -> None:
        app.record_output(resumed_output)
        await app.wait_for("answer-end")
        await app.send("C-o")
        await app.wait_for("file-end")
        await app.wait_for("named <0><1>")  # the footer
        await app.submit("/tree")  # every entry's text on a line of its own
        await app.wait_for("Session Tree")
        await app.wait_for("answer <0><1>")
        await app.send("Escape")
        await app.wait_until_gone("Session Tree")
        await app.submit("/resume")  # the session list (of the folder given with --session-dir)
        await app.wait_for("Resume Session")
        await app.wait_until(lambda s: s.count("named <0><1>") >= 2, "the session list lacks the name")

    args = ("--session", str(session), "--session-dir", str(session.parent))
    # Wide enough that the footer's cwd (the temporary folder, longer under xdist) leaves room
    # for the name.
    second = run_app(tmp_path / "second", TURNS, resumed, args=args, width=200)
    _check_terminal(second, resumed_output.read_text(encoding="utf-8"), "tui resume")


EXTENSION = f"""
MIX = {MIX!r}


def setup(pi):
    async def evil(args, ctx):
        ctx.ui.notify("info " + MIX, "info")
        ctx.ui.notify("warning " + MIX, "warning")
        ctx.ui.notify("error " + MIX, "error")
        ctx.ui.set_status("evil", "status " + MIX)
        ctx.ui.set_widget("evil", ["widget " + MIX, "widget-end"])
        ctx.ui.set_title("title " + MIX)
        await pi.send_message("card", "card " + MIX + " card-end", trigger_turn=False)

    async def boom(args, ctx):
        raise RuntimeError("boom " + MIX)

    pi.register_command("evil", evil, description="Show escape sequences everywhere")
    pi.register_command("boom", boom, description="Fail with escape sequences")
"""


def test_what_an_extension_shows_never_sends_the_terminal_a_sequence(tmp_path: Path) -> None:
    extension, output = tmp_path / "evil.py", tmp_path / "out"
    extension.write_text(EXTENSION, encoding="utf-8")

    async def scenario(app: App) -> None:
        app.record_output(output)
        await app.submit("/evil")
        screen = await app.wait_for("card-end")
        for shown in ("info <0>", "warning <0>", "error <0>", "widget <0>", "widget-end"):
            assert shown in screen, shown
        await app.wait_until(lambda s: "status <0>" in s, "the status never showed")
        await app.submit("/boom")  # the error an extension's command raised
        await app.wait_for("boom <0><1>")

    app = run_app(tmp_path / "run", [], scenario, args=("-e", str(extension)), height=40)
    _check_terminal(app, output.read_text(encoding="utf-8"), "tui extension")
    assert app.terminal.title.startswith("title <0><1><2>")


def _tui_on_a_pty(tmp_path: Path, which: str) -> str:
    """What the interactive ``pi`` wrote to its terminal from the prompt to the answer's end."""
    with ScriptedProvider([{"text": f"answer {MIX} answer-end"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, SETTINGS)
        program = Pty(pi_command(which), sandbox.work, sandbox.env(TERM="xterm-256color"))
        try:
            program.wait_for("scripted-model")
            mark = program.mark()
            _submit(program, "hi", "answer-end")  # the frame that shows it carries the rest of the answer
            return program.raw_since(mark).decode("utf-8", "replace")
        finally:
            program.close()


def test_on_a_real_terminal_ours_writes_no_sequence_of_the_answer(tmp_path: Path) -> None:
    written = _tui_on_a_pty(tmp_path, "ours")
    found = [sequence for sequence in FORBIDDEN if sequence in written]
    for family in SAMPLES:
        record("escape_family", family=family, surface="tui pty", leaked=int(bool(found)))
    assert not found, f"reached the terminal: {found}"


def test_pi_0_85_tui_writes_the_answer_raw_but_osc_8(tmp_path: Path) -> None:
    written = _tui_on_a_pty(tmp_path, "pi")
    for sequence in ("\x1b]52;c;cHduZWQ=\x07", "\x1b]0;owned\x07", "\x1b[6n", "\x1b[2J", "\x1bP$qm\x1b\\"):
        assert sequence in written, sequence
    assert "\x1b]8;;https://evil.example" not in written
