"""User bash: ``!cmd`` / ``!!cmd`` typed by the user, run outside the model's tool protocol.

``parse_bash_input`` recognizes the input, ``execute_bash`` runs it (cleaned output,
bounded memory, cancel kills the process group), ``bash_execution_message`` turns the
result into the ``bashExecution`` message that the session stores and, unless ``!!``,
shows the model. Queueing a result that finishes while the agent streams is the
session's job.
"""

from pi_coding_agent.core.bash._executor import BashResult, execute_bash
from pi_coding_agent.core.bash._message import bash_execution_message
from pi_coding_agent.core.bash._parse import ALREADY_RUNNING_WARNING, BashInput, parse_bash_input
from pi_coding_agent.core.bash._sanitize import StreamSanitizer, sanitize, sanitize_binary_output, strip_ansi

__all__ = [
    "ALREADY_RUNNING_WARNING",
    "BashInput",
    "BashResult",
    "StreamSanitizer",
    "bash_execution_message",
    "execute_bash",
    "parse_bash_input",
    "sanitize",
    "sanitize_binary_output",
    "strip_ansi",
]
