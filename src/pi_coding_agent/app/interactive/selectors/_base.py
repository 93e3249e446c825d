"""What every selector and dialog is given, and Pi's key-hint style."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pi_coding_agent.customize.themes import Theme
from pi_tui import DynamicBorder, Keybindings, capitalize_keys


@dataclass
class SelectorContext:
    theme: Theme
    keys: Keybindings
    request_render: Callable[[], None]

    def hint(self, action: str, description: str) -> str:
        """``enter select`` (the keys dim, the words muted), as Pi's ``keyHint``."""
        return self.raw_hint(self.keys.text(action), description)

    def raw_hint(self, key: str, description: str) -> str:
        return self.theme.fg("dim", key) + self.theme.fg("muted", f" {description}")

    def display(self, action: str) -> str:
        return capitalize_keys(self.keys.text(action))

    def border(self, token: str | None = None) -> DynamicBorder:
        theme = self.theme
        return DynamicBorder(lambda s: theme.fg(token or "border", s))
