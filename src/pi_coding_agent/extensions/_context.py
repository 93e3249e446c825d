"""``ctx``: what every handler, tool and command gets besides its event.

Values are read when used, so a context kept by an extension follows the session (model,
idle state, signal). ``CommandContext`` adds the session controls only commands may use
(they could deadlock inside an event handler): wait for idle, new session, fork, tree
navigation, switching sessions, reload.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pi_ai import AbortSignal
from pi_coding_agent.extension_ui import ExtensionUI, NotifyKind, UiMode, WidgetPlacement

if TYPE_CHECKING:
    from pi_coding_agent.extensions._host import ExtensionHost


class Runner(Protocol):
    """What a context reads from its ``ExtensionRunner`` (a protocol: the runner creates
    contexts, and sibling modules may not import each other both ways)."""

    host: ExtensionHost | None
    ui: ExtensionUI
    mode: UiMode
    has_ui: bool
    cwd: str
    project_trusted: bool
    shutdown_requested: bool
    runtime: Any

    def emit_soon(self, event: Any) -> None: ...

    async def emit(self, event: Any) -> Any: ...

    async def shutdown(self, reason: str, target: str | None = None) -> None: ...

    async def emit_resources_discover(self, reason: str) -> dict[str, list[str]]: ...


class NoSessionError(RuntimeError):
    """Raised when a context is used without a session (before ``session_start``)."""


class ExtensionContext:
    def __init__(self, runner: Runner, *, system_prompt: Callable[[], str] | None = None) -> None:
        self._runner = runner
        self._system_prompt = system_prompt

    def _host(self) -> ExtensionHost:
        host = self._runner.host
        if host is None:
            raise NoSessionError("no session is bound yet (use the context from session_start on)")
        return host

    @property
    def ui(self) -> ExtensionUI:
        return self._runner.ui

    @property
    def mode(self) -> str:
        return self._runner.mode

    @property
    def has_ui(self) -> bool:
        return self._runner.has_ui

    @property
    def cwd(self) -> str:
        host = self._runner.host
        return host.cwd if host is not None else self._runner.cwd

    @property
    def session_manager(self) -> Any:
        return self._host().session_manager

    @property
    def model_registry(self) -> Any:
        return self._host().catalog

    @property
    def model(self) -> Any:
        return self._host().model

    @property
    def thinking_level(self) -> str:
        return self._host().thinking_level

    @property
    def signal(self) -> AbortSignal | None:
        host = self._runner.host
        return host.current_signal if host is not None else None

    def is_project_trusted(self) -> bool:
        return self._runner.project_trusted

    def is_idle(self) -> bool:
        return self._host().is_idle

    def has_pending_messages(self) -> bool:
        return self._host().pending_message_count > 0

    async def abort(self) -> None:
        await self._host().abort()

    def shutdown(self) -> None:
        """Ask for a graceful exit once the agent is idle (a no-op in print mode, as in Pi)."""
        self._runner.shutdown_requested = True

    def get_context_usage(self) -> Any:
        return self._host().get_context_usage()

    def compact(
        self,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> None:
        """Start a compaction without waiting for it."""
        import asyncio

        async def run() -> None:
            try:
                result = await self._host().compact(custom_instructions)
            except Exception as error:
                if on_error is not None:
                    on_error(error)
                return
            if on_complete is not None:
                on_complete(result)

        asyncio.get_running_loop().create_task(run())

    def get_system_prompt(self) -> str:
        if self._system_prompt is not None:
            return self._system_prompt()
        return self._host().system_prompt


class CommandContext(ExtensionContext):
    def get_system_prompt_options(self) -> dict[str, Any]:
        return self._host().system_prompt_options()

    async def wait_for_idle(self) -> None:
        await self._host().wait_for_idle()

    def _runtime(self) -> Any:
        runtime = self._runner.runtime
        if runtime is None:
            raise NoSessionError("this mode cannot replace the session")
        return runtime

    async def new_session(self, parent_session: str | None = None) -> Any:
        return await self._runtime().new_session(parent_session=parent_session)

    async def fork(self, entry_id: str, position: str = "before") -> Any:
        return await self._runtime().fork(entry_id, position)

    async def switch_session(self, session_path: str) -> Any:
        return await self._runtime().switch_session(session_path)

    async def navigate_tree(self, target_id: str, **options: Any) -> Any:
        return await self._runtime().session.navigate_tree(target_id, **options)

    async def reload(self) -> None:
        """Pi re-imports every extension; ours keeps the loaded modules and restarts their session.

        ``session_shutdown`` (reason ``reload``), then ``session_start`` and
        ``resources_discover`` with reason ``reload``, as Pi emits them.
        """
        from pi_coding_agent.extensions._events import SessionStartEvent

        await self._runner.shutdown("reload")
        await self._runner.emit(SessionStartEvent("session_start", "reload"))
        await self._runner.emit_resources_discover("reload")


class PromptTrackingUI:
    """The mode's UI with ``ui_prompt_start`` / ``ui_prompt_end`` around each dialog.

    Overlapping dialogs make one waiting span (Pi coalesces them too); the events are sent
    without being awaited.
    """

    def __init__(self, inner: ExtensionUI, runner: Runner) -> None:
        self._inner = inner
        self._runner = runner
        self._open = 0

    def _start(self, kind: str, title: str | None) -> None:
        from pi_coding_agent.extensions._events import UiPromptEvent

        self._open += 1
        if self._open == 1:
            self._runner.emit_soon(UiPromptEvent("ui_prompt_start", kind, title))

    def _end(self, kind: str, title: str | None) -> None:
        from pi_coding_agent.extensions._events import UiPromptEvent

        self._open -= 1
        if self._open == 0:
            self._runner.emit_soon(UiPromptEvent("ui_prompt_end", kind, title))

    async def select(self, title: str, options: Sequence[str], **kwargs: Any) -> str | None:
        self._start("select", title)
        try:
            return await self._inner.select(title, options, **kwargs)
        finally:
            self._end("select", title)

    async def confirm(self, title: str, message: str, **kwargs: Any) -> bool:
        self._start("confirm", title)
        try:
            return await self._inner.confirm(title, message, **kwargs)
        finally:
            self._end("confirm", title)

    async def input(self, title: str, placeholder: str | None = None, **kwargs: Any) -> str | None:
        self._start("input", title)
        try:
            return await self._inner.input(title, placeholder, **kwargs)
        finally:
            self._end("input", title)

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        self._start("editor", title)
        try:
            return await self._inner.editor(title, prefill)
        finally:
            self._end("editor", title)

    def notify(self, message: str, kind: NotifyKind | None = None) -> None:
        self._inner.notify(message, kind)

    def set_status(self, key: str, text: str | None) -> None:
        self._inner.set_status(key, text)

    def set_widget(self, key: str, lines: Sequence[str] | None, placement: WidgetPlacement | None = None) -> None:
        self._inner.set_widget(key, lines, placement)

    def set_title(self, title: str) -> None:
        self._inner.set_title(title)

    def set_editor_text(self, text: str) -> None:
        self._inner.set_editor_text(text)

    def get_editor_text(self) -> str:
        return self._inner.get_editor_text()
