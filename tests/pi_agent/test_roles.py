"""The open AgentMessage union: registration, decoding, opaque round trips, projection."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_agent import (
    AgentMessage,
    CustomMessage,
    OpaqueMessage,
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
from pi_agent._roles import IncrementalLlmFilter
from pi_ai import AssistantMessage, DecodeError, TextContent, UserMessage, encode


class Ping(CustomMessage, tag="test_ping", kw_only=True):
    text: str
    timestamp: int


class Pair(CustomMessage, tag="test_pair", kw_only=True):
    left: str
    right: str
    timestamp: int


class OtherPing(CustomMessage, tag="test_ping", kw_only=True):
    body: str


@pytest.fixture(autouse=True)
def roles() -> Iterator[None]:
    register_role(Ping, owner="tests", to_llm=lambda m: UserMessage(content=m.text, timestamp=m.timestamp),
                  render=lambda m: f"ping: {m.text}")
    register_role(Pair, owner="tests", to_llm=lambda m: [UserMessage(content=m.left, timestamp=m.timestamp),
                                                         UserMessage(content=m.right, timestamp=m.timestamp)])
    yield
    unregister_role("test_ping")
    unregister_role("test_pair")


def test_role_comes_from_the_tag_and_registration_is_listed() -> None:
    ping = Ping(text="hi", timestamp=1)
    assert ping.role == "test_ping" == Ping.role
    assert {"test_ping", "test_pair"} <= set(registered_roles())
    binding = role_binding("test_ping")
    assert binding is not None and binding.owner == "tests" and binding.render is not None
    assert binding.render(ping) == "ping: hi"


def test_conflicting_registration_names_both_classes() -> None:
    with pytest.raises(RoleConflictError) as caught:
        register_role(OtherPing, owner="other_pkg")
    text = str(caught.value)
    assert "tests" in text and "other_pkg" in text and "Ping" in text and "OtherPing" in text
    register_role(Ping, owner="tests")  # the same class again is fine
    with pytest.raises(RoleConflictError, match="belongs to pi_ai"):
        class Fake(CustomMessage, tag="user", kw_only=True):
            text: str

        register_role(Fake, owner="tests")


def test_decoding_picks_the_registered_class_and_names_bad_fields() -> None:
    decoded = decode_agent_message(b'{"role":"test_ping","text":"hi","timestamp":5}')
    assert decoded == Ping(text="hi", timestamp=5)
    assert agent_message_from_dict({"role": "test_ping", "text": "x", "timestamp": 1}) == Ping(text="x", timestamp=1)
    with pytest.raises(DecodeError, match=r"\$\.text"):
        decode_agent_message(b'{"role":"test_ping","text":3,"timestamp":5}')
    assert isinstance(decode_agent_message(b'{"role":"user","content":"x","timestamp":1}'), UserMessage)


def test_unknown_roles_are_kept_verbatim_and_never_reach_the_model() -> None:
    raw = b'{"role":"fromTheFuture","payload":{"a":[1,2]},"timestamp":9}'
    message = decode_agent_message(raw)
    assert isinstance(message, OpaqueMessage) and message.role == "fromTheFuture"
    assert encode(message) == raw
    assert agent_message_from_dict({"role": "fromTheFuture", "x": 1}) == OpaqueMessage({"role": "fromTheFuture", "x": 1})
    assert project_to_llm([message]) == [] and default_convert_to_llm([message]) == []


def test_projection_maps_each_role_and_keeps_order() -> None:
    assistant = AssistantMessage(content=[TextContent(text="a")], api="x", provider="x", model="x",
                                 stop_reason="stop", timestamp=2)
    messages = [Ping(text="p", timestamp=1), assistant, Pair(left="l", right="r", timestamp=3)]
    assert project_to_llm(messages) == [UserMessage(content="p", timestamp=1), assistant,
                                        UserMessage(content="l", timestamp=3), UserMessage(content="r", timestamp=3)]
    assert default_convert_to_llm(messages) == [assistant]


def test_a_role_without_projection_is_invisible_to_the_model() -> None:
    register_role(Ping, owner="tests")  # re-register without to_llm
    assert project_to_llm([Ping(text="p", timestamp=1)]) == []


@given(st.lists(st.tuples(st.sampled_from(["user", "ping", "opaque", "replace", "truncate", "fresh"]),
                          st.integers(0, 30)), max_size=40))
def test_the_incremental_filter_always_equals_the_plain_one(operations: list[tuple[str, int]]) -> None:
    """Whatever happens to the transcript between calls, the result is default_convert_to_llm's."""
    register_role(Ping, owner="tests")
    incremental = IncrementalLlmFilter()
    transcript: list[AgentMessage] = []
    for operation, number in operations:
        if operation == "user":
            transcript.append(UserMessage(content=str(number), timestamp=number))
        elif operation == "ping":
            transcript.append(Ping(text=str(number), timestamp=number))
        elif operation == "opaque":
            transcript.append(OpaqueMessage({"role": "other", "n": number}))
        elif operation == "replace" and transcript:
            index = number % len(transcript)
            transcript[index] = Ping(text="swapped", timestamp=0) if number % 2 else UserMessage(content="u", timestamp=0)
        elif operation == "truncate":
            del transcript[number % (len(transcript) + 1):]
        elif operation == "fresh":
            transcript = list(transcript)
        got = incremental(transcript)
        expected = default_convert_to_llm(transcript)
        assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected, strict=True))
