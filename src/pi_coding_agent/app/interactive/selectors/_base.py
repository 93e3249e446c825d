"""What every selector and dialog is given, and Pi's key-hint style."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_coding_agent.customize.themes import Theme
from pi_tui import Container, DynamicBorder, Keybindings, Spacer, Text, capitalize_keys


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

    def frame(self, title: str, body: Sequence[Any], footer: str | None = None) -> Container:
        """Accent borders around a bold title, the body and a dim footer (``/llama``, ``/mcp``)."""
        theme = self.theme
        frame = Container()
        frame.add_child(self.border("accent"))
        frame.add_child(Text(theme.fg("accent", theme.bold(title)), 1, 0))
        for child in body:
            frame.add_child(child)
        if footer:
            frame.add_child(Spacer(1))
            frame.add_child(Text(theme.fg("dim", footer), 1, 0))
        frame.add_child(self.border("accent"))
        return frame
