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
    from pi_agent._agent import Agent as Agent
    from pi_agent._agent import AgentListener as AgentListener
    from pi_agent._agent import AgentState as AgentState
    from pi_agent._agent import QueueMode as QueueMode
    from pi_agent._events import AgentEndEvent as AgentEndEvent
    from pi_agent._events import AgentEvent as AgentEvent
    from pi_agent._events import AgentStartEvent as AgentStartEvent
    from pi_agent._events import MessageEndEvent as MessageEndEvent
    from pi_agent._events import MessageStartEvent as MessageStartEvent
    from pi_agent._events import MessageUpdateEvent as MessageUpdateEvent
    from pi_agent._events import ToolExecutionEndEvent as ToolExecutionEndEvent
    from pi_agent._events import ToolExecutionStartEvent as ToolExecutionStartEvent
    from pi_agent._events import ToolExecutionUpdateEvent as ToolExecutionUpdateEvent
    from pi_agent._events import TurnEndEvent as TurnEndEvent
    from pi_agent._events import TurnStartEvent as TurnStartEvent
    from pi_agent._events import agent_event_to_json as agent_event_to_json
    from pi_agent._events import tool_result_to_json as tool_result_to_json
    from pi_agent._function_tool import FunctionTool as FunctionTool
    from pi_agent._function_tool import function_tool as function_tool
    from pi_agent._loop import AgentEventStream as AgentEventStream
    from pi_agent._loop import NestedToolOutcome as NestedToolOutcome
    from pi_agent._loop import NestedToolRunner as NestedToolRunner
    from pi_agent._loop import agent_loop as agent_loop
    from pi_agent._loop import agent_loop_continue as agent_loop_continue
    from pi_agent._loop import current_tool_runner as current_tool_runner
    from pi_agent._loop import get_default_stream_fn as get_default_stream_fn
    from pi_agent._loop import run_agent_loop as run_agent_loop
    from pi_agent._loop import run_agent_loop_continue as run_agent_loop_continue
    from pi_agent._loop import set_default_stream_fn as set_default_stream_fn
    from pi_agent._proxy import stream_proxy as stream_proxy
    from pi_agent._roles import AgentMessage as AgentMessage
    from pi_agent._roles import CustomMessage as CustomMessage
    from pi_agent._roles import OpaqueMessage as OpaqueMessage
    from pi_agent._roles import RoleBinding as RoleBinding
    from pi_agent._roles import RoleConflictError as RoleConflictError
    from pi_agent._roles import agent_message_from_dict as agent_message_from_dict
    from pi_agent._roles import agent_message_union as agent_message_union
    from pi_agent._roles import decode_agent_message as decode_agent_message
    from pi_agent._roles import default_convert_to_llm as default_convert_to_llm
    from pi_agent._roles import project_to_llm as project_to_llm
    from pi_agent._roles import register_role as register_role
    from pi_agent._roles import registered_roles as registered_roles
    from pi_agent._roles import role_binding as role_binding
    from pi_agent._roles import unregister_role as unregister_role
    from pi_agent._stream import EventStream as EventStream
    from pi_agent._tools import AgentTool as AgentTool
    from pi_agent._tools import AgentToolResult as AgentToolResult
    from pi_agent._tools import ToolExecutionMode as ToolExecutionMode
    from pi_agent._tools import ToolFailure as ToolFailure
    from pi_agent._tools import ToolUpdateCallback as ToolUpdateCallback
    from pi_agent._types import AfterToolCallContext as AfterToolCallContext
    from pi_agent._types import AfterToolCallResult as AfterToolCallResult
    from pi_agent._types import AgentContext as AgentContext
    from pi_agent._types import AgentLoopConfig as AgentLoopConfig
    from pi_agent._types import AgentLoopTurnUpdate as AgentLoopTurnUpdate
    from pi_agent._types import BeforeToolCallContext as BeforeToolCallContext
    from pi_agent._types import BeforeToolCallResult as BeforeToolCallResult
    from pi_agent._types import StreamFn as StreamFn
    from pi_agent._types import TurnContext as TurnContext
    from pi_agent._validation import ToolArgumentsError as ToolArgumentsError
    from pi_agent._validation import validate_arguments as validate_arguments
    from pi_agent._validation import validate_tool_arguments as validate_tool_arguments


__getattr__, __dir__ = lazy_attributes(globals())
