"""Keybindings: action ids to keys, with Pi's defaults and ``keybindings.json`` overrides.

The file maps an action id (``tui.editor.cursorUp``, ``app.interrupt``, ...) to a key or a
list of keys; a user entry replaces the defaults of that action (``[]`` unbinds it).
Pre-namespaced ids of older Pi configs (``cursorUp``, ``expandTools``) are read as their
namespaced names, as Pi migrates them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from pi_tui._keys import normalize_key, parse_key, shifted_letter

Bindings = Mapping[str, tuple[str, ...]]

TUI_DEFAULTS: dict[str, tuple[str, ...]] = {
    "tui.editor.cursorUp": ("up",),
    "tui.editor.cursorDown": ("down",),
    "tui.editor.historyPrevious": (),
    "tui.editor.historyNext": (),
    "tui.editor.cursorLeft": ("left", "ctrl+b"),
    "tui.editor.cursorRight": ("right", "ctrl+f"),
    "tui.editor.cursorWordLeft": ("alt+left", "ctrl+left", "alt+b"),
    "tui.editor.cursorWordRight": ("alt+right", "ctrl+right", "alt+f"),
    "tui.editor.cursorLineStart": ("home", "ctrl+home", "ctrl+a"),
    "tui.editor.cursorLineEnd": ("end", "ctrl+end", "ctrl+e"),
    "tui.editor.jumpForward": ("ctrl+]",),
    "tui.editor.jumpBackward": ("ctrl+alt+]",),
    "tui.editor.pageUp": ("pageUp", "ctrl+pageUp"),
    "tui.editor.pageDown": ("pageDown", "ctrl+pageDown"),
    "tui.editor.deleteCharBackward": ("backspace",),
    "tui.editor.deleteCharForward": ("delete", "ctrl+d"),
    "tui.editor.deleteWordBackward": ("ctrl+w", "alt+backspace"),
    "tui.editor.deleteWordForward": ("alt+d", "alt+delete"),
    "tui.editor.deleteToLineStart": ("ctrl+u",),
    "tui.editor.deleteToLineEnd": ("ctrl+k",),
    "tui.editor.yank": ("ctrl+y",),
    "tui.editor.yankPop": ("alt+y",),
    "tui.editor.undo": ("ctrl+-",),
    "tui.input.newLine": ("shift+enter", "ctrl+j"),
    "tui.input.submit": ("enter",),
    "tui.input.tab": ("tab",),
    "tui.input.copy": ("ctrl+c",),
    "tui.select.up": ("up",),
    "tui.select.down": ("down",),
    "tui.select.pageUp": ("pageUp",),
    "tui.select.pageDown": ("pageDown",),
    "tui.select.confirm": ("enter",),
    "tui.select.cancel": ("escape", "ctrl+c"),
    "tui.altScreen.pageUp": ("pageUp",),
    "tui.altScreen.pageDown": ("pageDown",),
    "tui.altScreen.halfPageUp": (),
    "tui.altScreen.halfPageDown": (),
    "tui.altScreen.lineUp": (),
    "tui.altScreen.lineDown": (),
    "tui.altScreen.previousPrompt": ("ctrl+shift+up", "ctrl+up"),
    "tui.altScreen.nextPrompt": ("ctrl+shift+down", "ctrl+down"),
    "tui.altScreen.search": ("ctrl+shift+f",),
    "tui.altScreen.searchNext": ("enter", "ctrl+g"),
    "tui.altScreen.searchPrevious": ("shift+enter", "ctrl+shift+g"),
    "tui.altScreen.searchClose": ("escape",),
    "tui.altScreen.top": ("ctrl+home",),
    "tui.altScreen.bottom": ("ctrl+end",),
}

LEGACY_NAMES = {
    "cursorUp": "tui.editor.cursorUp", "cursorDown": "tui.editor.cursorDown",
    "cursorLeft": "tui.editor.cursorLeft", "cursorRight": "tui.editor.cursorRight",
    "cursorWordLeft": "tui.editor.cursorWordLeft", "cursorWordRight": "tui.editor.cursorWordRight",
    "cursorLineStart": "tui.editor.cursorLineStart", "cursorLineEnd": "tui.editor.cursorLineEnd",
    "jumpForward": "tui.editor.jumpForward", "jumpBackward": "tui.editor.jumpBackward",
    "pageUp": "tui.editor.pageUp", "pageDown": "tui.editor.pageDown",
    "deleteCharBackward": "tui.editor.deleteCharBackward", "deleteCharForward": "tui.editor.deleteCharForward",
    "deleteWordBackward": "tui.editor.deleteWordBackward", "deleteWordForward": "tui.editor.deleteWordForward",
    "deleteToLineStart": "tui.editor.deleteToLineStart", "deleteToLineEnd": "tui.editor.deleteToLineEnd",
    "yank": "tui.editor.yank", "yankPop": "tui.editor.yankPop", "undo": "tui.editor.undo",
    "newLine": "tui.input.newLine", "submit": "tui.input.submit", "tab": "tui.input.tab", "copy": "tui.input.copy",
    "selectUp": "tui.select.up", "selectDown": "tui.select.down", "selectPageUp": "tui.select.pageUp",
    "selectPageDown": "tui.select.pageDown", "selectConfirm": "tui.select.confirm",
    "selectCancel": "tui.select.cancel", "interrupt": "app.interrupt", "clear": "app.clear", "exit": "app.exit",
    "suspend": "app.suspend", "cycleThinkingLevel": "app.thinking.cycle", "cycleModelForward": "app.model.cycleForward",
    "cycleModelBackward": "app.model.cycleBackward", "selectModel": "app.model.select",
    "expandTools": "app.tools.expand", "toggleThinking": "app.thinking.toggle",
    "toggleSessionNamedFilter": "app.session.toggleNamedFilter", "externalEditor": "app.editor.external",
    "followUp": "app.message.followUp", "dequeue": "app.message.dequeue", "pasteImage": "app.clipboard.pasteImage",
    "newSession": "app.session.new", "tree": "app.session.tree", "fork": "app.session.fork",
    "resume": "app.session.resume", "treeFoldOrUp": "app.tree.foldOrUp", "treeUnfoldOrDown": "app.tree.unfoldOrDown",
    "treeEditLabel": "app.tree.editLabel", "treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp",
    "toggleSessionPath": "app.session.togglePath", "toggleSessionSort": "app.session.toggleSort",
    "renameSession": "app.session.rename", "deleteSession": "app.session.delete",
    "deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}  # fmt: skip


def read_keybindings_file(path: Path) -> tuple[dict[str, tuple[str, ...]], str | None]:
    """User bindings from ``path`` (none when it does not exist), and a problem to report, if any."""
    try:
        text = path.read_text("utf-8").lstrip("\ufeff")
    except FileNotFoundError:
        return {}, None
    except OSError as error:
        return {}, f"{path}: cannot read ({error.strerror})"
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        return {}, f"{path}:{error.lineno}: invalid JSON ({error.msg}); default keybindings used"
    if not isinstance(raw, dict):
        return {}, f"{path}: expected a JSON object of action ids to keys; default keybindings used"
    bindings: dict[str, tuple[str, ...]] = {}
    for key, value in raw.items():
        name: str = LEGACY_NAMES.get(str(key), str(key))
        if name != key and name in raw:
            continue
        if isinstance(value, str):
            bindings[name] = (value,)
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            bindings[name] = tuple(value)
    return bindings, None


class Keybindings:
    """Which keys trigger which action; ``matches(data, action)`` for raw input."""

    def __init__(self, defaults: Bindings, user: Bindings | None = None) -> None:
        self.defaults = dict(defaults)
        self.set_user_bindings(user or {})

    def set_user_bindings(self, user: Bindings) -> None:
        self.user = dict(user)
        merged = {**self.defaults, **self.user}
        self._spelled = merged
        self._keys = {action: tuple(normalize_key(key) for key in keys) for action, keys in merged.items()}

    def keys(self, action: str) -> tuple[str, ...]:
        """The keys of ``action`` as configured (``shift+ctrl+p``), for hints and help."""
        return tuple(self._spelled.get(action, ()))

    def matches(self, data: str, action: str) -> bool:
        keys = self._keys.get(action)
        if not keys:
            return False
        key = parse_key(data) or shifted_letter(data)
        return key is not None and key in keys

    def action_for(self, data: str, actions: tuple[str, ...]) -> str | None:
        key = parse_key(data) or shifted_letter(data)
        if key is None:
            return None
        for action in actions:
            if key in self._keys.get(action, ()):
                return action
        return None

    def describe(self, action: str) -> str:
        """The first key of ``action`` as shown in hints (``ctrl+o``)."""
        keys = self.keys(action)
        return keys[0] if keys else ""

    def text(self, action: str) -> str:
        """Every key of ``action``, as Pi's hints show them (``escape/ctrl+c``)."""
        return "/".join(self.keys(action))

    def display(self, action: str) -> str:
        """``text`` with each part capitalized (``Alt+Up``), as in Pi's help texts."""
        return capitalize_keys(self.text(action))


def capitalize_keys(text: str) -> str:
    return "/".join(
        "+".join(part[:1].upper() + part[1:] for part in key.split("+")) for key in text.split("/")
    )
