"""The ``tool_search`` tool (Pi 1.6): finds tools that are not declared to the model (MCP tools
with ``codemode`` or ``deferred`` exposure) and declares the matches from the next model call on.
See docs/mcp.md. ``rank`` is the BM25 ranking it uses."""

from pi_coding_agent.core.tool_search._rank import SearchDocument as SearchDocument
from pi_coding_agent.core.tool_search._rank import rank as rank
from pi_coding_agent.core.tool_search._rank import tokenize as tokenize
from pi_coding_agent.core.tool_search._tool import DEFAULT_LIMIT as DEFAULT_LIMIT
from pi_coding_agent.core.tool_search._tool import TOOL_SEARCH_NAME as TOOL_SEARCH_NAME
from pi_coding_agent.core.tool_search._tool import Candidate as Candidate
from pi_coding_agent.core.tool_search._tool import ToolSearchHost as ToolSearchHost
from pi_coding_agent.core.tool_search._tool import ToolSearchTool as ToolSearchTool
from pi_coding_agent.core.tool_search._tool import search_document as search_document
