"""What ``/mcp`` changes, against the real probe server on stdio: saving ``enabled``/``exposure``
as Pi 1.6 does (defaults left out of full entries, kept in overrides, a project override added
on request), turning a server off and on, changing its exposure, reconnecting, the states and
order ``/mcp`` shows and its plain status text."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.core.mcp.config import load_mcp_config, update_server_config
from pi_coding_agent.core.mcp.manager import McpManager, describe_state, listed, save_change, status_text

REPO = Path(__file__).resolve().parents[4]
pytestmark = pytest.mark.usefixtures("forked_mcp_servers")  # several stdio starts of the probe
PROBE = {"command": sys.executable, "args": ["-m", "tests.support.mcp_server"], "cwd": str(REPO)}


def _write(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=4) + "\n", encoding="utf-8")


def test_updates_leave_defaults_out_of_full_entries_and_keep_them_in_overrides(tmp_path: Path) -> None:
    user, project = tmp_path / "agent" / "mcp.json", tmp_path / "work" / ".pi" / "mcp.json"
    _write(
        user, {"other": 1, "mcpServers": {"a": {"command": "x", "exposure": "direct"}, "b": {"command": "y"}}}
    )
    _write(project, {"mcpServers": {"b": {"enabled": False}}})
    update_server_config(str(user), "a", {"enabled": False, "exposure": "codemode"})
    update_server_config(str(project), "b", {"enabled": True})
    update_server_config(str(project), "a", {"exposure": "codemode"}, override=True)
    assert json.loads(user.read_text()) == {"other": 1, "mcpServers": {"a": {"command": "x", "enabled": False},
                                                                      "b": {"command": "y"}}}  # fmt: skip
    assert user.read_text().startswith('{\n    "other"')  # the file's own indentation
    assert json.loads(project.read_text()) == {
        "mcpServers": {"b": {"enabled": True}, "a": {"exposure": "codemode"}}
    }
    config = load_mcp_config(tmp_path / "agent", tmp_path / "work", project_trusted=True)
    entry = config.server("b")
    assert entry is not None and entry.override == str(project)
    changed = save_change(entry, {"exposure": "deferred"})
    assert not isinstance(changed, str) and changed.config["exposure"] == "deferred"
    assert json.loads(project.read_text())["mcpServers"]["b"] == {"enabled": True, "exposure": "deferred"}
    project.write_text("{ not json", encoding="utf-8")
    failed = save_change(entry, {"enabled": True})
    assert isinstance(failed, str) and failed.startswith(f"Could not save {project}: invalid JSON at line 1")


def test_disable_enable_exposure_and_reconnect_a_running_server(tmp_path: Path) -> None:
    user = tmp_path / "mcp.json"
    _write(user, {"mcpServers": {"probe": {**PROBE, "exposure": "direct"}, "gone": {"command": "/nonexistent/x"},
                                 "off": {"command": "x", "enabled": False}}})  # fmt: skip
    manager = McpManager(load_mcp_config(tmp_path, tmp_path, project_trusted=False), str(REPO))
    manager.start()

    async def scenario() -> None:
        await manager.wait_for_all()
        assert [c.name for c in listed(manager)] == ["gone", "probe", "off"]
        probe = manager.connection("probe")
        assert probe is not None and describe_state(probe) == "connected · 11 tools"
        lines = status_text(manager, tmp_path).split("\n")
        assert lines[0] == "probe: connected, 11 tools (direct)"
        assert lines[1] == "gone: failed (codemode)" and lines[2].startswith("    ")
        assert lines[-1] == "off: disabled (codemode)"
        pid = (await manager.call_tool("probe", "pid", {})).content[0].text  # type: ignore[union-attr]

        assert await manager.reconnect("probe") is None
        again = (await manager.call_tool("probe", "pid", {})).content[0].text  # type: ignore[union-attr]
        assert again != pid  # a new server process
        failure = await manager.reconnect("gone")
        assert failure is not None and failure.startswith('MCP server "gone" failed to connect: ')

        entry = manager.config.server("probe")
        assert entry is not None
        manager.take_tools_changed()
        changed = save_change(entry, {"exposure": "deferred"})
        assert not isinstance(changed, str)
        manager.set_exposure(changed)
        assert manager.take_tools_changed() and manager.direct_tools() == []
        assert "mcp__probe__echo" in [info.name for info in manager.indirect_tools()]

        disabled = save_change(changed, {"enabled": False})
        assert not isinstance(disabled, str)
        await manager.set_enabled(disabled, False)
        connection = manager.connection("probe")
        assert connection is not None and describe_state(connection) == "disabled"
        assert manager.indirect_tools() == [] and manager.tool_owner("mcp__probe__echo") is None
        assert json.loads(user.read_text())["mcpServers"]["probe"] == {
            **PROBE,
            "exposure": "deferred",
            "enabled": False,
        }

        enabled = save_change(disabled, {"enabled": True, "exposure": "direct"})
        assert not isinstance(enabled, str)
        await manager.set_enabled(enabled, True)
        connection = manager.connection("probe")
        assert connection is not None and connection.state == "connected"
        assert len(manager.direct_tools()) == 11
        assert json.loads(user.read_text())["mcpServers"]["probe"] == {**PROBE, "exposure": "direct"}

    try:
        asyncio.run(scenario())
    finally:
        manager.close()


def test_a_server_turned_on_when_none_was_running(tmp_path: Path) -> None:
    user = tmp_path / "mcp.json"
    _write(user, {"mcpServers": {"probe": {**PROBE, "enabled": False, "exposure": "direct"}}})
    manager = McpManager(load_mcp_config(tmp_path, tmp_path, project_trusted=False), str(REPO))
    manager.start()  # nothing to start
    assert status_text(manager, tmp_path) == "probe: disabled (direct)"

    async def scenario() -> None:
        entry = manager.config.server("probe")
        assert entry is not None
        changed = save_change(entry, {"enabled": True})
        assert not isinstance(changed, str)
        await manager.set_enabled(changed, True)
        await manager.wait_for_all()
        assert len(manager.direct_tools()) == 11

    try:
        asyncio.run(scenario())
    finally:
        manager.close()
