"""How the runner combines handlers' results (Pi 0.85's rules), checked in process."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_agent import MessageEndEvent
from pi_ai import AssistantMessage, TextContent, ToolResultMessage, Usage, UserMessage
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.customize.extensions import (
    CommandDefinition,
    Extension,
    ExtensionError,
    ExtensionRunner,
    ToolCallEvent,
    ToolResultEvent,
)
from pi_coding_agent.customize.extensions._runner import deep_copy_messages


def _runner(*handler_maps: dict[str, list[Any]]) -> tuple[ExtensionRunner, list[ExtensionError]]:
    runner = ExtensionRunner([Extension(f"ext{i}", handlers=h) for i, h in enumerate(handler_maps)], "/")
    errors: list[ExtensionError] = []
    runner.on_error(errors.append)
    return runner, errors


def test_the_context_copy_is_deep_and_keeps_custom_roles() -> None:
    custom = CustomRoleMessage(custom_type="note", content="n", display=True, details={"a": [1]}, timestamp=1)
    original = [UserMessage(content=[TextContent(text="hi")], timestamp=1), custom]
    copied = deep_copy_messages(original)
    assert copied == original
    copied[0].content[0].text = "changed"  # type: ignore[union-attr,index]
    copied[1].details["a"].append(2)  # type: ignore[union-attr]
    assert original[0].content[0].text == "hi"  # type: ignore[union-attr,index]
    assert custom.details == {"a": [1]}


def test_tool_result_patches_chain_and_a_raising_handler_is_skipped() -> None:
    def first(event: Any, ctx: Any) -> Any:
        return {"content": [TextContent(text="one")], "details": {"n": 1}}

    def broken(event: Any, ctx: Any) -> Any:
        raise KeyError("x")

    async def second(event: Any, ctx: Any) -> Any:
        assert event.content[0].text == "one"
        return {"is_error": True}

    runner, errors = _runner({"tool_result": [first, broken]}, {"tool_result": [second]})
    event = ToolResultEvent("tool_result", "read", "c1", {}, [TextContent(text="raw")], None, False)
    patch = asyncio.run(runner.emit_tool_result(event))
    assert patch == {
        "content": [TextContent(text="one")], "details": {"n": 1}, "structured_content": None, "is_error": True,
        "usage": None,
    }  # fmt: skip
    assert errors == [ExtensionError("ext0", "tool_result", "'x'")]


def test_the_first_blocking_tool_call_wins_and_input_changes_are_kept() -> None:
    seen: list[str] = []

    def patch(event: Any, ctx: Any) -> None:
        event.input["command"] = "ls -la"

    def block(event: Any, ctx: Any) -> Any:
        seen.append(event.input["command"])
        return {"block": True, "reason": "no"}

    def never(event: Any, ctx: Any) -> None:
        seen.append("never")

    runner, _ = _runner({"tool_call": [patch, block]}, {"tool_call": [never]})
    event = ToolCallEvent("tool_call", "bash", "c1", {"command": "ls"})
    assert asyncio.run(runner.emit_tool_call(event)) == {"block": True, "reason": "no"}
    assert seen == ["ls -la"] and event.input == {"command": "ls -la"}


def test_input_transforms_chain_and_handled_stops() -> None:
    runner, _ = _runner(
        {"input": [lambda e, c: {"action": "transform", "text": e.text.upper()}]},
        {"input": [lambda e, c: {"action": "handled"} if e.text == "PING" else None]},
    )
    assert asyncio.run(runner.emit_input("ping", None, "rpc", None)) == {"action": "handled"}
    assert asyncio.run(runner.emit_input("hello", None, "rpc", None)) == {
        "action": "transform", "text": "HELLO", "images": None,
    }


def test_message_end_replacements_keep_the_role() -> None:
    usage = Usage()
    answer = AssistantMessage(content=[TextContent(text="a")], api="x", provider="p", model="m", usage=usage,
                              stop_reason="stop", timestamp=1)
    wrong = ToolResultMessage(tool_call_id="c", tool_name="t", content=[], is_error=False, timestamp=1)
    better = AssistantMessage(content=[TextContent(text="b")], api="x", provider="p", model="m", usage=usage,
                              stop_reason="stop", timestamp=1)
    runner, errors = _runner({"message_end": [lambda e, c: {"message": wrong}, lambda e, c: {"message": better}]})
    assert asyncio.run(runner.emit_message_end(MessageEndEvent(message=answer))) is better
    assert errors == [ExtensionError("ext0", "message_end", "message_end handlers must return a message with the same role")]


def test_commands_of_the_same_name_get_numbered() -> None:
    one = Extension("a", commands={"review": CommandDefinition("review", print)})
    two = Extension("b", commands={"review": CommandDefinition("review", print), "x": CommandDefinition("x", print)})
    runner = ExtensionRunner([one, two], "/")
    assert [c.invocation_name for c in runner.commands()] == ["review:1", "review:2", "x"]
    assert runner.get_command("review") is None
    assert runner.get_command("review:2") is two.commands["review"]
