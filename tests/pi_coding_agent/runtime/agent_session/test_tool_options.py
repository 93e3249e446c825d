"""What the differentials against Pi 1.6 cannot show of the ``register_tool`` options: a
``prepare_loadout`` hook that fails is reported and changes nothing; before an extension tool
declaring ``reaches_tools`` runs, the MCP servers its answer names that are still connecting are
waited for (a real probe server, still starting)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from msgspec import UNSET

from pi_ai import SystemMessage
from pi_coding_agent.core.auth import AuthStorage
from pi_coding_agent.core.mcp.config import McpConfig, McpServerEntry
from pi_coding_agent.core.mcp.manager import McpManager
from pi_coding_agent.core.model_registry import ModelCatalog
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.customize.extensions import ExtensionError, load_extensions
from pi_coding_agent.runtime.agent_session import (
    AgentSession,
    CreateAgentSessionOptions,
    create_agent_session,
)
from pi_coding_agent.runtime.agent_session._hooks import without_declarations
from tests.pi_coding_agent.runtime.agent_session._support import Env

REPO = Path(__file__).resolve().parents[4]

EXTENSION = """
def setup(pi):
    def failing(loadout):
        raise RuntimeError("no loadout today")

    pi.register_tool(
        name="fails", description="Fails to prepare", parameters={"type": "object", "properties": {}},
        execute=lambda *args: "ok", prepare_loadout=failing,
    )
    pi.register_tool(
        name="odd", description="Answers oddly", parameters={"type": "object", "properties": {}},
        execute=lambda *args: "ok", prepare_loadout=lambda loadout: ["not", "a", "dict"],
    )
    pi.register_tool(
        name="hider", description="Hides write", parameters={"type": "object", "properties": {}},
        execute=lambda *args: "ok", prepare_loadout=lambda loadout: {"hidden_declarations": ["write"]},
    )
    pi.register_tool(
        name="reacher", description="Reaches the slow server", parameters={"type": "object", "properties": {}},
        execute=lambda *args: "ok", reaches_tools=lambda params: ["tools.mcp__slow__add"],
    )
"""


def _session(env: Env, mcp: McpManager | None) -> tuple[AgentSession, list[ExtensionError]]:
    path = env.root / "options.py"
    path.write_text(EXTENSION, encoding="utf-8")
    runner, problems = asyncio.run(load_extensions([str(path)], str(env.work)))
    assert not problems
    errors: list[ExtensionError] = []
    runner.on_error(errors.append)
    catalog = ModelCatalog.load(env.agent_dir, AuthStorage.load(env.agent_dir / "auth.json"))
    options = CreateAgentSessionOptions(
        cwd=str(env.work), agent_dir=env.agent_dir, settings=Settings.load(env.work, env.agent_dir), catalog=catalog,
        session_manager=SessionManager.in_memory(str(env.work)), model=catalog.find("faux", "faux-1"),
        tools=None, extensions=runner, mcp=mcp,
    )  # fmt: skip
    return create_agent_session(options).session, errors


def test_a_failing_or_odd_loadout_hook_is_reported_and_changes_nothing(env: Env) -> None:
    session, errors = _session(env, None)
    declared = {tool.name: tool.description for tool in session.agent.state.tools}
    assert "read" in declared
    assert declared["fails"] == "Fails to prepare" and declared["odd"] == "Answers oddly"
    reported = {(error.event, error.error) for error in errors}
    assert ("prepare_loadout", "no loadout today") in reported
    assert any(event == "prepare_loadout" and "list" in text for event, text in reported)
    assert all(error.extension_path.endswith("options.py") for error in errors)


def test_a_tool_declaring_reaches_tools_waits_for_the_servers_it_names(env: Env) -> None:
    # The server is still starting (its Python and the SDK load) when the wait begins.
    config = {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_server"],
        "cwd": str(REPO),
        "exposure": "codemode",
    }
    mcp = McpManager(McpConfig(servers=[McpServerEntry("slow", config, "test", "global")]), str(REPO))
    mcp.start()
    try:
        session, errors = _session(env, mcp)
        asyncio.run(session.wait_for_reached_servers("reacher", {}))
        assert "mcp__slow__add" in [info.name for info in mcp.indirect_tools()]
        assert session.tool_namespace("mcp__slow__add") == {
            "name": "mcp__slow",
            "aliases": ["slow"],
            "instructions": "Probe server for the tests.\nSecond line.",
        }
        assert not [error for error in errors if error.event == "reaches_tools"]
    finally:
        mcp.close()


def test_hidden_declarations_leave_the_requests_but_not_the_transcript(env: Env) -> None:
    session, _ = _session(env, None)
    assert session.hidden_declarations() == {"write"}
    assert "write" not in [tool.name for tool in session.agent.state.tools]
    assert "write" in session.active_tool_names()
    recorded = SystemMessage(
        content="",
        timestamp=0,
        tools_added=[{"name": "read", "description": "r"}, {"name": "write", "description": "w"}],
    )
    removed = SystemMessage(content="", timestamp=1, tools_removed=[{"name": "write"}])
    projected = without_declarations([recorded, removed], session.hidden_declarations())
    assert [message.tools_added for message in projected] == [[{"name": "read", "description": "r"}], UNSET]
    assert projected[1].tools_removed is UNSET
    assert (
        recorded.tools_added is not None and len(recorded.tools_added) == 2
    )  # the transcript's copy is kept
