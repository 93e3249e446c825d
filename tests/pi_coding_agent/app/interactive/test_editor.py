"""The editor (ours in-process, Pi's own TUI in tmux): prompt history, kill and yank,
undo, a large paste (collapsed, sent whole), ``@`` fuzzy file completion, Tab path
completion, ``/`` command completion and Ctrl+G (the external editor)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._tmux import editor_text

# Pi's TUI alone takes seconds to start on a loaded machine, so the suite-wide 120 s limit
# is too tight for its runs.
pytestmark = pytest.mark.timeout(600)

TURNS = [{"text": "first done"}, {"text": "paste done"}, {"text": "file done"}, {"text": "editor done"}]
FILES = {"notes.txt": "n\n"}


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def _editor_is(app: Driven, text: str) -> None:
    await app.wait_until(lambda s: editor_text(s).strip() == text, f"the editor does not hold {text!r}")


def test_history_kill_undo_paste_completion_external_editor(tmp_path: Path, which: str) -> None:
    script = tmp_path / "fake-editor"
    script.write_text("#!/bin/sh\nprintf 'written in the editor' > \"$1\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    async def scenario(app: Driven) -> None:
        (app.sandbox.work / "src" / "deep").mkdir(parents=True)
        (app.sandbox.work / "src" / "deep" / "target_file.py").write_text("x = 1\n", encoding="utf-8")
        await app.submit("first prompt")
        await app.wait_for("first done")
        await app.send("Up")
        await _editor_is(app, "first prompt")
        await app.send("C-k")  # the cursor is at the start after Up: delete to the line's end
        await _editor_is(app, "")
        await app.type("alpha beta")
        await app.send("C-w")
        await _editor_is(app, "alpha")
        await app.send("C-_")  # Ctrl+- : undo
        await _editor_is(app, "alpha beta")
        await app.send("C-w")
        await app.type("gamma ")
        await app.send("C-y")
        await _editor_is(app, "alpha gamma beta")
        await app.send("C-u")
        await _editor_is(app, "")
        await app.type("before ")
        await app.paste("\n".join(f"line {i}" for i in range(1, 31)))
        await app.wait_for("before [paste #1 +30 lines]", region="editor")
        await app.send("Enter")
        await app.wait_for("paste done")
        await app.type("look at @targ")
        await app.wait_for("→ target_file.py                  src/deep/target_file.py")
        await app.send("Tab")
        await _editor_is(app, "look at @src/deep/target_file.py")
        await app.send("C-u")
        await app.type("cat src/de")
        await app.send("Tab")
        await _editor_is(app, "cat src/deep/")
        await app.send("C-u")
        await app.type("/ses")
        await app.wait_for("→ session        Show session info and stats")
        await app.send("Escape")
        await app.wait_until_gone("Show session info and stats")
        await app.send("C-u")
        await _editor_is(app, "")
        await app.type("about @notes")
        await app.wait_for("→ notes.txt")
        await app.send("Tab")
        await app.send("Enter")
        await app.wait_for("file done")
        await app.send("C-g")
        await _editor_is(app, "written in the editor")
        await app.send("Enter")
        await app.wait_for("editor done")
        await app.quit()

    app = play(tmp_path, which, TURNS, scenario, files=FILES, env={"EDITOR": str(script)})
    users = [m for m in app.messages() if m["role"] == "user"]
    texts = ["".join(block.get("text", "") for block in m["content"]) for m in users]
    assert texts[0] == "first prompt"
    assert texts[1] == "before " + "\n".join(f"line {i}" for i in range(1, 31))
    assert texts[2].startswith("about @notes.txt")
    assert texts[3] == "written in the editor"
    # The @file reference reached the model with the file attached.
    assert "notes.txt" in json.dumps(app.provider.requests[2]["body"]["messages"][-1])


def test_shift_enter_starts_a_new_line(tmp_path: Path, which: str) -> None:
    """A terminal with modifyOtherKeys sends Shift+Enter as ``CSI 27;2;13~`` (tmux with
    ``extended-keys on`` once the program asked for it, which both do when the terminal has no
    Kitty keyboard protocol; the virtual terminal with ``extended_keys``)."""

    async def scenario(app: Driven) -> None:
        await app.type("line one")
        await app.wait_for("line one", region="editor")
        await app.send("S-Enter")
        await app.type("line two")
        await _editor_is(app, "line one\nline two")
        await app.send("C-j")  # Ctrl+J is the other new-line key
        await app.type("line three")
        await _editor_is(app, "line one\nline two\nline three")
        await app.send("Enter")
        await app.wait_for("first done")
        await app.quit()

    app = play(tmp_path, which, TURNS, scenario, extended_keys=True)
    [user, _] = app.messages()
    assert user["content"] == [{"type": "text", "text": "line one\nline two\nline three"}]
