"""The agent's hook chain: built once at construction, in order, and never reassigned.

A model call goes compactor -> extension ``context`` handlers -> extension message
converters -> the assembly's ``limit_stream`` -> ``before_provider_headers`` -> the model.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pi_agent import StreamFn
from pi_ai import AssistantMessage, Context, StreamOptions, TextContent, UserMessage
from pi_ai.faux import FauxProvider, FauxState, faux_assistant_message
from pi_coding_agent.core.auth import AuthStorage
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.core.model_registry import ModelCatalog
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.customize.extensions import Extension, ExtensionRunner
from pi_coding_agent.runtime.agent_session import (
    AgentSession,
    CreateAgentSessionOptions,
    create_agent_session,
)
from tests.pi_coding_agent.runtime.agent_session._support import Env, write_settings

HOOKS = (
    "stream_fn", "convert_to_llm", "transform_context", "get_api_key", "on_payload", "on_response",
    "before_tool_call", "after_tool_call", "should_stop_after_turn", "prepare_next_turn",
    "prepare_next_turn_with_context",
)  # fmt: skip
SRC = Path(__file__).resolve().parents[4] / "src" / "pi_coding_agent"


def _session(env: Env, calls: list[str], runner: ExtensionRunner | None = None) -> AgentSession:
    """A session on the faux model whose stream function is wrapped by a recording ``limit_stream``."""

    def limit(inner: StreamFn) -> StreamFn:
        def stream(model: Any, context: Context, options: Any) -> Any:
            calls.append("limit")
            return inner(model, context, options)

        return stream

    catalog = ModelCatalog.load(env.agent_dir, AuthStorage.load(env.agent_dir / "auth.json"))
    created = create_agent_session(
        CreateAgentSessionOptions(
            cwd=str(env.work),
            agent_dir=env.agent_dir,
            settings=write_settings(env, compaction={"keepRecentTokens": 100}),
            catalog=catalog,
            session_manager=SessionManager.create(str(env.work), str(env.session_dir)),
            model=catalog.find("faux", "faux-1"),
            tools=[],
            extensions=runner,
            limit_stream=limit,
        )
    )
    return created.session


def _recording_runner(calls: list[str], seen_by_context: list[list[str]]) -> ExtensionRunner:
    """``context`` adds a ``note`` message; the ``note`` converter turns it into user text;
    ``before_provider_headers`` records that it ran."""

    def context(event: Any, ctx: Any) -> dict[str, Any]:
        calls.append("context")
        seen_by_context.append([message.role for message in event.messages])
        note = CustomRoleMessage(custom_type="note", content="from context", display=False, timestamp=1)
        return {"messages": [*event.messages, note]}

    def convert(message: CustomRoleMessage) -> UserMessage:
        calls.append("convert")
        return UserMessage(content=[TextContent(text=f"converted {message.content}")], timestamp=message.timestamp)

    def headers(event: Any, ctx: Any) -> None:
        calls.append("headers")

    extension = Extension(
        "recording",
        handlers={"context": [context], "before_provider_headers": [headers]},
        message_converters={"note": convert},
    )
    return ExtensionRunner([extension], "/")


def _answer(calls: list[str], seen: list[Context]) -> Any:
    """Summaries while compacting (one or two calls); the call for ``three`` is recorded."""

    async def answer(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
        if "three" in _texts(context):
            calls.append("model")
            seen.append(context)
        return faux_assistant_message("## Goal\nsummarized")

    return answer


def _texts(context: Context) -> list[str]:
    return [block.text for m in context.messages if isinstance(m, UserMessage) and not isinstance(m.content, str)
            for block in m.content if isinstance(block, TextContent)]  # fmt: skip


async def test_the_hooks_run_in_order_on_what_the_compactor_left(env: Env, faux: FauxProvider) -> None:
    calls: list[str] = []
    seen_by_context: list[list[str]] = []
    seen: list[Context] = []
    faux.set_responses(
        [
            faux_assistant_message("first answer " * 60),
            faux_assistant_message("second answer " * 60),
            *[_answer(calls, seen)] * 3,
        ]
    )
    session = _session(env, calls, _recording_runner(calls, seen_by_context))
    await session.prompt("one " * 200)
    await session.prompt("two " * 200)
    await session.compact()
    calls.clear()
    seen_by_context.clear()
    await session.prompt("three")
    assert calls == ["context", "convert", "limit", "headers", "model"]
    assert seen_by_context[0][0] == "compactionSummary"  # the context handler saw the compacted context
    assert _texts(seen[0])[-2:] == ["three", "converted from context"]  # converted after the handler added it


async def test_no_hook_is_reassigned_after_the_agent_is_built(env: Env, faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("hi")])
    calls: list[str] = []
    session = _session(env, calls)
    agent = session.agent
    before = {name: getattr(agent, name) for name in HOOKS}
    session.bind_extensions(_recording_runner(calls, []))
    await session.prompt("hello")
    assert {name: getattr(agent, name) for name in HOOKS} == before
    assert "context" in calls and "headers" in calls  # bound later, consulted at call time


def test_no_source_assigns_an_agent_hook() -> None:
    assignment = re.compile(rf"\.({'|'.join(HOOKS)})\s*=(?!=)")
    offenders = [
        f"{path.relative_to(SRC)}:{number}"
        for path in SRC.rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if assignment.search(line)
    ]
    assert offenders == []
