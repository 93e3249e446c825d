"""The coding agent's built-in tools: ``read``, ``bash``, ``edit``, ``write``, ``grep``, ``find``, ``ls``.

Each is a ``pi_agent.AgentTool`` bound to a working directory at construction. Names,
parameters, limits, output formats and error texts follow Pi 0.85 (the model reads them);
see ``docs/tools/`` for where and why this implementation differs.

Also exported: the read tool's path and image handling (``resolve_read_path``,
``detect_supported_image_mime_type_from_file``, ``process_image``, ``ResizeProfile``), which
``@file`` arguments share.

Names are loaded on first access (PEP 562): importing the package, or creating the default
tools, does not load the other tools' modules; type checkers see ordinary imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes

if TYPE_CHECKING:
    from pi_coding_agent.core.tools._bash import BashTool as BashTool
    from pi_coding_agent.core.tools._common import ToolError as ToolError
    from pi_coding_agent.core.tools._edit import EditTool as EditTool
    from pi_coding_agent.core.tools._edit import edit_base_text as edit_base_text
    from pi_coding_agent.core.tools._edit import edited_text as edited_text
    from pi_coding_agent.core.tools._find import FindTool as FindTool
    from pi_coding_agent.core.tools._grep import GrepTool as GrepTool
    from pi_coding_agent.core.tools._images import ResizeProfile as ResizeProfile
    from pi_coding_agent.core.tools._images import (
        detect_supported_image_mime_type_from_file as detect_supported_image_mime_type_from_file,
    )
    from pi_coding_agent.core.tools._images import process_image as process_image
    from pi_coding_agent.core.tools._ls import LsTool as LsTool
    from pi_coding_agent.core.tools._output_files import create_output_file as create_output_file
    from pi_coding_agent.core.tools._paths import resolve_read_path as resolve_read_path
    from pi_coding_agent.core.tools._read import ReadTool as ReadTool
    from pi_coding_agent.core.tools._registry import ALL_TOOL_NAMES as ALL_TOOL_NAMES
    from pi_coding_agent.core.tools._registry import DEFAULT_TOOL_NAMES as DEFAULT_TOOL_NAMES
    from pi_coding_agent.core.tools._registry import READ_ONLY_TOOL_NAMES as READ_ONLY_TOOL_NAMES
    from pi_coding_agent.core.tools._registry import ToolsOptions as ToolsOptions
    from pi_coding_agent.core.tools._registry import UnknownToolError as UnknownToolError
    from pi_coding_agent.core.tools._registry import create_tool as create_tool
    from pi_coding_agent.core.tools._registry import create_tools as create_tools
    from pi_coding_agent.core.tools._registry import parse_tool_names as parse_tool_names
    from pi_coding_agent.core.tools._shell import BashOperations as BashOperations
    from pi_coding_agent.core.tools._shell import LocalShell as LocalShell
    from pi_coding_agent.core.tools._shell import ShellAbortedError as ShellAbortedError
    from pi_coding_agent.core.tools._shell import ShellTimeoutError as ShellTimeoutError
    from pi_coding_agent.core.tools._shell import kill_process_group as kill_process_group
    from pi_coding_agent.core.tools._shell import shell_env as shell_env
    from pi_coding_agent.core.tools._truncate import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from pi_coding_agent.core.tools._truncate import DEFAULT_MAX_LINES as DEFAULT_MAX_LINES
    from pi_coding_agent.core.tools._truncate import GREP_MAX_LINE_LENGTH as GREP_MAX_LINE_LENGTH
    from pi_coding_agent.core.tools._truncate import TruncationResult as TruncationResult
    from pi_coding_agent.core.tools._truncate import format_size as format_size
    from pi_coding_agent.core.tools._truncate import truncate_head as truncate_head
    from pi_coding_agent.core.tools._truncate import truncate_line as truncate_line
    from pi_coding_agent.core.tools._truncate import truncate_tail as truncate_tail
    from pi_coding_agent.core.tools._write import WriteTool as WriteTool


__getattr__, __dir__ = lazy_attributes(globals())
