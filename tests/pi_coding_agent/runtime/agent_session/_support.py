"""Helpers of the AgentSession tests: a faux model in a throwaway agent folder."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_ai import AssistantMessage, Context, StreamOptions
from pi_ai.faux import FauxState, faux_assistant_message
from pi_coding_agent.core.auth import AuthStorage
from pi_coding_agent.core.model_registry import ModelCatalog
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.runtime.agent_session import (
    AgentSession,
    CreateAgentSessionOptions,
    create_agent_session,
    session_event_to_json,
)

API = "faux-session-test"


def models_json(*models: dict[str, Any]) -> dict[str, Any]:
    """A ``models.json``: the faux provider with ``models`` (default ``faux-1``), and a provider without a key."""
    return {
        "providers": {
            "faux": {
                "baseUrl": "http://localhost:0",
                "api": API,
                "apiKey": "faux-key",
                "models": list(models) or [{"id": "faux-1", "contextWindow": 100000}],
            },
            "keyless": {"baseUrl": "http://localhost:0", "api": API, "models": [{"id": "k-1"}]},
        }
    }


def answer_after_abort(started: asyncio.Event) -> Any:
    """A faux answer that sets ``started`` and then waits until the call is aborted."""

    async def answer(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
        started.set()
        assert options is not None and options.signal is not None
        await options.signal.wait()
        return faux_assistant_message("never shown")

    return answer


@dataclass
class Env:
    root: Path
    agent_dir: Path
    work: Path
    session_dir: Path


def write_settings(env: Env, **values: Any) -> Settings:
    (env.agent_dir / "settings.json").write_text(json.dumps(values), encoding="utf-8")
    return Settings.load(env.work, env.agent_dir)


def make_session(
    env: Env,
    settings: Settings,
    *,
    manager: SessionManager | None = None,
    model: tuple[str, str] | None = ("faux", "faux-1"),
    tools: list[str] | None = None,
    thinking: str | None = None,
) -> AgentSession:
    catalog = ModelCatalog.load(env.agent_dir, AuthStorage.load(env.agent_dir / "auth.json"))
    chosen = catalog.find(*model) if model else None
    created = create_agent_session(
        CreateAgentSessionOptions(
            cwd=str(env.work),
            agent_dir=env.agent_dir,
            settings=settings,
            catalog=catalog,
            session_manager=manager or SessionManager.create(str(env.work), str(env.session_dir)),
            model=chosen,
            thinking_level=thinking,
            tools=tools if tools is not None else [],
        )
    )
    return created.session


def file_lines(session: AgentSession) -> list[dict[str, Any]]:
    path = session.session_manager.get_session_file()
    assert path is not None
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


def record_events(session: AgentSession) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    session.subscribe(lambda event: events.append(session_event_to_json(event)))
    return events


