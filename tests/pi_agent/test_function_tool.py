"""function_tool / FunctionTool: schemas from signatures or pydantic models, injected arguments."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from pi_agent import Agent, AgentToolResult, FunctionTool, function_tool
from pi_ai import AbortSignal, ImageContent, TextContent, ToolResultMessage

from ._support import faux_provider, reply, text_of, tool_calls


@function_tool(label="Weather")
async def get_weather(city: str, units: Literal["c", "f"] = "c", days: int | None = None) -> str:
    """Current weather for a city.

    Uses the made-up weather service.
    """
    return f"{city}: 20{units} for {days or 1} day(s)"


class Search(BaseModel):
    query: str = Field(description="what to look for")
    limit: int = 5
    title: str | None = None


@function_tool
async def search(request: Search, signal: AbortSignal | None, tool_call_id: str) -> AgentToolResult[Any]:
    return AgentToolResult(content=[TextContent(text=f"{tool_call_id}:{request.query}:{request.limit}")],
                           details={"signal": signal is not None})


def test_schema_and_description_come_from_the_signature() -> None:
    assert (get_weather.name, get_weather.label) == ("get_weather", "Weather")
    assert get_weather.description == "Current weather for a city.\n\nUses the made-up weather service."
    schema = get_weather.parameters
    assert schema["required"] == ["city"]
    assert schema["properties"]["city"] == {"type": "string"}
    assert schema["properties"]["units"] == {"default": "c", "enum": ["c", "f"], "type": "string"}
    assert "title" not in schema and all("title" not in p for p in schema["properties"].values())


def test_a_single_pydantic_model_parameter_is_the_schema() -> None:
    schema = search.parameters
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["description"] == "what to look for"
    assert "title" in schema["properties"]  # a property named "title" survives title stripping
    assert set(schema["properties"]) == {"query", "limit", "title"}


async def test_function_tools_run_through_the_loop_with_coercion_and_injection() -> None:
    async with faux_provider(
        tool_calls(("w1", "get_weather", {"city": "Oslo", "days": "3"}), ("s1", "search", {"query": "pi", "limit": "2"}),
                   ("w2", "get_weather", {"city": "Oslo", "units": "k"})),
        reply("done"),
    ) as faux:
        agent = Agent(model=faux.get_model(), stream_fn=faux.stream, tools=[get_weather, search])
        await agent.prompt("go")
    results = {m.tool_call_id: m for m in agent.state.messages if isinstance(m, ToolResultMessage)}
    assert text_of(results["w1"]) == "Oslo: 20c for 3 day(s)"
    assert text_of(results["s1"]) == "s1:pi:2" and results["s1"].details == {"signal": True}
    assert results["w2"].is_error
    assert text_of(results["w2"]).startswith('Validation failed for tool "get_weather":\n  - units: expected one of ["c","f"]')


async def test_return_values_are_normalized() -> None:
    image = ImageContent(data="aGk=", mime_type="image/png")

    async def blocks() -> list[Any]:
        return [TextContent(text="a"), image]

    async def nothing() -> None:
        return None

    async def bad() -> int:
        return 3

    assert (await FunctionTool(blocks).execute("c", {}, None, None)).content == [TextContent(text="a"), image]
    assert (await FunctionTool(nothing).execute("c", {}, None, None)).content == []
    with pytest.raises(TypeError, match="must return str"):
        await FunctionTool(bad).execute("c", {}, None, None)


async def test_explicit_schema_passes_arguments_through_and_on_update_is_injected() -> None:
    updates: list[Any] = []

    async def shout(text: str, on_update: Any) -> str:
        on_update(AgentToolResult(content=[TextContent(text="...")]))
        return text.upper()

    tool = FunctionTool(shout, parameters={"type": "object", "properties": {"text": {"type": "string"}}},
                        execution_mode="sequential", description="Shout.")
    result = await tool.execute("c", {"text": "hi"}, None, updates.append)
    assert text_of(result) == "HI" and len(updates) == 1
    assert tool.execution_mode == "sequential" and tool.description == "Shout."


def test_sync_functions_and_var_args_are_refused() -> None:
    def sync(x: int) -> str:
        return str(x)

    async def var(*args: int) -> str:
        return ""

    with pytest.raises(TypeError, match="must be an async function"):
        FunctionTool(sync)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"\*args"):
        FunctionTool(var)


async def test_a_pydantic_model_can_be_given_as_parameters() -> None:
    async def run_search(request: Any) -> str:
        return f"{request.query}/{request.limit}"

    tool = FunctionTool(run_search, name="search2", parameters=Search)
    assert tool.parameters["required"] == ["query"]
    assert text_of(await tool.execute("c", {"query": "q"}, None, None)) == "q/5"
    with pytest.raises(TypeError, match="JSON Schema dict or a pydantic model"):
        FunctionTool(run_search, parameters=int)
