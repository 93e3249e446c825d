"""``ctx``: what every handler, tool and command gets besides its event.

Values are read when used, so a context kept by an extension follows the session (model,
idle state, signal). ``CommandContext`` adds the session controls only commands may use
(they could deadlock inside an event handler): wait for idle, new session, fork, tree
navigation, switching sessions, reload.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pi_ai import AbortSignal
from pi_coding_agent.customize.extensions.ui import ExtensionUI, NotifyKind, UiMode, WidgetPlacement

if TYPE_CHECKING:
    from pi_coding_agent.customize.extensions._host import ExtensionHost


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

    @property
    def on_session_replaced(self) -> Callable[[str, Any], None] | None: ...

    @property
    def on_shutdown_request(self) -> Callable[[], None] | None: ...

    @property
    def on_reload(self) -> Callable[[], Awaitable[None]] | None: ...


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, awaited when it is a coroutine (``_runner.call_handler``, which imports this module)."""
    import inspect

    result = fn(*args)
    return await result if inspect.isawaitable(result) else result


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
        if self._runner.on_shutdown_request is not None:
            self._runner.on_shutdown_request()

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

    async def new_session(
        self,
        parent_session: str | None = None,
        *,
        setup: Callable[[Any], Any] | None = None,
        with_session: Callable[[ReplacedSessionContext], Any] | None = None,
    ) -> Any:
        """A fresh session. ``setup(session_manager)`` fills it first (its context is rebuilt
        from what it wrote); ``with_session(ctx)`` then runs against the new session, once it
        got ``session_start`` and the UI shows it (Pi's ``newSession({setup, withSession})``)."""

        async def fill(manager: Any) -> None:
            if setup is not None:
                await _call(setup, manager)

        result = await self._runtime().new_session(
            parent_session=parent_session, setup=fill if setup else None
        )
        return await self._finish("new", result, with_session)

    async def fork(
        self,
        entry_id: str,
        position: str = "before",
        *,
        with_session: Callable[[ReplacedSessionContext], Any] | None = None,
    ) -> Any:
        """A new session from the branch before (or ``at``) ``entry_id``; ``with_session`` as for ``new_session``."""
        result = await self._runtime().fork(entry_id, position)
        return await self._finish("fork", result, with_session)

    async def switch_session(
        self, session_path: str, *, with_session: Callable[[ReplacedSessionContext], Any] | None = None
    ) -> Any:
        """Resume the session stored at ``session_path``; ``with_session`` as for ``new_session``."""
        result = await self._runtime().switch_session(session_path)
        return await self._finish("resume", result, with_session)

    async def navigate_tree(self, target_id: str, **options: Any) -> Any:
        result = await self._runtime().session.navigate_tree(target_id, **options)
        if not getattr(result, "cancelled", False) and self._runner.on_session_replaced is not None:
            self._runner.on_session_replaced("tree", result)
        return result

    async def _finish(
        self, action: str, result: Any, with_session: Callable[[ReplacedSessionContext], Any] | None
    ) -> Any:
        """The mode shows the new session, then ``with_session`` runs (Pi's ``finishSessionReplacement``)."""
        if getattr(result, "cancelled", False):
            return result
        if self._runner.on_session_replaced is not None:
            self._runner.on_session_replaced(action, result)
        if with_session is not None:
            await _call(with_session, ReplacedSessionContext(self._runner))
        return result

    async def reload(self) -> None:
        """``/reload``'s flow where the mode has one (the interactive UI: settings, keys,
        resources and a rebuilt session); elsewhere the loaded modules restart their session.

        Either way ``session_shutdown`` (reason ``reload``), then ``session_start`` and
        ``resources_discover`` with reason ``reload``, as Pi emits them; Pi re-imports every
        extension, ours keeps the loaded modules.
        """
        from pi_coding_agent.customize.extensions._events import SessionStartEvent

        if self._runner.on_reload is not None:
            await self._runner.on_reload()
            return
        await self._runner.shutdown("reload")
        await self._runner.emit(SessionStartEvent("session_start", "reload"))
        await self._runner.emit_resources_discover("reload")


class ReplacedSessionContext(CommandContext):
    """What ``with_session`` gets: a command context of the new session, with its own
    ``send_message`` / ``send_user_message`` (Pi's ``ReplacedSessionContext``)."""

    async def send_message(
        self,
        custom_type: str,
        content: Any,
        *,
        display: bool = True,
        details: Any = None,
        deliver_as: str | None = None,
        trigger_turn: bool | None = None,
    ) -> None:
        """``pi.send_message`` into the new session."""
        await send_custom_message(self._host(), custom_type, content, display=display, details=details,
                                  deliver_as=deliver_as, trigger_turn=trigger_turn)  # fmt: skip

    async def send_user_message(
        self, content: Any, *, deliver_as: str | None = None, expand_prompt_templates: bool = False
    ) -> None:
        """``pi.send_user_message`` into the new session."""
        await send_user_message(self._host(), content, deliver_as=deliver_as, expand=expand_prompt_templates)


async def send_custom_message(
    host: ExtensionHost,
    custom_type: str,
    content: Any,
    *,
    display: bool,
    details: Any,
    deliver_as: str | None,
    trigger_turn: bool | None,
) -> None:
    """A custom message (role ``custom``) delivered by the session (``pi.send_message``)."""
    import time

    from msgspec import UNSET

    from pi_coding_agent.core.messages import CustomRoleMessage

    message = CustomRoleMessage(
        custom_type=custom_type,
        content=content,
        display=display,
        details=UNSET if details is None else details,
        timestamp=int(time.time() * 1000),
    )
    await host.send_custom_message(message, deliver_as=deliver_as, trigger_turn=trigger_turn)


async def send_user_message(
    host: ExtensionHost, content: Any, *, deliver_as: str | None, expand: bool
) -> None:
    """A user message as if typed (``pi.send_user_message``): text, or text and image blocks."""
    from pi_ai import ImageContent, content_text

    if isinstance(content, str):
        text, images = content, None
    else:
        text = content_text(content)
        images = [block for block in content if isinstance(block, ImageContent)] or None
    await host.send_user_message(text, images, deliver_as=deliver_as, expand=expand)


class PromptTrackingUI:
    """The mode's UI with ``ui_prompt_start`` / ``ui_prompt_end`` around each dialog.

    Overlapping dialogs make one waiting span (Pi coalesces them too); the events are sent
    without being awaited.
    """

    def __init__(self, inner: ExtensionUI, runner: Runner) -> None:
        self._inner = inner
        self._runner = runner
        self._open = 0

    def __getattr__(self, name: str) -> Any:
        """What a mode offers beyond ``ExtensionUI`` (the interactive UI's ``custom``,
        ``set_footer``, ``set_header``, ``set_editor_component``...)."""
        return getattr(self._inner, name)

    def _start(self, kind: str, title: str | None) -> None:
        from pi_coding_agent.customize.extensions._events import UiPromptEvent

        self._open += 1
        if self._open == 1:
            self._runner.emit_soon(UiPromptEvent("ui_prompt_start", kind, title))

    def _end(self, kind: str, title: str | None) -> None:
        from pi_coding_agent.customize.extensions._events import UiPromptEvent

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

    def set_widget(
        self, key: str, lines: Sequence[str] | None, placement: WidgetPlacement | None = None
    ) -> None:
        self._inner.set_widget(key, lines, placement)

    def set_title(self, title: str) -> None:
        self._inner.set_title(title)

    def set_editor_text(self, text: str) -> None:
        self._inner.set_editor_text(text)

    def get_editor_text(self) -> str:
        return self._inner.get_editor_text()
