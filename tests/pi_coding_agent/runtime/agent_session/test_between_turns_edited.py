"""Between the turns of one run the compaction threshold is checked over the session's branch as
the model will see it (context edits applied), as Pi 1.6's ``_compactBeforeNextAssistantResponse``
does, not over the live messages. A long prompt past the threshold compacts before the next call.
Shortened by a ``context_edit`` when the turn ends, the usage the answer reported (which still
measured it) is stale: 1.6 then estimates what the model will see, small, and does not compact
there; the live messages, usage first, would have. (After the run the last answer's usage,
which the faux provider counts with the cached long prompt, may still compact.)"""

from __future__ import annotations

import json
from typing import Any

from pi_ai import UserMessage
from pi_ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi_coding_agent.core.session import SessionMessageEntry
from pi_coding_agent.runtime.agent_session import AgentSession
from tests.pi_coding_agent.runtime.agent_session._support import (
    Env,
    make_session,
    models_json,
    record_events,
    write_settings,
)


def _shorten_long_prompts(session: AgentSession) -> None:
    """Shorten a long user prompt when its turn ends (what an extension may do)."""
    edited: set[str] = set()

    def on_event(event: Any) -> None:
        if getattr(event, "type", None) != "turn_end":
            return
        manager = session.session_manager
        for entry in manager.get_branch():
            message = entry.message if isinstance(entry, SessionMessageEntry) else None
            if (
                isinstance(message, UserMessage)
                and len(str(message.content)) > 1000
                and entry.id not in edited
            ):
                edited.add(entry.id)
                manager.append_context_edit(entry.id, {"content": "alpha, shortened"})

    session.subscribe(on_event)


async def _run(env: Env, faux: FauxProvider, *, shorten: bool) -> list[str]:
    (env.agent_dir / "models.json").write_text(
        json.dumps(models_json({"id": "faux-1", "contextWindow": 4000}))
    )
    (env.work / "tiny.txt").write_text("x\n", encoding="utf-8")
    faux.set_responses(
        [
            faux_assistant_message("first answer"),
            faux_assistant_message([faux_tool_call("read", {"path": "tiny.txt"})], stop_reason="toolUse"),
            faux_assistant_message("read it"),
            faux_assistant_message("## Goal\nAlpha."),
        ]
    )
    settings = write_settings(
        env, retry={"enabled": False}, compaction={"reserveTokens": 1000, "keepRecentTokens": 5}
    )
    session = make_session(env, settings, tools=["read"])
    await session.prompt("first")
    if shorten:
        _shorten_long_prompts(session)
    events = record_events(session)
    await session.prompt("alpha " * 2400)  # about 3,600 tokens, past 4,000 - 1,000
    return [event["type"] for event in events]


async def test_a_context_past_the_threshold_compacts_between_turns(env: Env, faux: FauxProvider) -> None:
    types = await _run(env, faux, shorten=False)
    assert "compaction_start" in types
    assert types.index("compaction_start") > types.index("tool_execution_end")


async def test_the_long_prompt_shortened_by_an_edit_does_not(env: Env, faux: FauxProvider) -> None:
    types = await _run(env, faux, shorten=True)
    assert "tool_execution_end" in types and types.count("turn_end") == 2
    assert "compaction_start" not in types[: types.index("agent_end")]  # none between the turns
