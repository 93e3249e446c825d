"""Compaction over the edited context (Pi 1.6): what a ``context_edit`` hides is neither
summarized nor counted, a replaced message is summarized in its replacement words, and a
usage reported before an edit no longer stands for the context's size."""

from __future__ import annotations

from typing import Any

from pi_ai import AssistantMessage, TextContent, Usage, UserMessage, content_text
from pi_coding_agent.core.compaction import prepare_compaction
from pi_coding_agent.core.messages import SystemMessage
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import CompactionSettings

KEEP_LAST = CompactionSettings(keep_recent_tokens=5)


def _assistant(text: str, tokens: int = 0) -> AssistantMessage:
    usage = Usage(input=tokens, total_tokens=tokens)
    return AssistantMessage(
        content=[TextContent(text=text)],
        api="x",
        provider="p",
        model="m",
        usage=usage,
        stop_reason="stop",
        timestamp=1,
    )  # type: ignore[arg-type]


def _user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=1)


def _texts(messages: list[Any]) -> list[str]:
    return [content_text(m.content) if not isinstance(m.content, str) else m.content for m in messages]


def _session(tmp_path: Any) -> tuple[SessionManager, dict[str, str]]:
    manager = SessionManager.in_memory(str(tmp_path))
    ids = {}
    for name, message in [
        ("u1", _user("one")),
        ("a1", _assistant("answer one", 50)),
        ("u2", _user("secret")),
        ("a2", _assistant("answer two " * 30, 80)),
        ("u3", _user("three")),
    ]:
        ids[name] = manager.append_message(message)
    return manager, ids


def test_hidden_and_replaced_messages_are_summarized_as_edited(tmp_path: Any) -> None:
    manager, ids = _session(tmp_path)
    manager.append_context_edit(ids["u2"], None)
    manager.append_context_edit(ids["a2"], {"content": "short"})
    manager.append_message(_assistant("answer three", 90))
    preparation = prepare_compaction(manager.get_branch(), KEEP_LAST)
    assert preparation is not None
    assert _texts(preparation.messages_to_summarize) == ["one", "answer one", "short"]
    # The last answer comes after both edits: its usage stands for the edited context.
    assert preparation.tokens_before == 90


def test_a_usage_reported_before_an_edit_is_not_trusted(tmp_path: Any) -> None:
    manager, ids = _session(tmp_path)
    manager.append_message(_assistant("answer three", 900))
    manager.append_context_edit(ids["a2"], {"content": "short"})
    preparation = prepare_compaction(manager.get_branch(), KEEP_LAST)
    assert preparation is not None
    # Every message estimated: one(1) answer one(3) secret(2) short(2) three(2) answer three(3).
    assert preparation.tokens_before == 13


def test_hidden_messages_weigh_nothing_at_the_cut(tmp_path: Any) -> None:
    manager, ids = _session(tmp_path)
    manager.append_message(_assistant("answer three", 90))
    settings = CompactionSettings(keep_recent_tokens=80)
    before = prepare_compaction(manager.get_branch(), settings)
    # The long second answer fills the recent tokens: the cut falls inside the second turn.
    assert before is not None and before.is_split_turn
    assert _texts(before.turn_prefix_messages) == ["secret"]
    manager.append_context_edit(ids["a2"], None)
    # Hidden, it weighs nothing: everything fits the recent tokens, nothing to compact.
    assert prepare_compaction(manager.get_branch(), settings) is None


def test_system_messages_count_once_when_estimated(tmp_path: Any) -> None:
    manager, ids = _session(tmp_path)
    manager.append_message(SystemMessage(content="p" * 40, sections={"a": "s" * 8}, timestamp=1))
    manager.append_context_edit(ids["u2"], None)
    preparation = prepare_compaction(manager.get_branch(), KEEP_LAST)
    assert preparation is not None
    assert all(m.role != "system" for m in preparation.messages_to_summarize)
    # 48 prompt characters (12 tokens) + one(1) answer one(3) answer two...(83) three(2).
    assert preparation.tokens_before == 12 + 1 + 3 + 83 + 2
