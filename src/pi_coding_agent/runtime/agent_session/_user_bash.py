"""User bash (``!cmd``, ``!!cmd``, RPC ``bash``): run in the session's directory and recorded.

A result that arrives while a run is active waits and is inserted only once the run has
settled, so it can never land between a tool call and its result. ``user_bash`` handlers of
extensions may answer a command themselves or give the shell to run it with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_agent import Agent
from pi_ai import AbortController
from pi_coding_agent.core.messages import BashExecutionMessage
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.runtime.agent_session._events import AgentSessionEvent, BashExecutionUpdateEvent
from pi_coding_agent.runtime.agent_session._hooks import result_field

if TYPE_CHECKING:
    from pi_coding_agent.core.bash import BashResult
    from pi_coding_agent.core.tools import BashOperations


class BashListener(Protocol):
    async def user_bash(self, command: str, exclude_from_context: bool) -> Any:
        """The first ``user_bash`` handler's answer (``result`` or ``operations``); ``None`` without one."""


class UserBash:
    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings: Settings,
        bin_dir: str | None,
        is_running: Callable[[], bool],
        emit: Callable[[AgentSessionEvent], None],
        extensions: BashListener,
    ) -> None:
        self._agent = agent
        self._manager = session_manager
        self._settings = settings
        self._bin_dir = bin_dir
        self._is_running = is_running
        self._emit = emit
        self._extensions = extensions
        self._pending_bash: list[BashExecutionMessage] = []
        self._bash_runs: set[AbortController] = set()

    @property
    def is_bash_running(self) -> bool:
        return bool(self._bash_runs)

    @property
    def has_pending_bash_messages(self) -> bool:
        return bool(self._pending_bash)

    async def execute_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool | None = None,
        on_chunk: Callable[[str], None] | None = None,
        id: str | None = None,
        operations: BashOperations | None = None,
    ) -> BashResult:
        """Run a user command (``!cmd``; ``!!cmd`` with ``exclude_from_context``) and record it.

        The ``shellCommandPrefix`` setting is prepended for running, not in the record. Every
        chunk of cleaned output goes to ``on_chunk`` and out as ``bash_execution_update``
        (carrying ``id``, the RPC request id).
        """
        answer = await self._extensions.user_bash(command, bool(exclude_from_context))
        given = result_field(answer, "result")
        if given is not None:
            return self._given_result(command, given, exclude_from_context)
        handed = result_field(answer, "operations")
        return await self._run(
            command, exclude_from_context, on_chunk, id, operations if handed is None else handed
        )

    def _given_result(self, command: str, given: Any, exclude_from_context: bool | None) -> BashResult:
        """A result a ``user_bash`` handler gave, recorded as if the command had run."""
        from pi_coding_agent.core.bash import BashResult

        result = BashResult(
            output=str(result_field(given, "output") or ""),
            exit_code=result_field(given, "exit_code", 0),
            cancelled=bool(result_field(given, "cancelled")),
            truncated=bool(result_field(given, "truncated")),
            full_output_path=result_field(given, "full_output_path"),
        )
        self.record_bash_result(command, result, exclude_from_context=exclude_from_context)
        return result

    async def _run(
        self,
        command: str,
        exclude_from_context: bool | None,
        on_chunk: Callable[[str], None] | None,
        id: str | None,
        operations: BashOperations | None,
    ) -> BashResult:
        from pi_coding_agent.core.bash import execute_bash
        from pi_coding_agent.core.tools import LocalShell, shell_env

        prefix = self._settings.shell_command_prefix
        resolved = f"{prefix}\n{command}" if prefix else command
        controller = AbortController()
        self._bash_runs.add(controller)

        def chunk(delta: str) -> None:
            if on_chunk is not None:
                on_chunk(delta)
            self._emit(BashExecutionUpdateEvent(delta=delta, id=id))

        try:
            result = await execute_bash(
                resolved,
                self._manager.get_cwd(),
                signal=controller.signal,
                on_chunk=chunk,
                operations=operations or LocalShell(self._settings.shell_path),
                env=shell_env(self._bin_dir),
                keep_full_output=self._manager.get_session_file() is not None,
            )
        finally:
            self._bash_runs.discard(controller)
        self.record_bash_result(command, result, exclude_from_context=exclude_from_context)
        return result

    def abort_bash(self) -> None:
        """Cancel every running user command (their process groups are killed)."""
        for controller in list(self._bash_runs):
            controller.abort()

    def record_bash_result(
        self, command: str, result: BashResult, *, exclude_from_context: bool | None = None
    ) -> BashExecutionMessage:
        """Add a user bash run to the conversation: now when idle, after the run otherwise."""
        from pi_coding_agent.core.bash import bash_execution_message

        message = bash_execution_message(command, result, exclude_from_context=exclude_from_context)
        if self._is_running():
            self._pending_bash.append(message)
        else:
            self._insert_bash(message)
        return message

    def _insert_bash(self, message: BashExecutionMessage) -> None:
        self._agent.state.messages.append(message)
        self._manager.append_message(message)

    def flush_pending(self) -> None:
        """The run settled: insert the results that waited for it."""
        pending, self._pending_bash = self._pending_bash, []
        for message in pending:
            self._insert_bash(message)
