"""How extensions ask the user something: the interface every run mode implements.

Extensions (a later issue) get an ``ExtensionUI`` and never know which mode they run in:

* dialogs wait for the user: ``select``, ``confirm``, ``input``, ``editor``; each can be
  given a ``timeout_ms`` and an abort ``signal``, after which it resolves with its default
  (``None``, or ``False`` for ``confirm``), as a dismissed dialog does;
* the rest only informs and returns at once: ``notify``, ``set_status``, ``set_widget``,
  ``set_title``, ``set_editor_text``.

``--mode rpc`` implements it as the ``extension_ui_request`` / ``extension_ui_response``
sub-protocol of Pi's rpc.md (``pi_coding_agent.app.rpc``); the interactive UI draws real dialogs;
``NoExtensionUI`` (print and json modes, where nobody can answer) returns the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, TypeAlias

from pi_ai import AbortSignal

NotifyKind: TypeAlias = Literal["info", "warning", "error"]
WidgetPlacement: TypeAlias = Literal["aboveEditor", "belowEditor"]
UiMode: TypeAlias = Literal["print", "json", "rpc", "tui"]


class ExtensionUI(Protocol):
    """What an extension may ask of the user interface.

    The bodies are the answers of a mode without a user (every dialog dismissed at once);
    ``NoExtensionUI`` is exactly that. A mode with a user implements every method.
    """

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        timeout_ms: int | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        """The option the user chose; ``None`` when dismissed, timed out or aborted."""
        return None

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        timeout_ms: int | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        """Yes or no; ``False`` when dismissed, timed out or aborted."""
        return False

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        timeout_ms: int | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        """One line of text; ``None`` when dismissed, timed out or aborted."""
        return None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        """Multi-line text, starting from ``prefill``; ``None`` when dismissed."""
        return None

    def notify(self, message: str, kind: NotifyKind | None = None) -> None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        """Show ``text`` in the status line under ``key``; ``None`` removes it."""
        return None

    def set_widget(
        self, key: str, lines: Sequence[str] | None, placement: WidgetPlacement | None = None
    ) -> None:
        """Show lines of text near the editor under ``key``; ``None`` removes them."""
        return None

    def set_title(self, title: str) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None

    def get_editor_text(self) -> str:
        """The editor's text ("" where the mode cannot know it, as in RPC)."""
        return ""


class NoExtensionUI(ExtensionUI):
    """For modes without a user to ask (print, json): every dialog resolves with its default at once."""


__all__ = ["ExtensionUI", "NoExtensionUI", "NotifyKind", "UiMode", "WidgetPlacement"]
