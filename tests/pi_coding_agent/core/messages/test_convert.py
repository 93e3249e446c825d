"""The coding agent's roles and ``convert_to_llm`` (Pi's texts; live oracle cases in tests/conformance)."""

from __future__ import annotations

import msgspec
import pytest

from pi_agent import OpaqueMessage, agent_message_from_dict, decode_agent_message, role_binding
from pi_ai import ImageContent, TextContent, ToolResultMessage, UserMessage, encode, to_builtins
from pi_coding_agent.core.messages import (
    BRANCH_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    IMAGE_BLOCKED_TEXT,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomRoleMessage,
    bash_execution_to_text,
    convert_to_llm,
    converter,
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
    iso_to_ms,
    replace_images,
)


def bash(**fields: object) -> BashExecutionMessage:
    base: dict[str, object] = {
        "command": "make",
        "output": "ok",
        "cancelled": False,
        "truncated": False,
        "timestamp": 5,
    }
    base.update(fields)
    return BashExecutionMessage(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        ({"exit_code": 0}, "Ran `make`\n```\nok\n```"),
        ({"output": "", "exit_code": 0}, "Ran `make`\n(no output)"),
        ({"output": "err", "exit_code": 2}, "Ran `make`\n```\nerr\n```\n\nCommand exited with code 2"),
        ({"output": "partial", "cancelled": True}, "Ran `make`\n```\npartial\n```\n\n(command cancelled)"),
        (
            {"output": "x", "cancelled": True, "exit_code": 9},
            "Ran `make`\n```\nx\n```\n\n(command cancelled)",
        ),
        ({"exit_code": None}, "Ran `make`\n```\nok\n```"),
        (
            {"output": "tail", "exit_code": 1, "truncated": True, "full_output_path": "/tmp/pi-bash-abc.log"},
            "Ran `make`\n```\ntail\n```\n\nCommand exited with code 1\n\n[Output truncated. Full output: /tmp/pi-bash-abc.log]",
        ),
        ({"exit_code": 0, "truncated": True}, "Ran `make`\n```\nok\n```"),
    ],
)
def test_bash_execution_text(fields: dict[str, object], text: str) -> None:
    assert bash_execution_to_text(bash(**fields)) == text


def test_roles_are_registered_and_round_trip_with_pi_key_order() -> None:
    for role in ("bashExecution", "custom", "branchSummary", "compactionSummary"):
        binding = role_binding(role)
        assert binding is not None and binding.owner == "pi_coding_agent" and binding.to_llm is not None
    raw = (
        b'{"role":"bashExecution","command":"ls","output":"a","exitCode":null,"cancelled":true,'
        b'"truncated":false,"timestamp":1,"excludeFromContext":false}'
    )
    message = decode_agent_message(raw)
    assert isinstance(message, BashExecutionMessage)
    assert message.exit_code is None
    assert encode(message) == raw
    absent = encode(bash(exit_code=msgspec.UNSET))
    assert b"exitCode" not in absent and b"excludeFromContext" not in absent
    custom = agent_message_from_dict(
        {
            "role": "custom",
            "customType": "t",
            "content": "c",
            "display": False,
            "details": {"a": 1},
            "timestamp": 2,
        }
    )
    assert isinstance(custom, CustomRoleMessage)
    assert (
        encode(custom)
        == b'{"role":"custom","customType":"t","content":"c","display":false,"details":{"a":1},"timestamp":2}'
    )


def test_convert_to_llm_projects_each_role_and_keeps_order() -> None:
    user = UserMessage(content="hi", timestamp=1)
    messages = [
        user,
        bash(exit_code=0),
        bash(exit_code=0, exclude_from_context=True),
        CustomRoleMessage(custom_type="x", content="hidden but sent", display=False, timestamp=3),
        CustomRoleMessage(
            custom_type="x",
            content=[TextContent(text="a"), ImageContent(data="AA==", mime_type="image/png")],
            display=True,
            timestamp=4,
        ),
        BranchSummaryMessage(summary="went elsewhere", from_id="abc", timestamp=6),
        CompactionSummaryMessage(summary="s", tokens_before=10, timestamp=7),
        OpaqueMessage({"role": "somethingElse", "timestamp": 8}),
    ]
    converted = convert_to_llm(messages)
    assert converted[0] is user
    assert [m.timestamp for m in converted] == [1, 5, 3, 4, 6, 7]
    assert to_builtins(converted[1]) == {
        "role": "user",
        "content": [{"type": "text", "text": "Ran `make`\n```\nok\n```"}],
        "timestamp": 5,
    }
    assert to_builtins(converted[2])["content"] == [{"type": "text", "text": "hidden but sent"}]
    assert len(converted[3].content) == 2
    assert converted[4].content[0].text == BRANCH_SUMMARY_PREFIX + "went elsewhere</summary>"  # type: ignore[union-attr]
    assert converted[5].content[0].text.endswith("s" + COMPACTION_SUMMARY_SUFFIX)  # type: ignore[union-attr]


def test_block_images_replaces_and_collapses_without_mutating() -> None:
    image = ImageContent(data="AA==", mime_type="image/png")
    user = UserMessage(
        content=[TextContent(text="look"), image, image, TextContent(text="and"), image], timestamp=1
    )
    result = ToolResultMessage(
        tool_call_id="c",
        tool_name="read",
        content=[image],
        details={"path": "a.png"},
        is_error=False,
        timestamp=2,
    )
    plain = UserMessage(
        content=[TextContent(text=IMAGE_BLOCKED_TEXT), TextContent(text=IMAGE_BLOCKED_TEXT)], timestamp=3
    )
    converted = convert_to_llm([user, result, plain], block_images=True)
    assert [block.text for block in converted[0].content] == [
        "look",
        IMAGE_BLOCKED_TEXT,
        "and",
        IMAGE_BLOCKED_TEXT,
    ]  # type: ignore[union-attr]
    assert to_builtins(converted[1])["content"] == [{"type": "text", "text": IMAGE_BLOCKED_TEXT}]
    assert to_builtins(converted[1])["details"] == {"path": "a.png"}
    assert converted[2] is plain  # no image: untouched, duplicates kept
    assert user.content[1] is image and len(user.content) == 5
    assert convert_to_llm([user])[0] is user
    assert replace_images([UserMessage(content="text", timestamp=1)])[0].content == "text"


def test_converter_reads_the_setting_on_every_call() -> None:
    blocked = [False]
    convert = converter(lambda: blocked[0])
    message = UserMessage(content=[ImageContent(data="AA==", mime_type="image/png")], timestamp=1)
    assert convert([message])[0] is message
    blocked[0] = True
    assert to_builtins(convert([message])[0])["content"] == [{"type": "text", "text": IMAGE_BLOCKED_TEXT}]


def test_factories_turn_entry_times_into_milliseconds() -> None:
    stamp = "2026-11-30T09:08:28.653Z"
    assert iso_to_ms(stamp) == 1796029708653
    assert create_branch_summary_message("s", "root", stamp).timestamp == 1796029708653
    assert create_compaction_summary_message("s", 3, stamp).tokens_before == 3
    message = create_custom_message("t", "c", True, msgspec.UNSET, stamp)
    assert to_builtins(message) == {
        "role": "custom",
        "customType": "t",
        "content": "c",
        "display": True,
        "timestamp": 1796029708653,
    }
    assert iso_to_ms("not a date") is None


def test_system_messages_are_kept_in_place_only_when_asked() -> None:
    """For a model that takes system messages mid-conversation the session asks for them (Pi 1.6's
    ``convertToLlm`` keeps them); otherwise they are left out, the request's prompt carrying them."""
    import pi_ai
    from pi_coding_agent.core.messages import SystemMessage

    declared = SystemMessage(content="", sections={"a": "One."}, tools_added=[{"name": "read"}], timestamp=1)
    messages = [declared, UserMessage(content="hi", timestamp=2), bash(exclude_from_context=True)]
    assert [m.role for m in convert_to_llm(messages)] == ["user"]
    kept = convert_to_llm(messages, system_messages=True)
    assert [m.role for m in kept] == ["system", "user"]
    # One class for the whole stack: the transcript's message is what pi-ai gets, the same object.
    assert SystemMessage is pi_ai.SystemMessage
    assert kept[0] is declared
