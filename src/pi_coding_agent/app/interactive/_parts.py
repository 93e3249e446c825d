"""Narrow views of the interactive mode's parts, for the partners that use them.

Partners (the queue, the indicators, the commands...) do not take ``InteractiveMode``: each
declares the few members it uses as a protocol of its own, typed with these views where a
part is used only for them, and the mode satisfies every one structurally.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeAlias

from pi_tui import Component

Spawn: TypeAlias = Callable[[Coroutine[Any, Any, Any]], None]
"""Runs a coroutine in the background; a failure is shown in the transcript."""


class Notices(Protocol):
    """Lines added to the transcript: a dim status, a warning, an error, any component."""

    def status(self, text: str) -> None: ...
    def warning(self, text: str) -> None: ...
    def error(self, text: str) -> None: ...
    def add(self, component: Component) -> None: ...


class TextEditor(Protocol):
    """The editor's text."""

    def get_text(self) -> str: ...
    def set_text(self, text: str) -> None: ...


class EditorComponent(Protocol):
    """What a replacement editor offers (the built-in ``Editor`` does all of it)."""

    on_submit: Callable[[str], None] | None
    on_change: Callable[[str], None] | None

    def render(self, width: int) -> list[str]: ...
    def invalidate(self) -> None: ...
    def handle_input(self, data: str) -> None: ...
    def get_text(self) -> str: ...
    def set_text(self, text: str) -> None: ...


class Renderer(Protocol):
    """Asks for the next frame."""

    def request_render(self, force: bool = False, immediate: bool = False) -> None: ...


__all__ = ["EditorComponent", "Notices", "Renderer", "Spawn", "TextEditor"]
