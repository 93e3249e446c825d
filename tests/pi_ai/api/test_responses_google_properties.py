"""Property: any valid conversation (mixed blocks, tool calls with or without results, errored
and aborted turns, provider switches) becomes a payload in which every tool result follows
its call, every call is answered before the conversation moves on, and every id has the
shape the target API accepts."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_ai import Context, Model
from pi_ai._codec import encode
from pi_ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_ai.api._google_convert import convert_messages
from pi_ai.api._responses_convert import (
    OPENAI_TOOL_CALL_PROVIDERS,
    ConvertOptions,
    convert_responses_messages,
)

SOURCES = [
    ("anthropic-messages", "anthropic", "claude-sonnet-4-5"),
    ("openai-responses", "openai", "gpt-5-mini"),
    ("openai-responses", "openai", "gpt-5"),
    ("openai-responses", "openrouter", "openai/gpt-5"),
    ("openai-completions", "openai", "gpt-4o"),
    ("openai-codex-responses", "openai-codex", "gpt-5.1-codex"),
    ("google-generative-ai", "google", "gemini-3-flash-preview"),
    ("google-generative-ai", "google", "gemini-2.5-flash"),
]
TARGETS = [
    Model(
        id="gpt-5-mini",
        name="x",
        api="openai-responses",
        provider="openai",
        base_url="https://api.openai.com/v1",
        reasoning=True,
    ),
    Model(
        id="openai/gpt-5",
        name="x",
        api="openai-responses",
        provider="openrouter",
        base_url="https://openrouter.ai/api/v1",
    ),
    Model(
        id="gpt-4",
        name="x",
        api="openai-responses",
        provider="openai",
        base_url="https://api.openai.com/v1",
        input=["text"],
    ),
]
GOOGLE_TARGETS = [
    Model(
        id="gemini-3-flash-preview",
        name="x",
        api="google-generative-ai",
        provider="google",
        base_url="https://g/v1beta",
        reasoning=True,
    ),
    Model(
        id="gemini-2.5-flash",
        name="x",
        api="google-generative-ai",
        provider="google",
        base_url="https://g/v1beta",
        reasoning=True,
    ),
]

ID_PART = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
WILD = ALNUM + "+/=|.:_- é"


def _tool_call_id(api: str, model: str, draw: Any, serial: int) -> str:
    if api == "anthropic-messages":
        return f"toolu_{draw(st.text(ALNUM, min_size=1, max_size=24))}{serial}"
    if api == "openai-responses":
        call = draw(st.text(ALNUM, min_size=1, max_size=24))
        return f"call_{call}{serial}|fc_{draw(st.text(ALNUM, min_size=1, max_size=40))}"
    if api == "openai-codex-responses":  # Codex item ids are long base64 strings
        call = draw(st.text(ALNUM, min_size=1, max_size=24))
        return f"call_{call}{serial}|{draw(st.text(ALNUM + '+/=', min_size=1, max_size=480))}"
    if api == "google-generative-ai":
        return f"bash_1760000000000_{serial}"
    return draw(st.text(WILD, min_size=1, max_size=80)) + str(serial)


@st.composite
def conversations(draw: Any) -> list[Message]:
    messages: list[Message] = []
    serial = 0
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["user", "user_blocks", "assistant"]))
        if kind == "user":
            messages.append(UserMessage(content=draw(st.text(max_size=20)), timestamp=0))
        elif kind == "user_blocks":
            blocks: list[TextContent | ImageContent] = draw(
                st.lists(
                    st.one_of(
                        st.builds(TextContent, text=st.text(max_size=10)),
                        st.just(ImageContent(data="iVBORw0KGgo=", mime_type="image/png")),
                    ),
                    max_size=3,
                )
            )
            messages.append(UserMessage(content=blocks, timestamp=0))
        else:
            api, provider, model = draw(st.sampled_from(SOURCES))
            content: list[TextContent | ThinkingContent | ToolCall] = []
            calls: list[ToolCall] = []
            for _ in range(draw(st.integers(0, 4))):
                block = draw(st.sampled_from(["text", "thinking", "call"]))
                if block == "text":
                    content.append(TextContent(text=draw(st.text(max_size=10))))
                elif block == "thinking":
                    signature = draw(
                        st.sampled_from([None, "c2ln", '{"type":"reasoning","id":"rs_1","summary":[]}'])
                    )
                    if api.endswith("-responses") and signature == "c2ln":
                        signature = None  # Responses signatures are always the reasoning item JSON
                    content.append(
                        ThinkingContent(thinking=draw(st.text(max_size=10)), thinking_signature=signature)
                    )
                else:
                    serial += 1
                    tool_call = ToolCall(
                        id=_tool_call_id(api, model, draw, serial),
                        name=draw(st.sampled_from(["bash", "read"])),
                        arguments={"x": draw(st.integers(-(2**53), 2**53))},  # JS-safe: see docs/decisions/0001
                        thought_signature=draw(st.sampled_from([None, "c2lnMg=="])),
                    )
                    content.append(tool_call)
                    calls.append(tool_call)
            stop = draw(st.sampled_from(["stop", "toolUse", "length", "error", "aborted"]))
            messages.append(
                AssistantMessage(
                    content=content, api=api, provider=provider, model=model, stop_reason=stop, timestamp=0
                )
            )
            # The agent runs no tools for a turn that failed, so such turns never have results.
            runnable = calls if stop not in ("error", "aborted") else []
            answered = draw(
                st.lists(st.sampled_from(runnable), unique_by=lambda c: c.id) if runnable else st.just([])
            )
            for tool_call in answered:
                result: list[TextContent | ImageContent] = draw(
                    st.lists(
                        st.one_of(
                            st.builds(TextContent, text=st.text(max_size=5)),
                            st.just(ImageContent(data="iVBORw0KGgo=", mime_type="image/png")),
                        ),
                        max_size=2,
                    )
                )
                messages.append(
                    ToolResultMessage(
                        tool_call_id=tool_call.id,
                        tool_name=tool_call.name,
                        content=result,
                        is_error=draw(st.booleans()),
                        timestamp=0,
                    )
                )
    return messages


PROPERTY_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(conversations(), st.sampled_from(TARGETS))
def test_responses_results_follow_calls_and_ids_are_valid(messages: list[Message], target: Model) -> None:
    items = convert_responses_messages(
        target, Context(messages=messages), OPENAI_TOOL_CALL_PROVIDERS, ConvertOptions()
    )
    encode(items)
    open_calls: list[str] = []
    called: set[str] = set()
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            assert ID_PART.match(item["call_id"]), item["call_id"]
            if "id" in item:
                assert item["id"].startswith("fc_") and ID_PART.match(item["id"]), item["id"]
            open_calls.append(item["call_id"])
            called.add(item["call_id"])
        elif kind == "function_call_output":
            assert item["call_id"] in called, "a tool result before (or without) its call"
            assert item["call_id"] in open_calls, "a tool result answered twice"
            open_calls.remove(item["call_id"])
        elif item.get("role") == "user":
            assert not open_calls, "a user turn before every pending call got a result"
    assert not open_calls


def _google_check(contents: list[dict[str, Any]], needs_ids: bool) -> None:
    open_calls: list[str] = []
    for content in contents:
        if content["role"] == "model":
            assert not open_calls, "a model turn before every pending call got a response"
            for part in content["parts"]:
                if "functionCall" in part:
                    call = part["functionCall"]
                    if needs_ids:
                        assert ID_PART.match(call["id"]), call["id"]
                    open_calls.append(call["id"] if needs_ids else call["name"])
        else:
            responses = [part["functionResponse"] for part in content["parts"] if "functionResponse" in part]
            tool_images = (
                content["parts"][0].get("text") == "Tool result image:"
            )  # Gemini < 3 tool-result images
            if not responses and not tool_images:
                assert not open_calls, "a user turn before every pending call got a response"
            for response in responses:
                key = response["id"] if needs_ids else response["name"]
                assert key in open_calls, "a function response without a preceding call"
                open_calls.remove(key)
    assert not open_calls


@PROPERTY_SETTINGS
@given(conversations(), st.sampled_from(GOOGLE_TARGETS))
def test_google_responses_follow_calls_and_ids_are_valid(messages: list[Message], target: Model) -> None:
    contents = convert_messages(target, Context(messages=messages))
    encode(contents)
    _google_check(contents, needs_ids=target.id.startswith("gemini-3"))
