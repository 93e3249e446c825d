"""User bash (``!cmd``, ``!!cmd``, RPC ``bash``): run in the session's directory and recorded.

A result that arrives while a run is active waits and is inserted only once the run has
settled, so it can never land between a tool call and its result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_ai import AbortController
from pi_coding_agent.core.messages import BashExecutionMessage
from pi_coding_agent.runtime.agent_session._events import BashExecutionUpdateEvent
from pi_coding_agent.runtime.agent_session._parts import SessionParts

if TYPE_CHECKING:
    from pi_coding_agent.core.bash import BashResult
    from pi_coding_agent.core.tools import ShellOperations


class UserBash(SessionParts):
    def _init_user_bash(self, bin_dir: str | None) -> None:
        self._pending_bash: list[BashExecutionMessage] = []
        self._bash_runs: set[AbortController] = set()
        self._bin_dir = bin_dir

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
        operations: ShellOperations | None = None,
    ) -> BashResult:
        """Run a user command (``!cmd``; ``!!cmd`` with ``exclude_from_context``) and record it.

        The ``shellCommandPrefix`` setting is prepended for running, not in the record. Every
        chunk of cleaned output goes to ``on_chunk`` and out as ``bash_execution_update``
        (carrying ``id``, the RPC request id).
        """
        from pi_coding_agent.core.bash import execute_bash
        from pi_coding_agent.core.tools import LocalShell, shell_env

        prefix = self.settings.shell_command_prefix
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
                self.session_manager.get_cwd(),
                signal=controller.signal,
                on_chunk=chunk,
                operations=operations or LocalShell(self.settings.shell_path),
                env=shell_env(self._bin_dir),
                keep_full_output=self.session_manager.get_session_file() is not None,
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
        if self._run_active:
            self._pending_bash.append(message)
        else:
            self._insert_bash(message)
        return message

    def _insert_bash(self, message: BashExecutionMessage) -> None:
        self.agent.state.messages.append(message)
        self.session_manager.append_message(message)

    def _flush_pending_bash(self) -> None:
        pending, self._pending_bash = self._pending_bash, []
        for message in pending:
            self._insert_bash(message)
