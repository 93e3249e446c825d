"""pi_ai: one message model for every LLM provider, a streaming protocol where errors are
values, and the wire adapters that translate between the two.

Names are loaded on first access (PEP 562) so ``import pi_ai`` stays cheap for programs that
only need part of it; type checkers see ordinary imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_ai._abort import AbortController, AbortError, AbortSignal
    from pi_ai._codec import (
        DecodeError,
        convert,
        decode,
        decode_message,
        encode,
        message_from_dict,
        to_builtins,
    )
    from pi_ai._context import Context, Tool
    from pi_ai._env_keys import api_key_env_vars, get_env_api_key
    from pi_ai._event_stream import AssistantMessageEventStream, empty_assistant_message, now_ms, start_stream
    from pi_ai._events import (
        AssistantMessageEvent,
        DoneEvent,
        ErrorEvent,
        StartEvent,
        TextDeltaEvent,
        TextEndEvent,
        TextStartEvent,
        ThinkingDeltaEvent,
        ThinkingEndEvent,
        ThinkingStartEvent,
        ToolCallDeltaEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
    )
    from pi_ai._messages import (
        AssistantMessage,
        ContentBlock,
        DeferredHandle,
        Diagnostic,
        ImageContent,
        Message,
        StopReason,
        TextContent,
        ThinkingContent,
        ToolCall,
        ToolResultMessage,
        Usage,
        UsageCost,
        UserMessage,
    )
    from pi_ai._model import (
        THINKING_LEVELS,
        CostTier,
        Model,
        ModelCost,
        ThinkingLevel,
        calculate_cost,
        clamp_thinking_level,
        get_supported_thinking_levels,
        models_are_equal,
    )
    from pi_ai._options import (
        CacheRetention,
        ReasoningLevel,
        ResponseInfo,
        SimpleStreamOptions,
        StreamOptions,
        ThinkingBudgets,
    )
    from pi_ai._registry import (
        ApiImplementation,
        complete,
        complete_simple,
        get_api,
        register_api,
        registered_apis,
        stream,
        stream_simple,
        unregister_apis,
    )

_EXPORTS: dict[str, str] = {
    "AbortController": "pi_ai._abort",
    "AbortError": "pi_ai._abort",
    "AbortSignal": "pi_ai._abort",
    "DecodeError": "pi_ai._codec",
    "convert": "pi_ai._codec",
    "decode": "pi_ai._codec",
    "decode_message": "pi_ai._codec",
    "encode": "pi_ai._codec",
    "message_from_dict": "pi_ai._codec",
    "to_builtins": "pi_ai._codec",
    "Context": "pi_ai._context",
    "Tool": "pi_ai._context",
    "api_key_env_vars": "pi_ai._env_keys",
    "get_env_api_key": "pi_ai._env_keys",
    "AssistantMessageEventStream": "pi_ai._event_stream",
    "empty_assistant_message": "pi_ai._event_stream",
    "now_ms": "pi_ai._event_stream",
    "start_stream": "pi_ai._event_stream",
    "AssistantMessageEvent": "pi_ai._events",
    "DoneEvent": "pi_ai._events",
    "ErrorEvent": "pi_ai._events",
    "StartEvent": "pi_ai._events",
    "TextDeltaEvent": "pi_ai._events",
    "TextEndEvent": "pi_ai._events",
    "TextStartEvent": "pi_ai._events",
    "ThinkingDeltaEvent": "pi_ai._events",
    "ThinkingEndEvent": "pi_ai._events",
    "ThinkingStartEvent": "pi_ai._events",
    "ToolCallDeltaEvent": "pi_ai._events",
    "ToolCallEndEvent": "pi_ai._events",
    "ToolCallStartEvent": "pi_ai._events",
    "AssistantMessage": "pi_ai._messages",
    "ContentBlock": "pi_ai._messages",
    "DeferredHandle": "pi_ai._messages",
    "Diagnostic": "pi_ai._messages",
    "ImageContent": "pi_ai._messages",
    "Message": "pi_ai._messages",
    "StopReason": "pi_ai._messages",
    "TextContent": "pi_ai._messages",
    "ThinkingContent": "pi_ai._messages",
    "ToolCall": "pi_ai._messages",
    "ToolResultMessage": "pi_ai._messages",
    "Usage": "pi_ai._messages",
    "UsageCost": "pi_ai._messages",
    "UserMessage": "pi_ai._messages",
    "THINKING_LEVELS": "pi_ai._model",
    "CostTier": "pi_ai._model",
    "Model": "pi_ai._model",
    "ModelCost": "pi_ai._model",
    "ThinkingLevel": "pi_ai._model",
    "calculate_cost": "pi_ai._model",
    "clamp_thinking_level": "pi_ai._model",
    "get_supported_thinking_levels": "pi_ai._model",
    "models_are_equal": "pi_ai._model",
    "CacheRetention": "pi_ai._options",
    "ReasoningLevel": "pi_ai._options",
    "ResponseInfo": "pi_ai._options",
    "SimpleStreamOptions": "pi_ai._options",
    "StreamOptions": "pi_ai._options",
    "ThinkingBudgets": "pi_ai._options",
    "ApiImplementation": "pi_ai._registry",
    "complete": "pi_ai._registry",
    "complete_simple": "pi_ai._registry",
    "get_api": "pi_ai._registry",
    "register_api": "pi_ai._registry",
    "registered_apis": "pi_ai._registry",
    "stream": "pi_ai._registry",
    "stream_simple": "pi_ai._registry",
    "unregister_apis": "pi_ai._registry",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pi_ai' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "THINKING_LEVELS",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "ApiImplementation",
    "AssistantMessage",
    "AssistantMessageEvent",
    "AssistantMessageEventStream",
    "CacheRetention",
    "ContentBlock",
    "Context",
    "CostTier",
    "DecodeError",
    "DeferredHandle",
    "Diagnostic",
    "DoneEvent",
    "ErrorEvent",
    "ImageContent",
    "Message",
    "Model",
    "ModelCost",
    "ReasoningLevel",
    "ResponseInfo",
    "SimpleStreamOptions",
    "StartEvent",
    "StopReason",
    "StreamOptions",
    "TextContent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingBudgets",
    "ThinkingContent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingLevel",
    "ThinkingStartEvent",
    "Tool",
    "ToolCall",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolResultMessage",
    "Usage",
    "UsageCost",
    "UserMessage",
    "api_key_env_vars",
    "calculate_cost",
    "clamp_thinking_level",
    "complete",
    "complete_simple",
    "convert",
    "decode",
    "decode_message",
    "empty_assistant_message",
    "encode",
    "get_api",
    "get_env_api_key",
    "get_supported_thinking_levels",
    "message_from_dict",
    "models_are_equal",
    "now_ms",
    "register_api",
    "registered_apis",
    "start_stream",
    "stream",
    "stream_simple",
    "to_builtins",
    "unregister_apis",
]
