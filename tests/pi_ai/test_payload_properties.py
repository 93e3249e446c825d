"""Property: any valid conversation (mixed blocks, parallel tool calls with missing or reordered
results, errored and aborted turns, switches between providers and APIs) becomes a payload in
which every tool result directly answers a call of the preceding assistant turn, every call is
answered, and every id fits the target API."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_ai import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    SimpleStreamOptions,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    stream_simple,
)

SOURCES = [
    ("anthropic-messages", "anthropic", "claude-sonnet-4-5"),
    ("anthropic-messages", "anthropic", "claude-opus-4-7"),
    ("openai-responses", "openai", "gpt-5-mini"),
    ("openai-completions", "openai", "gpt-4o-mini"),
    ("openai-completions", "deepseek", "deepseek-v4-flash"),
    ("google-generative-ai", "google", "gemini-2.5-flash"),
]
TOOLS = [
    Tool(name=name, description=name, parameters={"type": "object", "properties": {"x": {"type": "string"}}})
    for name in ("bash", "read", "edit")
]
TARGETS = {
    "anthropic-messages": Model(
        id="claude-sonnet-4-5",
        name="s",
        api="anthropic-messages",
        provider="anthropic",
        base_url="https://api.anthropic.com",
        reasoning=True,
    ),
    "openai-completions": Model(
        id="gpt-4o-mini",
        name="g",
        api="openai-completions",
        provider="openai",
        base_url="https://api.openai.com/v1",
    ),
    "openai-completions-local": Model(
        id="qwen3",
        name="q",
        api="openai-completions",
        provider="ollama",
        base_url="http://localhost:11434/v1",
        reasoning=True,
        input=["text"],
        compat={"requiresAssistantAfterToolResult": True, "requiresToolResultName": True},
    ),
}
ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _native_id(draw: Any, api: str, provider: str, counter: int) -> str:
    if api == "anthropic-messages":
        return f"toolu_{counter:03d}" + draw(st.text("abcXYZ019_-", max_size=8))
    if api == "openai-responses":
        item = draw(st.text("abcdefABC0123456789+/=_-", min_size=20, max_size=420))
        return f"call_{counter}|fc_{item}"
    if api == "google-generative-ai":
        return draw(st.sampled_from([f"bash_1760000000000_{counter}", f"fn-{counter}"]))
    # OpenAI's own ids are "call_" + 24 characters, and a same-model id is replayed unchanged
    # (as Pi does), so only other OpenAI-compatible servers get longer ones here.
    return f"call_{counter}" + draw(st.text("abcXYZ019", max_size=24 if provider == "openai" else 50))


def _signature(api: str, counter: int) -> str:
    """A thinking signature as each API stores it."""
    if api == "openai-responses":
        return f'{{"type":"reasoning","id":"rs_{counter}","summary":[],"encrypted_content":"gAAA"}}'
    if api == "openai-completions":
        return "reasoning_content"
    return "c2lnbmF0dXJl"


@st.composite
def conversations(draw: Any) -> list[Message]:
    messages: list[Message] = [UserMessage(content="start", timestamp=0)]
    counter = 0
    for turn in range(draw(st.integers(1, 6))):
        api, provider, model_id = draw(st.sampled_from(SOURCES))
        blocks: list[Any] = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["text", "thinking", "signed", "redacted", "blank"]))
            if kind == "text":
                blocks.append(
                    TextContent(
                        text=draw(st.text(max_size=20)), text_signature=draw(st.none() | st.just("sig"))
                    )
                )
            elif kind == "thinking":
                blocks.append(ThinkingContent(thinking=draw(st.text(max_size=20))))
            elif kind == "signed":
                blocks.append(
                    ThinkingContent(
                        thinking=draw(st.text(max_size=20)), thinking_signature=_signature(api, counter)
                    )
                )
            elif kind == "redacted" and api == "anthropic-messages":  # only Anthropic redacts
                blocks.append(
                    ThinkingContent(
                        thinking="[Reasoning redacted]", thinking_signature="ZGF0YQ==", redacted=True
                    )
                )
            elif kind == "blank":
                blocks.append(TextContent(text="  "))
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            counter += 1
            call = ToolCall(
                id=_native_id(draw, api, provider, counter),
                name=draw(st.sampled_from(["bash", "read", "edit"])),
                arguments={"x": draw(st.text(max_size=10))},
                thought_signature=draw(st.none() | st.just("c2ln")),
            )
            calls.append(call)
        content = blocks + calls
        if draw(st.booleans()):
            draw(st.randoms()).shuffle(content)
        stop = draw(
            st.sampled_from(
                ["stop", "toolUse", "error", "aborted", "length"]
                if not calls
                else ["toolUse", "error", "aborted"]
            )
        )
        messages.append(
            AssistantMessage(
                content=content, api=api, provider=provider, model=model_id, stop_reason=stop, timestamp=turn
            )  # type: ignore[arg-type]
        )
        if stop == "toolUse":
            answered = draw(st.lists(st.sampled_from(calls), unique_by=lambda c: c.id)) if calls else []
            for call in answered:
                content_blocks: list[TextContent | ImageContent] = draw(
                    st.lists(
                        st.sampled_from(
                            [TextContent(text="out"), ImageContent(data="AA==", mime_type="image/png")]
                        ),
                        max_size=2,
                    )
                )
                messages.append(
                    ToolResultMessage(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        content=content_blocks,
                        is_error=draw(st.booleans()),
                        timestamp=turn,
                    )
                )
        if draw(st.booleans()):
            messages.append(
                UserMessage(
                    content=draw(
                        st.sampled_from(
                            [
                                "next",
                                "  ",
                                [TextContent(text="more"), ImageContent(data="AA==", mime_type="image/png")],
                            ]
                        )
                    ),
                    timestamp=turn,
                )
            )
    return messages


class _Captured(Exception):
    pass


def _payload(model: Model, messages: list[Message]) -> dict[str, Any]:
    captured: list[dict[str, Any]] = []

    def hook(payload: Any, _model: Model) -> None:
        captured.append(payload)
        raise _Captured  # stop before any network use

    async def run() -> None:
        stream = stream_simple(
            model,
            Context(system_prompt="s", messages=messages, tools=TOOLS),
            SimpleStreamOptions(api_key="k", on_payload=hook),
        )
        await stream.result()

    asyncio.run(run())
    assert len(captured) == 1
    return captured[0]


def _check_anthropic(payload: dict[str, Any]) -> None:
    messages = payload["messages"]
    for index, message in enumerate(messages):
        content = message["content"] if isinstance(message["content"], list) else []
        uses = [block["id"] for block in content if block.get("type") == "tool_use"]
        results = [block["tool_use_id"] for block in content if block.get("type") == "tool_result"]
        for tool_id in uses:
            assert ANTHROPIC_ID.match(tool_id), tool_id
        if results:
            assert message["role"] == "user"
            previous = messages[index - 1]
            assert previous["role"] == "assistant"
            called = [block["id"] for block in previous["content"] if block.get("type") == "tool_use"]
            assert sorted(results) == sorted(called)
            assert [block.get("type") for block in content][: len(results)] == ["tool_result"] * len(results)
        if uses:
            following = messages[index + 1]["content"]
            assert [block["tool_use_id"] for block in following if block.get("type") == "tool_result"] != []


def _check_completions(payload: dict[str, Any], provider: str) -> None:
    messages = payload["messages"]
    pending: list[str] = []
    for message in messages:
        role = message["role"]
        if role == "tool":
            assert message["tool_call_id"] in pending
            pending.remove(message["tool_call_id"])
            continue
        assert not pending, f"calls {pending} unanswered before a {role} message"
        for call in message.get("tool_calls") or []:
            tool_id = call["id"]
            assert "|" not in tool_id
            if provider == "openai":
                assert 0 < len(tool_id) <= 40, tool_id
            pending.append(tool_id)
    assert not pending


settings.register_profile(
    "payloads", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@settings(settings.get_profile("payloads"))
@given(conversations())
def test_anthropic_payloads_are_valid(messages: list[Message]) -> None:
    _check_anthropic(_payload(TARGETS["anthropic-messages"], messages))


@settings(settings.get_profile("payloads"))
@given(conversations())
def test_completions_payloads_are_valid(messages: list[Message]) -> None:
    _check_completions(_payload(TARGETS["openai-completions"], messages), "openai")
    _check_completions(_payload(TARGETS["openai-completions-local"], messages), "ollama")


def _module_exists(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


if _module_exists("pi_ai.api.openai_responses"):

    @settings(settings.get_profile("payloads"))
    @given(conversations())
    def test_responses_payloads_are_valid(messages: list[Message]) -> None:
        model = Model(
            id="gpt-5-mini",
            name="g",
            api="openai-responses",
            provider="openai",
            base_url="https://api.openai.com/v1",
            reasoning=True,
        )
        items = _payload(model, messages)["input"]
        pending: list[str] = []
        for item in items:
            if item.get("type") == "function_call":
                pending.append(item["call_id"])
                assert re.match(r"^[^|]{1,64}$", item["call_id"]) or item["call_id"]
            elif item.get("type") == "function_call_output":
                assert item["call_id"] in pending
                pending.remove(item["call_id"])
            elif item.get("role") in ("user", "developer", "system"):
                assert not pending


if _module_exists("pi_ai.api.google_generative_ai"):

    @settings(settings.get_profile("payloads"))
    @given(conversations())
    def test_google_payloads_are_valid(messages: list[Message]) -> None:
        model = Model(
            id="gemini-3-pro-preview",
            name="g",
            api="google-generative-ai",
            provider="google",
            base_url="https://generativelanguage.googleapis.com/v1beta",
            reasoning=True,
        )
        payload = _payload(model, messages)
        contents = payload["contents"]
        for index, content in enumerate(contents):
            responses = [part["functionResponse"] for part in content["parts"] if "functionResponse" in part]
            calls = [part["functionCall"] for part in content["parts"] if "functionCall" in part]
            for call in calls:
                assert re.match(r"^[a-zA-Z0-9_-]{1,64}$", call["id"]), call
            if responses:
                assert content["role"] == "user"
                previous = contents[index - 1]
                called = {part["functionCall"]["id"] for part in previous["parts"] if "functionCall" in part}
                assert {response["id"] for response in responses} <= called
