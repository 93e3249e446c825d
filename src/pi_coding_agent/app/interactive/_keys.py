"""The interactive mode's keybindings: the editor's plus Pi's application actions."""

from __future__ import annotations

from pathlib import Path

from pi_tui import TUI_DEFAULTS, Keybindings, read_keybindings_file

APP_DEFAULTS: dict[str, tuple[str, ...]] = {
    "app.interrupt": ("escape",),
    "app.clear": ("ctrl+c",),
    "app.exit": ("ctrl+d",),
    "app.suspend": ("ctrl+z",),
    "app.thinking.cycle": ("shift+tab",),
    "app.model.cycleForward": ("ctrl+p",),
    "app.model.cycleBackward": ("shift+ctrl+p",),
    "app.model.select": ("ctrl+l",),
    "app.tools.expand": ("ctrl+o",),
    "app.thinking.toggle": ("ctrl+t",),
    "app.session.toggleNamedFilter": ("ctrl+n",),
    "app.editor.external": ("ctrl+g",),
    "app.message.followUp": ("alt+enter",),
    "app.message.dequeue": ("alt+up",),
    "app.message.copy": ("ctrl+x",),
    "app.clipboard.pasteImage": ("ctrl+v",),
    "app.session.new": (),
    "app.session.tree": (),
    "app.session.fork": (),
    "app.session.resume": (),
    "app.session.togglePath": ("ctrl+p",),
    "app.session.toggleSort": ("ctrl+s",),
    "app.session.rename": ("ctrl+r",),
    "app.session.delete": ("ctrl+d",),
    "app.session.deleteNoninvasive": ("ctrl+backspace",),
    "app.tree.foldOrUp": ("ctrl+left", "alt+left"),
    "app.tree.unfoldOrDown": ("ctrl+right", "alt+right"),
    "app.tree.editLabel": ("shift+l",),
    "app.tree.toggleLabelTimestamp": ("shift+t",),
    "app.tree.filter.default": ("ctrl+d",),
    "app.tree.filter.noTools": ("ctrl+t",),
    "app.tree.filter.userOnly": ("ctrl+u",),
    "app.tree.filter.labeledOnly": ("ctrl+l",),
    "app.tree.filter.all": ("ctrl+a",),
    "app.tree.filter.cycleForward": ("ctrl+o",),
    "app.tree.filter.cycleBackward": ("shift+ctrl+o",),
    "app.models.save": ("ctrl+s",),
    "app.models.enableAll": ("ctrl+a",),
    "app.models.clearAll": ("ctrl+x",),
    "app.models.toggleProvider": ("ctrl+p",),
    "app.models.reorderUp": ("alt+up",),
    "app.models.reorderDown": ("alt+down",),
}


def load_keybindings(agent_dir: Path) -> tuple[Keybindings, str | None]:
    """Pi's defaults with ``<agentDir>/keybindings.json`` on top, and a problem to show, if any."""
    user, problem = read_keybindings_file(agent_dir / "keybindings.json")
    return Keybindings({**TUI_DEFAULTS, **APP_DEFAULTS}, user), problem
