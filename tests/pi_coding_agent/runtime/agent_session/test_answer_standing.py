"""Where a failed answer stands (Pi 1.6's ``_checkCompaction`` facts): recovered only while the
model still sees it. The live behaviour is compared with Pi 1.6 in
``tests/pi_coding_agent/app/rpc/test_pi16_overflow_recovery.py``; the cases here (an answer an
edit hides, or a compaction follows) are the ones a live run reaches only through extensions."""

from __future__ import annotations

from pi_ai import AssistantMessage
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.runtime.agent_session._recovery import AnswerStanding, answer_standing
from tests.pi_coding_agent.core.session.helpers import assistant, user


def _session() -> tuple[SessionManager, AssistantMessage, str]:
    manager = SessionManager.in_memory("/tmp")
    manager.append_message(user("one"))
    failed = assistant("too long")
    entry_id = manager.append_message(failed)
    return manager, failed, entry_id


def test_an_answer_on_the_branch_stands_in_the_context() -> None:
    manager, failed, _ = _session()
    assert answer_standing(manager, failed) == AnswerStanding(True, True, False, False)
    assert answer_standing(manager, assistant("not saved")) == AnswerStanding(True, True, False, False)


def test_a_hidden_answer_is_neither_seen_nor_recovered() -> None:
    manager, failed, entry_id = _session()
    manager.append_context_edit(entry_id, None)
    assert answer_standing(manager, failed) == AnswerStanding(False, False, True, True)


def test_a_replaced_answer_is_seen_and_kept_but_its_usage_no_longer_counts() -> None:
    manager, failed, entry_id = _session()
    manager.append_context_edit(entry_id, {"content": "shorter"})
    assert answer_standing(manager, failed) == AnswerStanding(True, True, True, True)


def test_an_edit_of_another_message_only_marks_the_usage_stale() -> None:
    manager, failed, _ = _session()
    other = manager.append_message(user("two"))
    manager.append_context_edit(other, None)
    assert answer_standing(manager, failed) == AnswerStanding(True, True, True, True)


def test_a_compaction_after_the_answer_ends_its_recovery() -> None:
    manager, failed, entry_id = _session()
    manager.append_compaction("summary", entry_id, 100)
    standing = answer_standing(manager, failed)
    assert not standing.retained and not standing.edited_after
