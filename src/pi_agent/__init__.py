"""pi_agent: the agent loop and ``Agent`` over an open ``AgentMessage`` union.

Layers, bottom up: ``AgentMessage`` (pi-ai's messages plus registered roles), tools
(``AgentTool``, ``function_tool``) with Pi's argument validation, the low-level loop
(``run_agent_loop`` / ``agent_loop`` and their ``continue`` forms) and the stateful ``Agent``.

Names are loaded on first access (PEP 562): a program that only needs the message roles
(e.g. to read a session file) does not pay for the loop, the ``Agent`` or asyncio.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes

if TYPE_CHECKING:
    from pi_agent._agent import Agent, AgentListener, AgentState, QueueMode
    from pi_agent._events import (
        AgentEndEvent,
        AgentEvent,
        AgentStartEvent,
        MessageEndEvent,
        MessageStartEvent,
        MessageUpdateEvent,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        ToolExecutionUpdateEvent,
        TurnEndEvent,
        TurnStartEvent,
        agent_event_to_json,
        tool_result_to_json,
    )
    from pi_agent._function_tool import FunctionTool, function_tool
    from pi_agent._loop import (
        AgentEventStream,
        agent_loop,
        agent_loop_continue,
        get_default_stream_fn,
        run_agent_loop,
        run_agent_loop_continue,
        set_default_stream_fn,
    )
    from pi_agent._proxy import stream_proxy
    from pi_agent._roles import (
        AgentMessage,
        CustomMessage,
        OpaqueMessage,
        RoleBinding,
        RoleConflictError,
        agent_message_from_dict,
        agent_message_union,
        decode_agent_message,
        default_convert_to_llm,
        project_to_llm,
        register_role,
        registered_roles,
        role_binding,
        unregister_role,
    )
    from pi_agent._stream import EventStream
    from pi_agent._tools import AgentTool, AgentToolResult, ToolExecutionMode, ToolUpdateCallback
    from pi_agent._types import (
        AfterToolCallContext,
        AfterToolCallResult,
        AgentContext,
        AgentLoopConfig,
        AgentLoopTurnUpdate,
        BeforeToolCallContext,
        BeforeToolCallResult,
        StreamFn,
        TurnContext,
    )
    from pi_agent._validation import ToolArgumentsError, validate_arguments, validate_tool_arguments

_EXPORTS: dict[str, str] = {
    "AfterToolCallContext": "pi_agent._types",
    "AfterToolCallResult": "pi_agent._types",
    "Agent": "pi_agent._agent",
    "AgentContext": "pi_agent._types",
    "AgentEndEvent": "pi_agent._events",
    "AgentEvent": "pi_agent._events",
    "AgentEventStream": "pi_agent._loop",
    "AgentListener": "pi_agent._agent",
    "AgentLoopConfig": "pi_agent._types",
    "AgentLoopTurnUpdate": "pi_agent._types",
    "AgentMessage": "pi_agent._roles",
    "AgentStartEvent": "pi_agent._events",
    "AgentState": "pi_agent._agent",
    "AgentTool": "pi_agent._tools",
    "AgentToolResult": "pi_agent._tools",
    "BeforeToolCallContext": "pi_agent._types",
    "BeforeToolCallResult": "pi_agent._types",
    "CustomMessage": "pi_agent._roles",
    "EventStream": "pi_agent._stream",
    "FunctionTool": "pi_agent._function_tool",
    "MessageEndEvent": "pi_agent._events",
    "MessageStartEvent": "pi_agent._events",
    "MessageUpdateEvent": "pi_agent._events",
    "OpaqueMessage": "pi_agent._roles",
    "QueueMode": "pi_agent._agent",
    "RoleBinding": "pi_agent._roles",
    "RoleConflictError": "pi_agent._roles",
    "StreamFn": "pi_agent._types",
    "ToolArgumentsError": "pi_agent._validation",
    "ToolExecutionEndEvent": "pi_agent._events",
    "ToolExecutionMode": "pi_agent._tools",
    "ToolExecutionStartEvent": "pi_agent._events",
    "ToolExecutionUpdateEvent": "pi_agent._events",
    "ToolUpdateCallback": "pi_agent._tools",
    "TurnContext": "pi_agent._types",
    "TurnEndEvent": "pi_agent._events",
    "TurnStartEvent": "pi_agent._events",
    "agent_event_to_json": "pi_agent._events",
    "agent_loop": "pi_agent._loop",
    "agent_loop_continue": "pi_agent._loop",
    "agent_message_from_dict": "pi_agent._roles",
    "agent_message_union": "pi_agent._roles",
    "decode_agent_message": "pi_agent._roles",
    "default_convert_to_llm": "pi_agent._roles",
    "function_tool": "pi_agent._function_tool",
    "get_default_stream_fn": "pi_agent._loop",
    "project_to_llm": "pi_agent._roles",
    "register_role": "pi_agent._roles",
    "registered_roles": "pi_agent._roles",
    "role_binding": "pi_agent._roles",
    "run_agent_loop": "pi_agent._loop",
    "run_agent_loop_continue": "pi_agent._loop",
    "set_default_stream_fn": "pi_agent._loop",
    "stream_proxy": "pi_agent._proxy",
    "tool_result_to_json": "pi_agent._events",
    "unregister_role": "pi_agent._roles",
    "validate_arguments": "pi_agent._validation",
    "validate_tool_arguments": "pi_agent._validation",
}

__getattr__, __dir__ = lazy_attributes(globals(), _EXPORTS)


__all__ = [
    "AfterToolCallContext",
    "AfterToolCallResult",
    "Agent",
    "AgentContext",
    "AgentEndEvent",
    "AgentEvent",
    "AgentEventStream",
    "AgentListener",
    "AgentLoopConfig",
    "AgentLoopTurnUpdate",
    "AgentMessage",
    "AgentStartEvent",
    "AgentState",
    "AgentTool",
    "AgentToolResult",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "CustomMessage",
    "EventStream",
    "FunctionTool",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "OpaqueMessage",
    "QueueMode",
    "RoleBinding",
    "RoleConflictError",
    "StreamFn",
    "ToolArgumentsError",
    "ToolExecutionEndEvent",
    "ToolExecutionMode",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "ToolUpdateCallback",
    "TurnContext",
    "TurnEndEvent",
    "TurnStartEvent",
    "agent_event_to_json",
    "agent_loop",
    "agent_loop_continue",
    "agent_message_from_dict",
    "agent_message_union",
    "decode_agent_message",
    "default_convert_to_llm",
    "function_tool",
    "get_default_stream_fn",
    "project_to_llm",
    "register_role",
    "registered_roles",
    "role_binding",
    "run_agent_loop",
    "run_agent_loop_continue",
    "set_default_stream_fn",
    "stream_proxy",
    "tool_result_to_json",
    "unregister_role",
    "validate_arguments",
    "validate_tool_arguments",
]
