"""pi_agent: the agent loop and ``Agent`` over an open ``AgentMessage`` union."""

from pi_agent._roles import (
    AgentMessage,
    CustomMessage,
    OpaqueMessage,
    RoleBinding,
    RoleConflictError,
    agent_message_from_dict,
    decode_agent_message,
    default_convert_to_llm,
    project_to_llm,
    register_role,
    registered_roles,
    role_binding,
    unregister_role,
)
from pi_agent._tools import AgentTool, AgentToolResult, ToolExecutionMode, ToolUpdateCallback

__all__ = [
    "AgentMessage",
    "AgentTool",
    "AgentToolResult",
    "CustomMessage",
    "OpaqueMessage",
    "RoleBinding",
    "RoleConflictError",
    "ToolExecutionMode",
    "ToolUpdateCallback",
    "agent_message_from_dict",
    "decode_agent_message",
    "default_convert_to_llm",
    "project_to_llm",
    "register_role",
    "registered_roles",
    "role_binding",
    "unregister_role",
]
