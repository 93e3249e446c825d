"""The AgentSession runtime API: queues, abort, models and thinking, settings switches, manual
compaction, statistics, names. A faux model answers in-process; answers that must wait for
the test are gated callables, so no test depends on timing."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pi_ai import AssistantMessage, Context, StreamOptions, TextContent, UserMessage
from pi_ai.faux import FauxProvider, FauxState, faux_assistant_message, faux_tool_call
from pi_coding_agent.core.model_registry import ScopedModel
from pi_coding_agent.runtime.agent_session import (
    CompactionError,
    ModelChangeError,
    SessionError,
)
from tests.pi_coding_agent.runtime.agent_session._support import (
    Env,
    answer_after_abort,
    file_lines,
    make_session,
    models_json,
    record_events,
    write_settings,
)


def _gated(text: str, gate: asyncio.Event, seen: list[Context] | None = None) -> Any:
    """An answer that is produced only once ``gate`` is set (the run stays active until then)."""

    async def answer(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
        if seen is not None:
            seen.append(context)
        await gate.wait()
        return faux_assistant_message(text)

    return answer


def _recording(text: str, seen: list[Context]) -> Any:
    def answer(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
        seen.append(context)
        return faux_assistant_message(text)

    return answer


def _user_texts(context: Context) -> list[str]:
    texts = []
    for message in context.messages:
        if isinstance(message, UserMessage) and isinstance(message.content, list):
            texts.append("".join(b.text for b in message.content if isinstance(b, TextContent)))
    return texts


async def _until(predicate: Any) -> None:
    for _ in range(2000):
        if predicate():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("condition not reached")


def _two_models(env: Env) -> None:
    models = models_json({"id": "faux-1", "contextWindow": 100000},
                         {"id": "faux-think", "reasoning": True, "contextWindow": 100000})
    (env.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")


async def test_prompt_while_streaming_needs_a_behaviour_and_queues(env: Env, faux: FauxProvider) -> None:
    gate = asyncio.Event()
    seen: list[Context] = []
    faux.set_responses(
        [_gated("first", gate, seen), _recording("after steer", seen), _recording("after follow-up", seen)]
    )
    session = make_session(env, write_settings(env))
    events = record_events(session)
    run = asyncio.create_task(session.prompt("start"))
    await _until(lambda: seen)
    assert session.is_streaming and not session.is_idle
    with pytest.raises(SessionError, match="Specify streamingBehavior"):
        await session.prompt("no behaviour")
    accepted: list[str] = []
    await session.prompt("go left", streaming_behavior="steer", on_accepted=accepted.append)
    await session.prompt("then summarize", streaming_behavior="followUp", on_accepted=accepted.append)
    assert accepted == ["queued", "queued"]  # the disposition (Pi 1.6's RPC data.disposition)
    assert session.get_steering_messages() == ["go left"]
    assert session.get_follow_up_messages() == ["then summarize"]
    assert session.pending_message_count == 2
    gate.set()
    await run
    queue_updates = [e for e in events if e["type"] == "queue_update"]
    assert queue_updates == [
        {"type": "queue_update", "steering": ["go left"], "followUp": []},
        {"type": "queue_update", "steering": ["go left"], "followUp": ["then summarize"]},
        {"type": "queue_update", "steering": [], "followUp": ["then summarize"]},
        {"type": "queue_update", "steering": [], "followUp": []},
    ]
    # Each queued message reached the model in turn, after the answer it was queued behind.
    assert _user_texts(seen[1]) == ["start", "go left"]
    assert _user_texts(seen[2]) == ["start", "go left", "then summarize"]
    assert session.pending_message_count == 0 and session.is_idle
    roles = [line["message"]["role"] for line in file_lines(session) if line["type"] == "message"]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert [e["type"] for e in events].count("agent_settled") == 1


async def test_clear_queue_returns_the_texts_and_nothing_is_delivered(env: Env, faux: FauxProvider) -> None:
    gate = asyncio.Event()
    seen: list[Context] = []
    faux.set_responses([_gated("only answer", gate, seen)])
    session = make_session(env, write_settings(env))
    run = asyncio.create_task(session.prompt("start"))
    await _until(lambda: seen)
    await session.steer("steer me")
    await session.follow_up("later")
    assert session.clear_queue() == (["steer me"], ["later"])
    gate.set()
    await run
    assert len(seen) == 1 and session.pending_message_count == 0
    assert [m.role for m in session.messages] == ["system", "user", "assistant"]


async def test_abort_stops_the_run_and_waits_until_idle(env: Env, faux: FauxProvider) -> None:
    started = asyncio.Event()
    faux.set_responses([answer_after_abort(started)])
    session = make_session(env, write_settings(env))
    events = record_events(session)
    run = asyncio.create_task(session.prompt("wait forever"))
    await started.wait()
    await session.abort()
    assert session.is_idle and events[-1] == {"type": "agent_settled", "aborted": True}
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "aborted"
    await run
    assert session.get_last_assistant_text() is None


async def test_models_thinking_levels_and_cycling(env: Env, faux: FauxProvider) -> None:
    _two_models(env)
    session = make_session(env, write_settings(env, defaultThinkingLevel="high"))
    events = record_events(session)
    # The embedded models need no key, so they are available too (after the keyed ones): docs/rpc.md.
    assert [(m.provider, m.id) for m in session.available_models()] == [
        ("faux", "faux-1"), ("faux", "faux-think"), ("local", "qwen2.5-coder-1.5b"), ("local", "qwen2.5-coder-0.5b")
    ]
    assert session.available_thinking_levels() == ["off"] and session.cycle_thinking_level() is None
    thinker = session.catalog.find("faux", "faux-think")
    assert thinker is not None
    await session.set_model(thinker)
    assert session.model is thinker and session.thinking_level == "high"
    assert session.available_thinking_levels() == ["off", "minimal", "low", "medium", "high"]
    assert session.cycle_thinking_level() == "off"
    assert session.cycle_thinking_level() == "minimal"
    session.set_thinking_level("xhigh")  # not supported by this model: clamped
    assert session.thinking_level == "high"
    cycled = await session.cycle_model("backward")
    assert cycled is not None and cycled.model.id == "faux-1" and not cycled.is_scoped
    assert cycled.thinking_level == "off"
    keyless = session.catalog.find("keyless", "k-1")
    assert keyless is not None
    with pytest.raises(ModelChangeError, match="No API key for keyless/k-1"):
        await session.set_model(keyless)
    entries = [(line["type"], line.get("modelId") or line.get("thinkingLevel")) for line in session.session_manager.get_entries_data()]
    assert entries == [
        ("model_change", "faux-1"),
        ("thinking_level_change", "off"),
        ("model_change", "faux-think"),
        ("thinking_level_change", "high"),
        ("thinking_level_change", "off"),
        ("thinking_level_change", "minimal"),
        ("thinking_level_change", "high"),
        ("model_change", "faux-1"),
        ("thinking_level_change", "off"),
    ]
    levels = [e["level"] for e in events if e["type"] == "thinking_level_changed"]
    assert levels == ["high", "off", "minimal", "high", "off"]


async def test_scoped_models_cycle_with_their_own_levels(env: Env, faux: FauxProvider) -> None:
    _two_models(env)
    session = make_session(env, write_settings(env))
    first, thinker = session.catalog.find("faux", "faux-1"), session.catalog.find("faux", "faux-think")
    assert first is not None and thinker is not None
    session.scoped_models = [ScopedModel(first, None), ScopedModel(thinker, "low")]
    cycled = await session.cycle_model()
    assert cycled is not None and (cycled.model.id, cycled.thinking_level, cycled.is_scoped) == ("faux-think", "low", True)
    back = await session.cycle_model("backward")
    assert back is not None and back.model.id == "faux-1"
    session.scoped_models = [ScopedModel(first, None)]
    assert await session.cycle_model() is None


async def test_switches_are_written_to_the_global_settings(env: Env, faux: FauxProvider) -> None:
    settings = write_settings(env, retry={"maxRetries": 7})
    session = make_session(env, settings)
    session.set_steering_mode("all")
    session.set_follow_up_mode("all")
    session.set_auto_compaction_enabled(False)
    session.set_auto_retry_enabled(False)
    assert (session.steering_mode, session.follow_up_mode) == ("all", "all")
    assert session.agent.steering_mode == "all"
    assert not session.auto_compaction_enabled and not session.auto_retry_enabled
    stored = json.loads((env.agent_dir / "settings.json").read_text(encoding="utf-8"))
    assert stored == {
        "retry": {"maxRetries": 7, "enabled": False},
        "steeringMode": "all",
        "followUpMode": "all",
        "compaction": {"enabled": False},
    }


async def test_manual_compaction_with_custom_instructions(env: Env, faux: FauxProvider) -> None:
    seen: list[Context] = []
    faux.set_responses(
        [
            faux_assistant_message([faux_tool_call("read", {"path": "notes.md"})], stop_reason="toolUse"),
            faux_assistant_message("read it"),
            faux_assistant_message("second answer " * 40),
            _recording("## Goal\nsummarized", seen),
        ]
    )
    (env.work / "notes.md").write_text("notes\n", encoding="utf-8")
    session = make_session(env, write_settings(env, compaction={"keepRecentTokens": 200}), tools=["read"])
    await session.prompt("read notes.md")
    await session.prompt("and more " * 40)
    events = record_events(session)
    result = await session.compact("Focus on the notes")
    assert "Additional focus: Focus on the notes" in _user_texts(seen[0])[0]
    assert result["summary"].startswith("## Goal\nsummarized") and "<read-files>\nnotes.md" in result["summary"]
    assert result["details"] == {"readFiles": ["notes.md"], "modifiedFiles": []}
    assert [e["type"] for e in events] == ["compaction_start", "compaction_end"]
    assert events[0] == {"type": "compaction_start", "reason": "manual"}
    assert events[1]["result"] == result and not events[1]["aborted"] and not events[1]["willRetry"]
    entry = file_lines(session)[-1]
    assert entry["type"] == "compaction" and entry["firstKeptEntryId"] == result["firstKeptEntryId"]
    # The compaction's checkpoint (the prompt and tools declared so far, Pi 1.6) leads, then its summary.
    assert [m.role for m in session.messages[:2]] == ["system", "compactionSummary"]
    stats = session.get_session_stats()
    assert stats.context_usage is not None and stats.context_usage.tokens is None
    with pytest.raises(CompactionError, match="Already compacted"):
        await session.compact()
    assert events[-1]["errorMessage"] == "Compaction failed: Already compacted"


async def test_nothing_to_compact_is_an_error_event_and_exception(env: Env, faux: FauxProvider) -> None:
    session = make_session(env, write_settings(env))
    events = record_events(session)
    with pytest.raises(CompactionError, match=r"Nothing to compact \(session too small\)"):
        await session.compact()
    assert events == [
        {"type": "compaction_start", "reason": "manual"},
        {
            "type": "compaction_end",
            "reason": "manual",
            "aborted": False,
            "willRetry": False,
            "errorMessage": "Compaction failed: Nothing to compact (session too small)",
        },
    ]
    assert session.is_idle


async def test_stats_last_text_fork_points_and_name(env: Env, faux: FauxProvider) -> None:
    faux.set_responses(
        [
            faux_assistant_message([faux_tool_call("read", {"path": "a.txt"})], stop_reason="toolUse"),
            faux_assistant_message("  done reading  "),
        ]
    )
    (env.work / "a.txt").write_text("a\n", encoding="utf-8")
    session = make_session(env, write_settings(env), tools=["read"])
    events = record_events(session)
    await session.prompt("read a.txt")
    stats = session.get_session_stats()
    assert (stats.user_messages, stats.assistant_messages, stats.tool_calls, stats.tool_results) == (1, 2, 1, 1)
    assert stats.total_messages == 5  # the system message counts, as in Pi 1.6
    usage = [m.usage for m in session.messages if isinstance(m, AssistantMessage)]
    assert stats.tokens.input == sum(u.input for u in usage) and stats.tokens.output == sum(u.output for u in usage)
    data = stats.to_json()
    assert data["tokens"]["total"] == stats.tokens.total and data["cost"] == 0
    assert data["contextUsage"]["contextWindow"] == 100000 and data["contextUsage"]["tokens"] > 0
    assert session.get_last_assistant_text() == "done reading"
    points = session.get_user_messages_for_forking()
    assert [(p.text, session.session_manager.get_entry(p.entry_id) is not None) for p in points] == [("read a.txt", True)]
    session.set_session_name("  Reading\nfiles ")
    assert session.session_name == "Reading files"
    assert events[-1] == {"type": "session_info_changed", "name": "Reading files"}


async def test_export_needs_a_saved_session(env: Env, faux: FauxProvider) -> None:
    from pi_coding_agent.core.export import ExportError
    from pi_coding_agent.core.session import SessionManager

    memory = make_session(env, write_settings(env), manager=SessionManager.in_memory(str(env.work)))
    with pytest.raises(ExportError, match="Cannot export in-memory session"):
        await memory.export_to_html()
    fresh = make_session(env, write_settings(env))
    with pytest.raises(ExportError, match="Nothing to export yet"):
        await fresh.export_to_html()
