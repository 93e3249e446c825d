"""The coding agent's built-in tools: ``read``, ``bash``, ``edit``, ``write``, ``grep``, ``find``, ``ls``.

Each is a ``pi_agent.AgentTool`` bound to a working directory at construction. Names,
parameters, limits, output formats and error texts follow Pi 0.85 (the model reads them);
see ``docs/tools/`` for where and why this implementation differs.
"""

from pi_coding_agent.tools._bash import BashTool
from pi_coding_agent.tools._common import ToolError
from pi_coding_agent.tools._edit import EditTool
from pi_coding_agent.tools._find import FindTool
from pi_coding_agent.tools._grep import GrepTool
from pi_coding_agent.tools._ls import LsTool
from pi_coding_agent.tools._read import ReadTool
from pi_coding_agent.tools._registry import (
    ALL_TOOL_NAMES,
    DEFAULT_TOOL_NAMES,
    READ_ONLY_TOOL_NAMES,
    ToolOptions,
    UnknownToolError,
    create_tool,
    create_tools,
    parse_tool_names,
)
from pi_coding_agent.tools._shell import (
    LocalShell,
    ShellAbortedError,
    ShellOperations,
    ShellTimeoutError,
    kill_process_group,
    shell_env,
)
from pi_coding_agent.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)
from pi_coding_agent.tools._write import WriteTool

__all__ = [
    "ALL_TOOL_NAMES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_TOOL_NAMES",
    "GREP_MAX_LINE_LENGTH",
    "READ_ONLY_TOOL_NAMES",
    "BashTool",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LocalShell",
    "LsTool",
    "ReadTool",
    "ShellAbortedError",
    "ShellOperations",
    "ShellTimeoutError",
    "ToolError",
    "ToolOptions",
    "TruncationResult",
    "UnknownToolError",
    "WriteTool",
    "create_tool",
    "create_tools",
    "format_size",
    "kill_process_group",
    "parse_tool_names",
    "shell_env",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
