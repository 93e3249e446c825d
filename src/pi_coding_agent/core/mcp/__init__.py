"""MCP servers as Pi 1.6 has them: ``config`` (``mcp.json``), ``client`` (one server on the
official SDK, results as the model sees them) and ``manager`` (the run's servers and tools).
See docs/mcp.md."""

from pi_coding_agent.core.mcp.config import load_mcp_config as load_mcp_config
from pi_coding_agent.core.mcp.manager import McpManager as McpManager
