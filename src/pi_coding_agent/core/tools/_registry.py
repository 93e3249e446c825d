"""Building the built-in tool set by name, as ``--tools`` and the session need it.

A tool's module is imported only when that tool is created, so a session with the default
four tools does not pay for ``grep``/``find``/``ls``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_agent import AgentTool
    from pi_coding_agent.core.tools._bash import SessionEnv
    from pi_coding_agent.core.tools._external import Backend
    from pi_coding_agent.core.tools._read import ImageProfile, ImageSupport
    from pi_coding_agent.core.tools._shell import BashOperations

ALL_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
"""Every built-in tool, in Pi's order (Pi's Windows-only ``powershell`` is not provided)."""
DEFAULT_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write")
"""The tools a session starts with when neither settings nor ``--tools`` say otherwise."""
READ_ONLY_TOOL_NAMES: tuple[str, ...] = ("read", "grep", "find", "ls")


@dataclass(slots=True)
class ToolsOptions:
    """Settings that shape the built-in tools (all optional)."""

    auto_resize_images: bool = True
    """Setting ``images.autoResize``."""
    image_support: ImageSupport | None = None
    """Whether the current model takes images (``read`` adds a note when it does not)."""
    image_profile: ImageProfile | None = None
    """The bounds the current model sets for a new image (``read`` shrinks to them)."""
    command_prefix: str | None = None
    """Setting ``shellCommandPrefix``: prepended to every ``bash`` command with a newline."""
    shell_path: str | None = None
    """Setting ``shellPath``."""
    bin_dir: str | None = None
    """``<agent dir>/bin``: put first on the commands' PATH, and searched first for rg/fd."""
    session_env: SessionEnv | None = None
    """``PI_SESSION_ID`` and friends for commands."""
    shell_operations: BashOperations | None = None
    search_backend: Backend = "auto"
    """``python`` forces the pure-Python ``grep``/``find``; ``external`` requires rg/fd."""


class UnknownToolError(ValueError):
    pass


def create_tool(name: str, cwd: str, options: ToolsOptions | None = None) -> AgentTool:
    """One built-in tool working in ``cwd``. Raises ``UnknownToolError`` for other names."""
    o = options or ToolsOptions()
    if name == "read":
        from pi_coding_agent.core.tools._read import ReadTool

        return ReadTool(
            cwd,
            auto_resize_images=o.auto_resize_images,
            image_support=o.image_support,
            image_profile=o.image_profile,
        )
    if name == "bash":
        from pi_coding_agent.core.tools._bash import BashTool

        return BashTool(
            cwd,
            command_prefix=o.command_prefix,
            shell_path=o.shell_path,
            bin_dir=o.bin_dir,
            session_env=o.session_env,
            operations=o.shell_operations,
        )
    if name == "edit":
        from pi_coding_agent.core.tools._edit import EditTool

        return EditTool(cwd)
    if name == "write":
        from pi_coding_agent.core.tools._write import WriteTool

        return WriteTool(cwd)
    if name == "grep":
        from pi_coding_agent.core.tools._grep import GrepTool

        return GrepTool(cwd, backend=o.search_backend, bin_dir=o.bin_dir)
    if name == "find":
        from pi_coding_agent.core.tools._find import FindTool

        return FindTool(cwd, backend=o.search_backend, bin_dir=o.bin_dir)
    if name == "ls":
        from pi_coding_agent.core.tools._ls import LsTool

        return LsTool(cwd)
    raise UnknownToolError(f"Unknown tool name: {name}")


def create_tools(
    cwd: str, names: Iterable[str] | None = None, options: ToolsOptions | None = None
) -> list[AgentTool]:
    """The named tools (default: Pi's default set), in the order given, duplicates dropped."""
    selected = DEFAULT_TOOL_NAMES if names is None else tuple(dict.fromkeys(names))
    return [create_tool(name, cwd, options) for name in selected]


def parse_tool_names(value: str) -> list[str]:
    """A ``--tools`` value (``read,bash`` ...): trimmed, empty items dropped, names checked."""
    names = [item.strip() for item in value.split(",") if item.strip()]
    unknown = [name for name in names if name not in ALL_TOOL_NAMES]
    if unknown:
        raise UnknownToolError(
            f"Unknown tool name{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)} "
            f"(available: {', '.join(ALL_TOOL_NAMES)})"
        )
    return names
