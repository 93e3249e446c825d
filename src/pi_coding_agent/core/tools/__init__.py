"""The coding agent's built-in tools: ``read``, ``bash``, ``edit``, ``write``, ``grep``, ``find``, ``ls``.

Each is a ``pi_agent.AgentTool`` bound to a working directory at construction. Names,
parameters, limits, output formats and error texts follow Pi 0.85 (the model reads them);
see ``docs/tools/`` for where and why this implementation differs.

Also exported: the read tool's path and image handling (``resolve_read_path``,
``detect_supported_image_mime_type_from_file``, ``process_image``), which ``@file`` arguments share.

Names are loaded on first access (PEP 562): importing the package, or creating the default
tools, does not load the other tools' modules; type checkers see ordinary imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes

if TYPE_CHECKING:
    from pi_coding_agent.core.tools._bash import BashTool
    from pi_coding_agent.core.tools._common import ToolError
    from pi_coding_agent.core.tools._edit import EditTool
    from pi_coding_agent.core.tools._find import FindTool
    from pi_coding_agent.core.tools._grep import GrepTool
    from pi_coding_agent.core.tools._images import detect_supported_image_mime_type_from_file, process_image
    from pi_coding_agent.core.tools._ls import LsTool
    from pi_coding_agent.core.tools._output_files import create_output_file
    from pi_coding_agent.core.tools._paths import resolve_read_path
    from pi_coding_agent.core.tools._read import ReadTool
    from pi_coding_agent.core.tools._registry import (
        ALL_TOOL_NAMES,
        DEFAULT_TOOL_NAMES,
        READ_ONLY_TOOL_NAMES,
        ToolsOptions,
        UnknownToolError,
        create_tool,
        create_tools,
        parse_tool_names,
    )
    from pi_coding_agent.core.tools._shell import (
        BashOperations,
        LocalShell,
        ShellAbortedError,
        ShellTimeoutError,
        kill_process_group,
        shell_env,
    )
    from pi_coding_agent.core.tools._truncate import (
        DEFAULT_MAX_BYTES,
        DEFAULT_MAX_LINES,
        GREP_MAX_LINE_LENGTH,
        TruncationResult,
        format_size,
        truncate_head,
        truncate_line,
        truncate_tail,
    )
    from pi_coding_agent.core.tools._write import WriteTool

_EXPORTS: dict[str, str] = {
    "BashTool": "._bash",
    "ToolError": "._common",
    "EditTool": "._edit",
    "edit_base_text": "._edit",
    "FindTool": "._find",
    "GrepTool": "._grep",
    "detect_supported_image_mime_type_from_file": "._images",
    "process_image": "._images",
    "LsTool": "._ls",
    "create_output_file": "._output_files",
    "resolve_read_path": "._paths",
    "ReadTool": "._read",
    "ALL_TOOL_NAMES": "._registry",
    "DEFAULT_TOOL_NAMES": "._registry",
    "READ_ONLY_TOOL_NAMES": "._registry",
    "ToolsOptions": "._registry",
    "UnknownToolError": "._registry",
    "create_tool": "._registry",
    "create_tools": "._registry",
    "parse_tool_names": "._registry",
    "LocalShell": "._shell",
    "ShellAbortedError": "._shell",
    "BashOperations": "._shell",
    "ShellTimeoutError": "._shell",
    "kill_process_group": "._shell",
    "shell_env": "._shell",
    "DEFAULT_MAX_BYTES": "._truncate",
    "DEFAULT_MAX_LINES": "._truncate",
    "GREP_MAX_LINE_LENGTH": "._truncate",
    "TruncationResult": "._truncate",
    "format_size": "._truncate",
    "truncate_head": "._truncate",
    "truncate_line": "._truncate",
    "truncate_tail": "._truncate",
    "WriteTool": "._write",
}

__getattr__, __dir__ = lazy_attributes(globals(), _EXPORTS)


__all__ = [
    "ALL_TOOL_NAMES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_TOOL_NAMES",
    "GREP_MAX_LINE_LENGTH",
    "READ_ONLY_TOOL_NAMES",
    "BashOperations",
    "BashTool",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LocalShell",
    "LsTool",
    "ReadTool",
    "ShellAbortedError",
    "ShellTimeoutError",
    "ToolError",
    "ToolsOptions",
    "TruncationResult",
    "UnknownToolError",
    "WriteTool",
    "create_output_file",
    "create_tool",
    "create_tools",
    "detect_supported_image_mime_type_from_file",
    "edit_base_text",
    "format_size",
    "kill_process_group",
    "parse_tool_names",
    "process_image",
    "resolve_read_path",
    "shell_env",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
