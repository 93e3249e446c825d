"""What one model call is given: system prompt, messages and tools."""

from __future__ import annotations

from typing import Any

import msgspec

from pi_ai._messages import AssistantMessage, SystemMessage, ToolResultMessage, UserMessage


class Tool(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    """A tool the model may call. ``parameters`` is a plain JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any]
    constrained_sampling: Any = None
    """``False``, ``{"type": "json_schema", "strict": ...}`` or a grammar; ``None`` when unset."""


class Context(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    system_prompt: str | None = None
    messages: list[UserMessage | AssistantMessage | ToolResultMessage | SystemMessage] = msgspec.field(default_factory=list)
    tools: list[Tool] | None = None
