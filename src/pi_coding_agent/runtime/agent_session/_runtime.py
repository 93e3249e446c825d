"""Replacing the active session: new, resume another file, fork, clone (Pi's ``AgentSessionRuntime``).

A replacement stops the current session (its aborted run is still recorded in its own
file), disposes it, and builds the next one with the factory the runtime was given (the
CLI's: same model choice, tools and prompt rules, bound to the new session's directory).
``runtime.session`` is then the new session.

Listeners added with ``runtime.subscribe`` follow every replacement, so a mode subscribes
once; listeners added to one ``AgentSession`` stay with it.

``fork(entry_id)`` starts a new file holding the branch up to just before that user
message (its text is returned to be edited); ``clone()`` copies the branch up to the leaf.
A new session and a fork record the file they came from as ``parentSession``.
``import_from_jsonl(path)`` copies a session file from elsewhere into the session folder
(``name-1.jsonl`` and so on when the name is taken) and resumes the copy (Pi's ``/import``).
A session whose stored working directory is gone is refused with ``MissingSessionCwdError``
unless a ``cwd_override`` says where to continue it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pi_ai import UserMessage, content_text
from pi_coding_agent.core.paths import resolve_path
from pi_coding_agent.core.session import SessionManager, SessionMessageEntry, read_header
from pi_coding_agent.customize.extensions import (
    ExtensionError,
    SessionBeforeForkEvent,
    SessionBeforeSwitchEvent,
    SessionStartEvent,
)
from pi_coding_agent.customize.extensions.ui import ExtensionUI, NoExtensionUI, UiMode
from pi_coding_agent.runtime.agent_session._hooks import result_field
from pi_coding_agent.runtime.agent_session._listeners import AgentSessionEventListener, Listeners
from pi_coding_agent.runtime.agent_session._parts import SessionError
from pi_coding_agent.runtime.agent_session._session import AgentSession

SessionFactory = Callable[[SessionManager], AgentSession]
"""Builds the session for a manager (the manager's ``get_cwd()`` is the working directory)."""
SessionSetup = Callable[[SessionManager], Awaitable[None]]
"""Fills a new session's manager before it is used (``new_session(setup=...)``)."""

ForkPosition = Literal["before", "at"]

INVALID_FORK_ENTRY = "Invalid entry ID for forking"
NOT_SAVED_YET = "This session has not been saved yet. Send a message before cloning or forking it."
"""Pi 1.6's wording (0.85: "Wait for the first assistant response before cloning or forking it.")."""


class MissingSessionCwdError(SessionError):
    """The session's stored working directory does not exist (pass ``cwd_override``)."""

    def __init__(self, session_cwd: str, session_file: str | None) -> None:
        where = f" (session file {session_file})" if session_file else ""
        super().__init__(f"Stored session working directory does not exist: {session_cwd}{where}")
        self.session_cwd = session_cwd
        self.session_file = session_file


class SessionImportFileNotFoundError(SessionError):
    def __init__(self, path: str) -> None:
        super().__init__(f"File not found: {path}")
        self.path = path


@dataclass(frozen=True)
class ReplaceResult:
    cancelled: bool
    """``True`` when an extension vetoed the replacement (``session_before_switch`` / ``_fork``)."""
    selected_text: str | None = None
    """For ``fork``: the text of the user message the fork starts before."""


class AgentSessionRuntime:
    def __init__(self, session: AgentSession, create: SessionFactory) -> None:
        self._session = session
        self._create = create
        self._listeners = Listeners()
        self._detach = session.subscribe(self._listeners.emit)
        self.ui: ExtensionUI = NoExtensionUI()
        """How extensions reach the user in the current mode (set by the mode with ``bind_ui``)."""
        self.ui_mode: UiMode = "print"
        self.before_session_start: Callable[[], None] | None = None
        """Runs once the old session is gone, before the new one starts (the interactive UI
        drops what the old session's extensions showed; Pi's ``setBeforeSessionInvalidate``)."""
        self._reason = "new"
        """Why the session is being replaced (``session_shutdown`` / ``session_start`` reason)."""
        self.enter_directory: Callable[[str], Awaitable[None]] | None = None
        """Runs before each replacement session is built, with its working directory, once the
        old session is gone (the CLI's: that project's trust, asked in the terminal UI when
        it is a new project, then its settings and resources; Pi's ``createRuntime``)."""

    def bind_ui(self, ui: ExtensionUI, mode: UiMode) -> None:
        """The mode's UI, also for the extensions (``ctx.ui``; ``ctx.has_ui`` in rpc and tui)."""
        self.ui = ui
        self.ui_mode = mode
        self._session.ui, self._session.ui_mode = ui, mode
        runner = self._session.extensions
        if runner is not None:
            runner.bind_ui(ui, mode, has_ui=mode in ("rpc", "tui"))
            runner.runtime = self

    def on_extension_error(self, listener: Callable[[ExtensionError], None]) -> None:
        """Receive every extension error (the mode shows them: RPC writes ``extension_error``)."""
        runner = self._session.extensions
        if runner is not None:
            runner.on_error(listener)

    async def start_extensions(self, reason: str = "startup", previous_file: str | None = None) -> None:
        """``session_start`` (and ``resources_discover``) for the current session's extensions."""
        runner = self._session.extensions
        if runner is None:
            return
        await runner.emit(SessionStartEvent("session_start", reason, previous_file))
        await runner.emit_resources_discover("reload" if reason == "reload" else "startup")

    async def _may_replace(self, event: Any) -> bool:
        """``False`` when an extension cancels the replacement (``session_before_*``)."""
        runner = self._session.extensions
        if runner is None or not runner.has_handlers(event.type):
            return True
        answer = await runner.emit(event)
        return not result_field(answer, "cancel")

    @property
    def session(self) -> AgentSession:
        return self._session

    def subscribe(self, listener: AgentSessionEventListener) -> Callable[[], None]:
        """Receive the events of the current session, whichever it is after replacements."""
        return self._listeners.add(listener)

    # ------------------------------------------------------------------ replacements

    async def new_session(
        self, parent_session: str | None = None, *, setup: SessionSetup | None = None
    ) -> ReplaceResult:
        """A fresh session; ``setup`` may write entries into it first (the context is rebuilt
        from them), as an extension's ``newSession({setup})`` does in Pi."""
        if not await self._may_replace(SessionBeforeSwitchEvent("session_before_switch", "new")):
            return ReplaceResult(cancelled=True)
        self._reason = "new"
        current = self._session.session_manager
        if current.is_persisted():
            manager = SessionManager.create(
                current.get_cwd(), current.get_session_dir(), parent_session=parent_session
            )
        else:
            manager = SessionManager.in_memory(current.get_cwd(), parent_session=parent_session)
        await self._replace(manager, setup=setup)
        return ReplaceResult(cancelled=False)

    async def switch_session(self, path: str, cwd_override: str | None = None) -> ReplaceResult:
        """Resume the session stored in ``path`` (in ``cwd_override`` instead of its own directory)."""
        stored_cwd = cwd_override or _stored_cwd(path)
        if stored_cwd is not None and not _is_dir(stored_cwd):  # refused before anything is stopped
            raise MissingSessionCwdError(stored_cwd, resolve_path(path))
        if not await self._may_replace(SessionBeforeSwitchEvent("session_before_switch", "resume", path)):
            return ReplaceResult(cancelled=True)
        self._reason = "resume"
        current = self._session.session_manager
        same_file = _same_file(path, current.get_session_file())
        if same_file:
            await self._teardown()
            current.close()
        manager = SessionManager.open(path, None, cwd_override)
        await self._replace(manager, torn_down=same_file)
        return ReplaceResult(cancelled=False)

    async def import_from_jsonl(self, input_path: str, cwd_override: str | None = None) -> ReplaceResult:
        """Copy a session file into the session folder and resume the copy."""
        destination = _copy_into(self._session.session_manager.get_session_dir(), resolve_path(input_path))
        return await self.switch_session(destination, cwd_override)

    async def fork(self, entry_id: str, position: ForkPosition = "before") -> ReplaceResult:
        """A new session from the branch ending before (or ``at``) ``entry_id``."""
        manager = self._session.session_manager
        selected = manager.get_entry(entry_id)
        if selected is None:
            raise SessionError(INVALID_FORK_ENTRY)
        text: str | None = None
        if position == "at":
            leaf: str | None = selected.id
        else:
            if not isinstance(selected, SessionMessageEntry) or not isinstance(selected.message, UserMessage):
                raise SessionError(INVALID_FORK_ENTRY)
            leaf = selected.parent_id
            text = content_text(selected.message.content, "")
        previous_file = manager.get_session_file()
        if manager.is_persisted() and leaf is not None and not _exists(previous_file):
            raise SessionError(NOT_SAVED_YET)
        if not await self._may_replace(SessionBeforeForkEvent("session_before_fork", entry_id, position)):
            return ReplaceResult(cancelled=True)
        self._reason = "fork"
        await self._teardown()
        if leaf is None:
            if manager.is_persisted():
                manager.close()
                manager = SessionManager.create(
                    manager.get_cwd(), manager.get_session_dir(), parent_session=previous_file
                )
            else:
                manager.new_session(parent_session=previous_file)
        else:
            manager.create_branched_session(leaf)
        await self._install(await self._build(manager), previous_file)
        return ReplaceResult(cancelled=False, selected_text=text)

    async def clone(self) -> ReplaceResult:
        """A new session holding the current branch, up to and including the leaf."""
        leaf = self._session.session_manager.get_leaf_id()
        if not leaf:
            raise SessionError("Cannot clone session: no current entry selected")
        result = await self.fork(leaf, "at")
        return ReplaceResult(cancelled=result.cancelled)

    async def reload(self) -> ReplaceResult:
        """A fresh session on the same file, built by the factory again (``/reload``: new
        resources, prompts and settings take effect; the conversation stays).

        The tools stay as they were, plus those ``defaultTools`` newly names (Pi 1.6: tools it no
        longer names stay on, tools turned off stay off) and every extension tool."""
        self._reason = "reload"
        old = self._session
        active, previous_defaults = old.active_tool_names(), set(old.default_tool_names)

        def carry_tools(session: AgentSession) -> None:
            added = [name for name in session.default_tool_names if name not in previous_defaults]
            session.activate_after_reload([*active, *added])

        await self._replace(old.session_manager, same_directory=True, prepare=carry_tools)
        return ReplaceResult(cancelled=False)

    async def dispose(self) -> None:
        self._reason = "quit"
        await self._teardown()
        self._session.session_manager.close()

    # ------------------------------------------------------------------ helpers

    async def _teardown(self) -> None:
        session = self._session
        await session.abort()
        if session.extensions is not None:
            await session.extensions.shutdown(self._reason)
        self._detach()
        session.dispose()

    async def _replace(
        self,
        manager: SessionManager,
        *,
        torn_down: bool = False,
        setup: SessionSetup | None = None,
        same_directory: bool = False,
        prepare: Callable[[AgentSession], None] | None = None,
    ) -> None:
        """``same_directory``: the folder's trust and resources stay as they are (``/reload``
        read them itself; Pi's reload keeps the run's trust decision). ``prepare`` adjusts the new
        session before it is installed (``/reload`` carries the tools over)."""
        old = self._session.session_manager
        previous_file = old.get_session_file()
        if not torn_down:
            await self._teardown()
            if old is not manager:
                old.close()
        session = self._create(manager) if same_directory else await self._build(manager)
        if prepare is not None:
            prepare(session)
        await self._install(session, previous_file, setup)

    async def _build(self, manager: SessionManager) -> AgentSession:
        if self.enter_directory is not None:
            await self.enter_directory(manager.get_cwd())
        return self._create(manager)

    async def _install(self, session: AgentSession, previous_file: str | None, setup: SessionSetup | None = None) -> None:
        """The new session becomes current; ``setup`` fills it (the agent's context is rebuilt
        from what it wrote); then its extensions (the same runner, re-bound) get
        ``session_start`` with the reason and the previous file (Pi's order)."""
        self._session = session
        self._detach = session.subscribe(self._listeners.emit)
        if setup is not None:
            await setup(session.session_manager)
            session.agent.state.messages = session.session_manager.build_session_context().messages
        if self.before_session_start is not None:
            self.before_session_start()
        self.bind_ui(self.ui, self.ui_mode)
        if session.extensions is not None:
            await self.start_extensions(self._reason, previous_file)


def _copy_into(folder: str, source: str) -> str:
    """Copy ``source`` into ``folder`` under its own name, or ``stem-1.ext``, ``stem-2.ext``,
    ... while that is taken; a file already in the folder stays where it is. The copy's path."""
    if not os.path.exists(source):
        raise SessionImportFileNotFoundError(source)
    os.makedirs(folder, exist_ok=True)
    wanted = os.path.join(folder, os.path.basename(source))
    if os.path.abspath(wanted) == source:
        return source
    stem, ext = os.path.splitext(wanted)
    candidate, suffix = wanted, 1
    while os.path.exists(candidate):
        candidate, suffix = f"{stem}-{suffix}{ext}", suffix + 1
    with open(source, "rb") as original, open(candidate, "xb") as copy:
        shutil.copyfileobj(original, copy)
    return candidate


def _stored_cwd(path: str) -> str | None:
    """The working directory a session file's header names (``None``: a new file, or none named)."""
    resolved = resolve_path(path)
    header = read_header(resolved) if os.path.exists(resolved) else None
    cwd = header.get("cwd") if header is not None else None
    return cwd if isinstance(cwd, str) and cwd else None


def _same_file(path: str, current: str | None) -> bool:
    return current is not None and os.path.abspath(path) == current


def _exists(path: str | None) -> bool:
    return path is not None and os.path.exists(path)


def _is_dir(path: str) -> bool:
    return os.path.isdir(path)
