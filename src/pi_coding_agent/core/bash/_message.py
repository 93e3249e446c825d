"""From an executor result to the ``bashExecution`` message the session records."""

from __future__ import annotations

import time

from msgspec import UNSET

from pi_coding_agent.core.bash._executor import BashResult
from pi_coding_agent.core.messages import BashExecutionMessage


def bash_execution_message(
    command: str,
    result: BashResult,
    *,
    exclude_from_context: bool | None = None,
    timestamp: int | None = None,
) -> BashExecutionMessage:
    """The message for one run. ``command`` is what the user typed (without a shell prefix).

    ``exclude_from_context``: ``True`` for ``!!``; the interactive ``!`` passes ``False``
    (Pi writes the key then), RPC leaves it ``None`` unless the client gave it (key absent).
    """
    return BashExecutionMessage(
        command=command,
        output=result.output,
        exit_code=result.exit_code if result.exit_code is not None else UNSET,
        cancelled=result.cancelled,
        truncated=result.truncated,
        full_output_path=result.full_output_path if result.full_output_path is not None else UNSET,
        timestamp=int(time.time() * 1000) if timestamp is None else timestamp,
        exclude_from_context=exclude_from_context if exclude_from_context is not None else UNSET,
    )
