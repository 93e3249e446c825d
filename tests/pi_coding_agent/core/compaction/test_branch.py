"""Branch summaries: what is collected, what the model is asked, and how answers are judged."""

from __future__ import annotations

from typing import Any

from pi_ai import (
    AssistantMessage,
    Context,
    Model,
    SimpleStreamOptions,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
    stream_simple,
)
from pi_ai.faux import FauxModelSpec, faux_assistant_message, faux_tool_call, register_faux_provider
from pi_coding_agent.core.compaction import (
    SummaryRequest,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    prepare_branch_entries,
)
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import RetrySettings


def _user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=0)


def _assistant(content: list[Any]) -> AssistantMessage:
    return AssistantMessage(content=content, api="x", provider="x", model="x", usage=Usage(), stop_reason="stop",
                            timestamp=0)


def test_collects_back_to_the_common_ancestor() -> None:
    manager = SessionManager.in_memory("/tmp")
    root = manager.append_message(_user("root"))
    shared = manager.append_message(_assistant([TextContent(text="shared")]))
    left = [manager.append_message(_user("left")), manager.append_message(_assistant([TextContent(text="l")]))]
    manager.branch(shared)
    right = manager.append_message(_user("right"))
    collected = collect_entries_for_branch_summary(manager, left[-1], right)
    assert collected.common_ancestor_id == shared
    assert [e.id for e in collected.entries] == left
    assert collect_entries_for_branch_summary(manager, None, root).entries == []
    # Moving up to an ancestor leaves behind everything below it.
    up = collect_entries_for_branch_summary(manager, right, root)
    assert (up.common_ancestor_id, [e.id for e in up.entries]) == (root, [shared, right])


async def test_the_request_and_the_retry_events() -> None:
    faux = register_faux_provider(
        api="faux-branch-test", models=[FauxModelSpec(id="small", reasoning=True, max_tokens=1000)]
    )
    seen: list[tuple[Context, SimpleStreamOptions]] = []

    def recording(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
        seen.append((context, options))
        return stream_simple(model, context, options)

    try:
        faux.set_responses(
            [
                faux_assistant_message([], stop_reason="error", error_message="503 overloaded"),
                faux_assistant_message("## Goal\nread things"),
            ]
        )
        manager = SessionManager.in_memory("/tmp")
        start = manager.append_message(_user("start"))
        manager.append_message(_user("read a.txt"))
        manager.append_message(_assistant([faux_tool_call("read", {"path": "a.txt"})]))
        manager.append_message(
            ToolResultMessage(tool_call_id="c", tool_name="read", content=[TextContent(text="SECRET TOOL OUTPUT")],
                              is_error=False, timestamp=0)
        )
        collected = collect_entries_for_branch_summary(manager, manager.get_leaf_id(), start)
        events: list[tuple[str, dict[str, Any]]] = []
        request = SummaryRequest(
            model=faux.get_model(),
            stream_fn=recording,
            thinking_level="off",
            retry=RetrySettings(enabled=True, max_retries=1, base_delay_ms=1),
            on_retry_event=lambda kind, fields: events.append((kind, fields)),
            source="branchSummary",
        )
        result = await generate_branch_summary(collected.entries, request, reserve_tokens=100)
    finally:
        faux.unregister()
    assert result.error is None and not result.aborted
    assert result.read_files == ["a.txt"] and result.modified_files == []
    assert result.summary.endswith("## Goal\nread things\n\n<read-files>\na.txt\n</read-files>")
    context, options = seen[-1]
    prompt = context.messages[0]
    assert isinstance(prompt, UserMessage) and isinstance(prompt.content, list)
    text = prompt.content[0].text  # type: ignore[union-attr]
    assert text.startswith("<conversation>\n[User]: read a.txt") and "SECRET TOOL OUTPUT" not in text
    assert options.max_tokens is None and options.reasoning is None and options.cache_retention == "none"
    assert [kind for kind, _ in events] == [
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
    ]
    assert events[1][1] == {"source": "branchSummary"}


async def test_failures_are_reported_not_raised() -> None:
    faux = register_faux_provider(api="faux-branch-fail")
    try:
        manager = SessionManager.in_memory("/tmp")
        manager.append_message(_user("something"))
        entries = manager.get_branch()
        request = SummaryRequest(model=faux.get_model(), stream_fn=stream_simple, thinking_level="off",
                                 retry=RetrySettings(enabled=False), source="branchSummary")
        faux.set_responses([faux_assistant_message([], stop_reason="error", error_message="invalid api key")])
        failed = await generate_branch_summary(entries, request, reserve_tokens=100)
        assert failed.error == "Branch summarization failed: invalid api key"
        faux.set_responses([faux_assistant_message([faux_tool_call("read", {"path": "x"})])])
        tool = await generate_branch_summary(entries, request, reserve_tokens=100)
        assert tool.error == "Branch summarization attempted to call a tool"
        empty = await generate_branch_summary([], request, reserve_tokens=100)
        assert empty.summary == "No content to summarize" and empty.usage is None
    finally:
        faux.unregister()


def test_the_branch_is_summarized_as_its_context_edits_left_it() -> None:
    """Pi 1.6: hidden entries drop out, replaced ones read as their replacement, the latest
    edit of a target wins, and a compaction shows its summary."""
    manager = SessionManager.in_memory("/tmp")
    shared = manager.append_message(_user("shared"))
    question = manager.append_message(_user("hidden question"))
    answer = manager.append_message(_assistant([TextContent(text="original answer")]))
    manager.append_context_edit(question, None)
    manager.append_context_edit(answer, {"content": "first replacement"})
    manager.append_context_edit(answer, {"content": "latest replacement"})
    manager.append_compaction("the summary so far", answer, 10)
    leaf = manager.append_message(_user("after"))
    collected = collect_entries_for_branch_summary(manager, leaf, shared)
    prepared = prepare_branch_entries(collected.entries)
    assert [(m.role, getattr(m, "content", getattr(m, "summary", None))) for m in prepared.messages] == [
        ("assistant", [TextContent(text="latest replacement")]),
        ("compactionSummary", "the summary so far"),
        ("user", [TextContent(text="after")]),
    ]
