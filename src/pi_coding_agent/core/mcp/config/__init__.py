"""``mcp.json`` as Pi 1.6 reads and writes it: loading and merging the user and project files,
checking entries, tool exposure, ``${VAR}``/``!command`` values, and ``pi mcp add``/``remove`` edits."""

from pi_coding_agent.core.mcp.config._edit import McpConfigEditError as McpConfigEditError
from pi_coding_agent.core.mcp.config._edit import add_server_config as add_server_config
from pi_coding_agent.core.mcp.config._edit import remove_server_config as remove_server_config
from pi_coding_agent.core.mcp.config._edit import update_server_config as update_server_config
from pi_coding_agent.core.mcp.config._load import McpConfig as McpConfig
from pi_coding_agent.core.mcp.config._load import McpServerEntry as McpServerEntry
from pi_coding_agent.core.mcp.config._load import load_mcp_config as load_mcp_config
from pi_coding_agent.core.mcp.config._load import mcp_namespace as mcp_namespace
from pi_coding_agent.core.mcp.config._load import project_config_path as project_config_path
from pi_coding_agent.core.mcp.config._load import user_config_path as user_config_path
from pi_coding_agent.core.mcp.config._validate import DEFAULT_EXPOSURE as DEFAULT_EXPOSURE
from pi_coding_agent.core.mcp.config._validate import EXPOSURES as EXPOSURES
from pi_coding_agent.core.mcp.config._validate import is_http as is_http
from pi_coding_agent.core.mcp.config._validate import tool_exposure as tool_exposure
from pi_coding_agent.core.mcp.config._validate import validate_server as validate_server
from pi_coding_agent.core.mcp.config._values import McpValueError as McpValueError
from pi_coding_agent.core.mcp.config._values import resolve_env as resolve_env
from pi_coding_agent.core.mcp.config._values import resolve_headers as resolve_headers
from pi_coding_agent.core.mcp.config._values import resolve_value as resolve_value
