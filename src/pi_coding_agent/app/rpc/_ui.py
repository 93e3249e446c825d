"""``ExtensionUI`` over RPC: ``extension_ui_request`` out, ``extension_ui_response`` back in.

Every request carries a fresh uuid ``id``. Dialogs (``select``, ``confirm``, ``input``,
``editor``) wait for the response with that ``id``; the client answers ``{"value": ...}``,
``{"confirmed": ...}`` or ``{"cancelled": true}``. A dialog given a timeout or an abort
signal resolves with its default when either comes first, and a late response is then
ignored. Fire-and-forget requests expect no response. Field names and defaults are Pi
0.85's (rpc.md, "Extension UI Protocol"); absent optional fields are left out.

What needs a terminal is accepted and does nothing, sending no request, as in Pi 1.6's RPC
mode: the working message, indicator and visibility, the hidden-thinking label, raw terminal
input, autocomplete providers, footer, header and editor components, widget factories (only
lines are sent), ``custom`` (``None``), themes (none listed, switching refused) and the tools'
expanded state (always ``False``). ``paste_to_editor`` sends ``set_editor_text``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from pi_ai import AbortSignal
from pi_coding_agent.customize.extensions.ui import NotifyKind, WidgetPlacement

Output = Callable[[dict[str, Any]], None]


def _value(response: dict[str, Any]) -> str | None:
    if response.get("cancelled") is True:
        return None
    value = response.get("value")
    return value if isinstance(value, str) else None


def _confirmed(response: dict[str, Any]) -> bool:
    if response.get("cancelled") is True:
        return False
    return response.get("confirmed") is True


class RpcExtensionUI:
    def __init__(self, output: Output) -> None:
        self._output = output
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def resolve(self, response: dict[str, Any]) -> None:
        """An ``extension_ui_response`` arrived; unknown or late ids are ignored."""
        request_id = response.get("id")
        waiter = self._pending.pop(request_id, None) if isinstance(request_id, str) else None
        if waiter is not None and not waiter.done():
            waiter.set_result(response)

    @property
    def pending_requests(self) -> int:
        return len(self._pending)

    def _send(self, method: str, **fields: Any) -> str:
        request_id = str(uuid.uuid4())
        request = {"type": "extension_ui_request", "id": request_id, "method": method}
        request.update((key, value) for key, value in fields.items() if value is not None)
        self._output(request)
        return request_id

    async def _dialog(
        self, method: str, timeout_ms: int | None, signal: AbortSignal | None, **fields: Any
    ) -> dict[str, Any] | None:
        """The client's response, or ``None`` on timeout or abort."""
        if signal is not None and signal.aborted:
            return None
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        request_id = self._send(method, **fields, timeout=timeout_ms)
        self._pending[request_id] = waiter
        waits: list[asyncio.Future[Any]] = [waiter]
        aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
        if aborted is not None:
            waits.append(aborted)
        try:
            done, _ = await asyncio.wait(
                waits, timeout=timeout_ms / 1000 if timeout_ms else None, return_when=asyncio.FIRST_COMPLETED
            )
            return waiter.result() if waiter in done else None
        finally:
            self._pending.pop(request_id, None)
            if aborted is not None:
                aborted.cancel()

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        timeout_ms: int | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        response = await self._dialog("select", timeout_ms, signal, title=title, options=list(options))
        return None if response is None else _value(response)

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        timeout_ms: int | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        response = await self._dialog("confirm", timeout_ms, signal, title=title, message=message)
        return False if response is None else _confirmed(response)

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        timeout_ms: int | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        response = await self._dialog("input", timeout_ms, signal, title=title, placeholder=placeholder)
        return None if response is None else _value(response)

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        response = await self._dialog("editor", None, None, title=title, prefill=prefill)
        return None if response is None else _value(response)

    def notify(self, message: str, kind: NotifyKind | None = None) -> None:
        self._send("notify", message=message, notifyType=kind)

    def set_status(self, key: str, text: str | None) -> None:
        self._send("setStatus", statusKey=key, statusText=text)

    def set_widget(
        self,
        key: str,
        lines: Sequence[str] | Callable[..., Any] | None,
        placement: WidgetPlacement | None = None,
    ) -> None:
        if callable(lines):
            return  # a component factory needs a terminal
        self._send(
            "setWidget",
            widgetKey=key,
            widgetLines=None if lines is None else list(lines),
            widgetPlacement=placement,
        )

    def set_title(self, title: str) -> None:
        self._send("setTitle", title=title)

    def set_editor_text(self, text: str) -> None:
        self._send("set_editor_text", text=text)

    def get_editor_text(self) -> str:
        return ""

    def paste_to_editor(self, text: str) -> None:
        self.set_editor_text(text)

    async def custom(self, factory: Callable[..., Any], **options: Any) -> None:
        return None

    def on_terminal_input(self, handler: Callable[[str], bool]) -> Callable[[], None]:
        return lambda: None

    def set_working_message(self, message: str | None) -> None:
        return None

    def set_working_visible(self, visible: bool) -> None:
        return None

    def set_working_indicator(self, options: Any = None) -> None:
        return None

    def set_hidden_thinking_label(self, label: str | None) -> None:
        return None

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        return None

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        return None

    def add_autocomplete_provider(self, provider: Callable[..., Any]) -> None:
        return None

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        return None

    def get_editor_component(self) -> None:
        return None

    def get_all_themes(self) -> list[Any]:
        return []

    def get_theme(self, name: str) -> None:
        return None

    def set_theme(self, theme: Any) -> dict[str, Any]:
        return {"success": False, "error": "Theme switching not supported in RPC mode"}

    def get_tools_expanded(self) -> bool:
        return False

    def set_tools_expanded(self, expanded: bool) -> None:
        return None
