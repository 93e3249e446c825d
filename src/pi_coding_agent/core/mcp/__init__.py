"""MCP servers as Pi 1.6 has them: ``config`` (``mcp.json``), ``client`` (one server on the
official SDK, results as the model sees them) and ``manager`` (the run's servers and tools).
See docs/mcp.md. Nothing here is imported until a run has servers to connect."""

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes

if TYPE_CHECKING:
    from pi_coding_agent.core.mcp.config import load_mcp_config as load_mcp_config
    from pi_coding_agent.core.mcp.manager import McpManager as McpManager

__getattr__, __dir__ = lazy_attributes(globals())
