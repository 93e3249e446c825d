"""Key forms a terminal may send once modifyOtherKeys is on, and Shift+letter bindings."""

from __future__ import annotations

from pi_tui import TUI_DEFAULTS, Editor, Keybindings, matches_key


def test_shift_letter_bindings_match_the_capital_letter() -> None:
    keys = Keybindings({**TUI_DEFAULTS, "app.tree.editLabel": ("shift+l",)})
    assert keys.matches("L", "app.tree.editLabel") and matches_key("L", "shift+l")
    assert not keys.matches("l", "app.tree.editLabel") and not matches_key("L", "l")
    assert keys.matches("\x1b[108;2u", "app.tree.editLabel")  # the Kitty form of the same key


def test_the_editor_takes_modify_other_keys_forms() -> None:
    editor = Editor()
    submitted: list[str] = []
    editor.on_submit = submitted.append
    for data in ("a", "\x1b[27;2;66~", "\x1b[27;2;13~", "c", "\x1b[27;5;65~", "\r"):
        editor.handle_input(data)  # a, Shift+B, Shift+Enter (a new line), c, Ctrl+A, Enter
    assert submitted == ["aB\nc"]
