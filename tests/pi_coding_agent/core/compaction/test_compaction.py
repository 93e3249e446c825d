"""Compaction pieces: token estimates, cut points, serialization, file lists, summary calls."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from pi_ai import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    content_text,
)
from pi_ai.faux import faux_assistant_message, register_faux_provider
from pi_coding_agent.core.compaction import (
    FileOperations,
    SummarizationError,
    SummaryRequest,
    compact,
    estimate_context_tokens,
    estimate_tokens,
    find_cut_point,
    format_file_operations,
    prepare_compaction,
    serialize_conversation,
    should_compact,
)
from pi_coding_agent.core.messages import BashExecutionMessage
from pi_coding_agent.core.session import SessionManager, build_session_projection
from pi_coding_agent.core.settings import CompactionSettings, RetrySettings


def _assistant(content: list[Any], *, usage: Usage | None = None, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=content, api="x", provider="p", model="m", usage=usage or Usage(), stop_reason=stop, timestamp=1
    )  # type: ignore[arg-type]


def _user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=1)


def test_token_estimates_count_utf16_units() -> None:
    assert estimate_tokens(_user("abcd" * 10)) == 10
    assert estimate_tokens(_user("😀" * 2)) == 1  # 4 UTF-16 units
    assert estimate_tokens(UserMessage(content=[ImageContent(data="", mime_type="image/png")], timestamp=1)) == 1200
    call = ToolCall(id="1", name="read", arguments={"path": "a.py"})
    assert estimate_tokens(_assistant([call])) == -(-(len("read") + len('{"path":"a.py"}')) // 4)
    assert estimate_tokens(_assistant([ThinkingContent(thinking="x" * 7)])) == 2
    bash = BashExecutionMessage(command="ls", output="a" * 10, cancelled=False, truncated=False, timestamp=1)
    assert estimate_tokens(bash) == 3


def test_context_estimate_uses_the_last_valid_usage() -> None:
    used = _assistant([TextContent(text="ok")], usage=Usage(input=100, output=20, total_tokens=120))
    failed = _assistant([], usage=Usage(input=999, total_tokens=999), stop="error")
    estimate = estimate_context_tokens([_user("a" * 40), used, _user("b" * 40), failed])
    assert (estimate.tokens, estimate.usage_tokens, estimate.last_usage_index) == (120 + 10, 120, 1)
    assert estimate_context_tokens([_user("a" * 40)]).last_usage_index is None
    settings = CompactionSettings(enabled=True, reserve_tokens=100, keep_recent_tokens=10)
    assert should_compact(901, 1000, settings) and not should_compact(900, 1000, settings)
    assert not should_compact(5000, 1000, CompactionSettings(enabled=False))


def test_serialization_labels_and_truncates_tool_results() -> None:
    text = serialize_conversation(
        [
            _user("question"),
            _assistant(
                [
                    ThinkingContent(thinking="hmm"),
                    TextContent(text="let me look"),
                    ToolCall(id="1", name="read", arguments={"path": "a.py", "limit": 5}),
                ]
            ),
            ToolResultMessage(
                tool_call_id="1", tool_name="read", content=[TextContent(text="é" * 2500)], is_error=False, timestamp=1
            ),
        ]
    )
    parts = text.split("\n\n")
    assert parts[:3] == [  # thinking is left out, as Pi 1.6
        "[User]: question",
        "[Assistant]: let me look",
        '[Assistant tool calls]: read(path="a.py", limit=5)',
    ]
    assert parts[3] == "[Tool result]: " + "é" * 2000
    assert parts[4] == "[... 500 more characters truncated]"


def test_file_lists_and_formatting() -> None:
    ops = FileOperations()
    ops.add_from(
        _assistant(
            [
                ToolCall(id="1", name="read", arguments={"path": "b.py"}),
                ToolCall(id="2", name="read", arguments={"path": "a.py"}),
                ToolCall(id="3", name="edit", arguments={"path": "a.py"}),
                ToolCall(id="4", name="write", arguments={"path": "Z.py"}),
                ToolCall(id="5", name="bash", arguments={"path": "ignored"}),
            ]
        )
    )
    read, modified = ops.lists()
    assert (read, modified) == (["b.py"], ["Z.py", "a.py"])
    assert format_file_operations(read, modified) == (
        "\n\n<read-files>\nb.py\n</read-files>\n\n<modified-files>\nZ.py\na.py\n</modified-files>"
    )
    assert format_file_operations([], []) == ""


def _branch(tmp_path: Any, messages: list[Any]) -> SessionManager:
    manager = SessionManager.in_memory(str(tmp_path))
    manager.append_model_change("p", "m")
    manager.append_thinking_level_change("off")
    for message in messages:
        manager.append_message(message)
    return manager


def test_cut_point_splits_a_long_turn(tmp_path: Any) -> None:
    long_result = ToolResultMessage(
        tool_call_id="1", tool_name="read", content=[TextContent(text="r" * 400)], is_error=False, timestamp=1
    )
    manager = _branch(
        tmp_path,
        [
            _user("u" * 400),
            _assistant([ToolCall(id="1", name="read", arguments={"path": "x"})]),
            long_result,
            _assistant([TextContent(text="a" * 400)]),
        ],
    )
    entries = manager.get_branch()
    cut = find_cut_point(build_session_projection(entries), 0, len(entries), keep_recent_tokens=50)
    assert (cut.first_kept_entry_index, cut.turn_start_index, cut.is_split_turn) == (5, 2, True)
    preparation = prepare_compaction(entries, CompactionSettings(keep_recent_tokens=50))
    assert preparation is not None
    assert preparation.is_split_turn and preparation.messages_to_summarize == []
    assert [m.role for m in preparation.turn_prefix_messages] == ["user", "assistant", "toolResult"]
    assert preparation.file_ops.read == {"x"}
    # Everything fits: nothing to summarize.
    assert prepare_compaction(entries, CompactionSettings(keep_recent_tokens=100_000)) is None


async def test_summary_calls_retry_and_report_failures() -> None:
    faux = register_faux_provider(api="faux-compaction-test")
    try:
        faux.set_responses(
            [
                faux_assistant_message([], stop_reason="error", error_message="503 overloaded"),
                faux_assistant_message("## Goal\nx"),
            ]
        )
        from pi_ai import stream_simple

        events: list[tuple[str, dict[str, Any]]] = []
        request = SummaryRequest(
            model=faux.get_model(),
            stream_fn=stream_simple,
            thinking_level="off",
            retry=RetrySettings(enabled=True, max_retries=2, base_delay_ms=1),
            on_retry_event=lambda kind, fields: events.append((kind, fields)),
        )
        manager = _branch(".", [_user("a" * 400), _assistant([TextContent(text="b")]), _user("c" * 400)])
        preparation = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=50))
        assert preparation is not None
        result = await compact(preparation, request)
        assert result.summary == "## Goal\nx"
        assert [kind for kind, _ in events] == [
            "summarization_retry_scheduled",
            "summarization_retry_attempt_start",
            "summarization_retry_finished",
        ]
        assert events[0][1] == {"attempt": 1, "maxAttempts": 2, "delayMs": 1, "errorMessage": "503 overloaded"}
        assert events[1][1] == {"source": "compaction", "reason": "threshold"}
        faux.set_responses([faux_assistant_message([], stop_reason="error", error_message="invalid api key")])
        with pytest.raises(SummarizationError, match="Summarization failed: invalid api key"):
            await compact(preparation, request)
        faux.set_responses([faux_assistant_message("cut short", stop_reason="length")])
        with pytest.raises(SummarizationError, match="token cap"):
            await asyncio.wait_for(compact(preparation, request), 5)
    finally:
        faux.unregister()


async def test_a_split_turn_is_summarized_in_pi_1_6s_frame(tmp_path: Any) -> None:
    """Pi 1.6 frames the turn-prefix request ``# Conversation`` / ``# Instructions`` (0.85:
    ``<conversation>`` tags), adds ``/compact``'s focus there too, leaves thinking out of the
    transcript, and keeps the previous summary as the history when nothing precedes the turn."""
    prompts: list[str] = []

    def answer(text: str) -> Any:
        def respond(context: Any, options: Any, state: Any, model: Any) -> Any:
            prompts.append(content_text(context.messages[0].content))
            return faux_assistant_message(text)

        return respond

    faux = register_faux_provider(api="faux-split-turn-test")
    try:
        faux.set_responses([answer("prefix summary")])
        from pi_ai import stream_simple

        request = SummaryRequest(model=faux.get_model(), stream_fn=stream_simple, thinking_level="off",
                                 retry=RetrySettings(enabled=False), custom_instructions="the parser")
        manager = _branch(tmp_path, [
            _user("u" * 400),
            _assistant([ThinkingContent(thinking="secret reasoning"), ToolCall(id="1", name="read", arguments={"path": "x"})]),
            ToolResultMessage(tool_call_id="1", tool_name="read", content=[TextContent(text="r" * 400)],
                              is_error=False, timestamp=1),
            _assistant([TextContent(text="a" * 400)]),
        ])
        preparation = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=50))
        assert preparation is not None and preparation.is_split_turn
        preparation = dataclasses.replace(preparation, previous_summary="## Goal\nearlier")
        result = await compact(preparation, request)
    finally:
        faux.unregister()
    [prompt] = prompts
    assert prompt.startswith("# Conversation\n[User]: " + "u" * 400)
    assert "\n\n# Instructions\n" in prompt and "<conversation>" not in prompt
    for heading in ("## Original Request", "## Progress So Far", "## Context Needed to Continue"):
        assert heading in prompt
    assert prompt.endswith("\n\nAdditional focus: the parser")
    assert "secret reasoning" not in prompt
    assert result.summary.startswith("## Goal\nearlier\n\n---\n\n**Turn Context (split turn):**\n\nprefix summary")
