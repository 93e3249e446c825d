"""Shared pieces for the pi_agent tests: a faux model, scripted tools, an event recorder."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from pi_agent import AgentEvent, AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal, AssistantMessage, TextContent, ToolCall, UserMessage
from pi_ai.faux import (
    FauxModelSpec,
    FauxProvider,
    faux_assistant_message,
    faux_tool_call,
    register_faux_provider,
)

CITY_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@asynccontextmanager
async def faux_provider(*responses: AssistantMessage, **options: Any) -> AsyncIterator[FauxProvider]:
    options.setdefault("token_size", (100, 100))
    faux = register_faux_provider(models=[FauxModelSpec(id="faux-model", name="Faux")], **options)
    faux.set_responses(list(responses))
    try:
        yield faux
    finally:
        faux.unregister()


def user(text: str, timestamp: int = 1) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def reply(text: str) -> AssistantMessage:
    return faux_assistant_message(text)


def tool_calls(*calls: tuple[str, str, dict[str, Any]], text: str | None = None) -> AssistantMessage:
    blocks: list[TextContent | ToolCall] = [TextContent(text=text)] if text else []
    blocks += [faux_tool_call(name, args, id=call_id) for call_id, name, args in calls]
    return faux_assistant_message(blocks, stop_reason="toolUse")


Behaviour = Callable[[str, dict[str, Any], "AbortSignal | None", "ToolUpdateCallback | None"], Awaitable[Any]]


class ScriptTool(AgentTool):
    """A tool whose ``execute`` is a given coroutine function; it logs every call."""

    def __init__(self, name: str, behaviour: Behaviour, *, parameters: dict[str, Any] | None = None,
                 execution_mode: Any = None) -> None:
        self.name = name
        self.label = name.title()
        self.description = f"the {name} tool"
        self.parameters = parameters if parameters is not None else {"type": "object", "properties": {}}
        self.execution_mode = execution_mode
        self.behaviour = behaviour
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def execute(self, tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None,
                      on_update: ToolUpdateCallback | None) -> AgentToolResult[Any]:
        self.calls.append((tool_call_id, params))
        result = await self.behaviour(tool_call_id, params, signal, on_update)
        if isinstance(result, AgentToolResult):
            return result
        return AgentToolResult(content=[TextContent(text=str(result))])


def text_tool(name: str, text: str = "ok", delay: float = 0.0, **kwargs: Any) -> ScriptTool:
    async def behaviour(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        if delay:
            await asyncio.sleep(delay)
        return text

    return ScriptTool(name, behaviour, **kwargs)


class Recorder:
    """Collects events; ``kinds`` renders them as ``type`` or ``type(id/role)`` strings."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent, signal: Any = None) -> None:
        self.events.append(event)

    @property
    def kinds(self) -> list[str]:
        out = []
        for event in self.events:
            detail = getattr(event, "tool_call_id", None)
            if detail is None and hasattr(event, "message") and event.type != "message_update":
                detail = event.message.role  # type: ignore[union-attr]
            out.append(f"{event.type}({detail})" if detail else event.type)
        return out

    def of_type(self, kind: str) -> list[Any]:
        return [event for event in self.events if event.type == kind]


def text_of(message: Any) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))
