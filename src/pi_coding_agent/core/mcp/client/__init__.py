"""Talking to one MCP server on the official SDK (``McpConnection``) and turning its tool results
into what the model gets (``convert_result``). The SDK is imported only when a server connects."""

from pi_coding_agent.core.mcp.client._connection import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S
from pi_coding_agent.core.mcp.client._connection import McpConnection as McpConnection
from pi_coding_agent.core.mcp.client._connection import State as State
from pi_coding_agent.core.mcp.client._log import McpServerLog as McpServerLog
from pi_coding_agent.core.mcp.client._results import MCP_OUTPUT_MAX_BYTES as MCP_OUTPUT_MAX_BYTES
from pi_coding_agent.core.mcp.client._results import convert_result as convert_result
from pi_coding_agent.core.mcp.client._results import limit_content as limit_content
from pi_coding_agent.core.mcp.client._results import resource_content as resource_content
