"""The run's MCP servers (``McpManager``): background connections, tool names and exposure, the
``direct`` tools the session declares, and ``indirect_tools()`` for codemode and tool_search."""

from pi_coding_agent.core.mcp.manager._account import CANCELLED as CANCELLED
from pi_coding_agent.core.mcp.manager._account import sign_in_to as sign_in_to
from pi_coding_agent.core.mcp.manager._account import sign_in_with_notices as sign_in_with_notices
from pi_coding_agent.core.mcp.manager._account import sign_out_of as sign_out_of
from pi_coding_agent.core.mcp.manager._manager import STARTUP_WAIT_S as STARTUP_WAIT_S
from pi_coding_agent.core.mcp.manager._manager import STILL_CONNECTING as STILL_CONNECTING
from pi_coding_agent.core.mcp.manager._manager import McpManager as McpManager
from pi_coding_agent.core.mcp.manager._manager import ServerReport as ServerReport
from pi_coding_agent.core.mcp.manager._manager import has_direct_tools as has_direct_tools
from pi_coding_agent.core.mcp.manager._naming import mcp_tool_name as mcp_tool_name
from pi_coding_agent.core.mcp.manager._section import ListedServer as ListedServer
from pi_coding_agent.core.mcp.manager._section import servers_section as servers_section
from pi_coding_agent.core.mcp.manager._status import EXPOSURE_TEXT as EXPOSURE_TEXT
from pi_coding_agent.core.mcp.manager._status import describe_state as describe_state
from pi_coding_agent.core.mcp.manager._status import exposure_of as exposure_of
from pi_coding_agent.core.mcp.manager._status import listed as listed
from pi_coding_agent.core.mcp.manager._status import save_change as save_change
from pi_coding_agent.core.mcp.manager._status import source_label as source_label
from pi_coding_agent.core.mcp.manager._status import status_text as status_text
from pi_coding_agent.core.mcp.manager._status import transport as transport
from pi_coding_agent.core.mcp.manager._tool import McpTool as McpTool
from pi_coding_agent.core.mcp.manager._tool import McpToolInfo as McpToolInfo
