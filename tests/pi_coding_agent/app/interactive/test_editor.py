"""The editor of the real ``pi`` in tmux (ours and Pi's own): prompt history, kill and yank,
undo, a large paste (collapsed, sent whole), ``@`` fuzzy file completion, Tab path
completion, ``/`` command completion and Ctrl+G (the external editor)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._scenario import Run, launch

# A scenario drives a whole session in a terminal; Pi's TUI alone takes seconds to start
# on a loaded machine, so the suite-wide 120 s limit is too tight here.
pytestmark = pytest.mark.timeout(600)

TURNS = [{"text": "first done"}, {"text": "paste done"}, {"text": "file done"}, {"text": "editor done"}]
FILES = {"notes.txt": "n\n"}


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _editor_is(run: Run, text: str) -> None:
    run.pane.wait_until(lambda s: run.editor_text(s).strip() == text, f"the editor does not hold {text!r}")


def test_history_kill_undo_paste_completion_external_editor(tmp_path: Path, which: str) -> None:
    script = tmp_path / "fake-editor"
    script.write_text("#!/bin/sh\nprintf 'written in the editor' > \"$1\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    with launch(tmp_path, which, TURNS, files=FILES, env={"EDITOR": str(script)}) as run:
        pane = run.pane
        (run.sandbox.work / "src" / "deep").mkdir(parents=True)
        (run.sandbox.work / "src" / "deep" / "target_file.py").write_text("x = 1\n", encoding="utf-8")
        run.submit("first prompt")
        pane.wait_for("first done")
        pane.send("Up")
        _editor_is(run, "first prompt")
        pane.send("C-k")  # the cursor is at the start after Up: delete to the line's end
        _editor_is(run, "")
        pane.type("alpha beta")
        pane.send("C-w")
        _editor_is(run, "alpha")
        pane.send("C-_")  # Ctrl+- : undo
        _editor_is(run, "alpha beta")
        pane.send("C-w")
        pane.type("gamma ")
        pane.send("C-y")
        _editor_is(run, "alpha gamma beta")
        pane.send("C-u")
        _editor_is(run, "")
        pane.type("before ")
        pane.paste("\n".join(f"line {i}" for i in range(1, 31)))
        pane.wait_for("before [paste #1 +30 lines]", region="editor")
        pane.send("Enter")
        pane.wait_for("paste done")
        pane.type("look at @targ")
        pane.wait_for("→ target_file.py                  src/deep/target_file.py")
        pane.send("Tab")
        _editor_is(run, "look at @src/deep/target_file.py")
        pane.send("C-u")
        pane.type("cat src/de")
        pane.send("Tab")
        _editor_is(run, "cat src/deep/")
        pane.send("C-u")
        pane.type("/ses")
        pane.wait_for("→ session        Show session info and stats")
        pane.send("Escape")
        pane.wait_until_gone("Show session info and stats")
        pane.send("C-u")
        _editor_is(run, "")
        pane.type("about @notes")
        pane.wait_for("→ notes.txt")
        pane.send("Tab")
        pane.send("Enter")
        pane.wait_for("file done")
        pane.send("C-g")
        _editor_is(run, "written in the editor")
        pane.send("Enter")
        pane.wait_for("editor done")
        run.quit()
    users = [m for m in run.messages() if m["role"] == "user"]
    texts = ["".join(block.get("text", "") for block in m["content"]) for m in users]
    assert texts[0] == "first prompt"
    assert texts[1] == "before " + "\n".join(f"line {i}" for i in range(1, 31))
    assert texts[2].startswith("about @notes.txt")
    assert texts[3] == "written in the editor"
    # The @file reference reached the model with the file attached.
    assert "notes.txt" in json.dumps(run.provider.requests[2]["body"]["messages"][-1])


def test_shift_enter_starts_a_new_line(tmp_path: Path, which: str) -> None:
    """tmux with ``extended-keys on`` forwards Shift+Enter as ``CSI 27;2;13~`` once the program
    asked for modifyOtherKeys (both ask when the terminal has no Kitty keyboard protocol)."""
    with launch(tmp_path, which, TURNS, extended_keys=True) as run:
        pane = run.pane
        pane.type("line one")
        pane.wait_for("line one", region="editor")
        pane.send("S-Enter")
        pane.type("line two")
        _editor_is(run, "line one\nline two")
        pane.send("C-j")  # Ctrl+J is the other new-line key
        pane.type("line three")
        _editor_is(run, "line one\nline two\nline three")
        pane.send("Enter")
        pane.wait_for("first done")
        run.quit()
    [user, _] = run.messages()
    assert user["content"] == [{"type": "text", "text": "line one\nline two\nline three"}]
