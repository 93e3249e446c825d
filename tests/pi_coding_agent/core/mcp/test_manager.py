"""The run's MCP servers against real servers: the SDK-built probe on stdio and on streamable
HTTP (127.0.0.1), and PyPI's published ``mcp-server-time``. Covers background start, the direct
tools, results, reconnecting after the server went away, headers with ``${VAR}`` values, and
stopping stdio servers with their process group."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_agent import ToolFailure
from pi_coding_agent.core.mcp.config import McpConfig, McpServerEntry
from pi_coding_agent.core.mcp.manager import McpManager
from tests.support.mcp_launch import serve_http
from tests.support.mcp_reference import time_server

REPO = Path(__file__).resolve().parents[4]
pytestmark = pytest.mark.usefixtures("forked_mcp_servers")  # several stdio starts of the probe
PROBE = {"command": sys.executable, "args": ["-m", "tests.support.mcp_server"], "cwd": str(REPO)}


def _manager(**servers: dict[str, Any]) -> McpManager:
    entries = [McpServerEntry(name, config, "test", "global") for name, config in servers.items()]
    return McpManager(McpConfig(servers=entries), str(REPO))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_stdio_server_tools_results_reconnect_and_shutdown() -> None:
    manager = _manager(
        probe={**PROBE, "exposure": "direct", "toolExposure": {"long_*": "codemode", "echo": "hidden"}}
    )
    manager.start()

    async def scenario() -> tuple[int, int, str]:
        assert await manager.wait_for_direct()
        names = [tool.name for tool in manager.direct_tools()]
        assert names == [
            "mcp__probe__add",
            "mcp__probe__picture",
            "mcp__probe__fail",
            "mcp__probe__dash_name",
            "mcp__probe__pid",
            "mcp__probe__chatty",
            "mcp__probe__slow",
            "mcp__probe__stall",
            "mcp__probe__grow",
        ]
        assert [info.name for info in manager.indirect_tools()] == ["mcp__probe__long_text"]
        add = manager.direct_tools()[0]
        result = await add.execute("c1", {"a": 1, "b": 2}, None, None)
        assert [block.text for block in result.content if hasattr(block, "text")] == ["3"]
        with pytest.raises(ToolFailure) as failure:
            await manager.call_tool("probe", "fail", {"reason": "x"})
        assert [block.text for block in failure.value.content or [] if hasattr(block, "text")] == [
            "failed: x"
        ]
        assert failure.value.structured_content["isError"] is True  # scripts still get the result
        long = await manager.call_tool("probe", "long_text", {"size": 30000})
        text = long.content[0].text  # type: ignore[union-attr]
        assert text.startswith(
            "Warning: truncated output (original token count: 7500)\nTotal output lines: 1\n\n"
        )
        assert "…9520 chars truncated…" in text
        saved = long.details["fullOutputPath"]
        with pytest.raises(RuntimeError, match="no longer available"):
            await manager.call_tool("probe", "echo", {"text": "x"})
        first = int(await _pid(manager))
        os.kill(first, 9)
        while manager.reports()[0].state == "connected":  # noqa: ASYNC110 - the state changes on the servers' thread
            await asyncio.sleep(0.01)
        assert manager.reports()[0].state == "disconnected"
        second = int(await _pid(manager))  # the next call connects again
        assert second != first and manager.reports()[0].state == "connected"
        return first, second, saved

    _, second, saved = asyncio.run(scenario())
    assert Path(saved).read_text(encoding="utf-8") == "".join(chr(97 + i % 26) for i in range(30000))
    manager.close()
    assert not _alive(second)


async def _pid(manager: McpManager) -> str:
    result = await manager.call_tool("probe", "pid", {})
    return str(result.content[0].text)  # type: ignore[union-attr]


@pytest.fixture
def http_server() -> Iterator[str]:
    with serve_http() as url:
        yield url


def test_streamable_http_server_with_resolved_headers(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROBE_TOKEN", "secret")
    manager = _manager(
        web={"url": http_server, "headers": {"X-Token": "${PROBE_TOKEN}"}, "exposure": "direct"}
    )
    manager.start()
    try:

        async def scenario() -> None:
            assert await manager.wait_for_direct()
            result = await manager.call_tool("web", "add", {"a": 20, "b": 22})
            assert result.content[0].text == "42"  # type: ignore[union-attr]
            picture = await manager.call_tool("web", "picture", {})
            assert [type(block).__name__ for block in picture.content] == ["TextContent", "ImageContent"]

        asyncio.run(scenario())
    finally:
        manager.close()


def test_failed_servers_report_and_others_still_connect(http_server: str) -> None:
    manager = _manager(
        missing={"command": "/nonexistent/mcp-server", "exposure": "direct"},
        env={"command": "x", "env": {"K": "${PI_MCP_TEST_UNSET}"}, "exposure": "direct"},
        web={"url": http_server, "exposure": "direct"},
    )
    manager.start()
    try:
        assert asyncio.run(manager.wait_for_direct())
        states = {report.entry.name: (report.state, report.error) for report in manager.reports()}
        assert states["web"] == ("connected", None)
        assert states["missing"][0] == "failed"
        report = manager.take_problems()
        assert report is not None and report.startswith("MCP servers need attention:\n  missing: failed: ")
        assert report.endswith(
            '\n  env: failed: Failed to resolve MCP server "env" env "K" from environment variable: PI_MCP_TEST_UNSET'
            "\nOpen /mcp to see and fix them."
        )
        assert manager.take_problems() is None  # once
        assert states["env"] == (
            "failed",
            'Failed to resolve MCP server "env" env "K" from environment variable: PI_MCP_TEST_UNSET',
        )
    finally:
        manager.close()


def test_published_time_server() -> None:
    manager = _manager(
        time={"command": time_server()[0], "args": ["--local-timezone", "UTC"], "exposure": "direct"}
    )
    manager.start()
    try:

        async def scenario() -> None:
            assert await manager.wait_for_direct(60)
            assert [tool.name for tool in manager.direct_tools()] == [
                "mcp__time__get_current_time",
                "mcp__time__convert_time",
                "list_mcp_resources",
                "list_mcp_resource_templates",
                "read_mcp_resource",
            ]
            result = await manager.call_tool(
                "time",
                "convert_time",
                {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
            )
            assert '"time": "21:00' in result.content[0].text or "21:00" in result.content[0].text  # type: ignore[union-attr]

        asyncio.run(scenario())
    finally:
        manager.close()


def test_tool_list_changes_add_tools(tmp_path: Path) -> None:
    """A server that announces a changed tool list gets listed again: the new tool is declared."""
    manager = McpManager(
        McpConfig(servers=[McpServerEntry("probe", {**PROBE, "exposure": "direct"}, "test", "global")]),
        str(REPO),
        log_path=str(tmp_path / "mcp.log"),
    )
    manager.start()
    try:

        async def scenario() -> None:
            assert await manager.wait_for_direct()
            assert manager.take_tools_changed()
            assert "mcp__probe__late" not in [tool.name for tool in manager.direct_tools()]
            await manager.call_tool("probe", "grow", {})
            while "mcp__probe__late" not in [tool.name for tool in manager.direct_tools()]:  # noqa: ASYNC110 - set on the servers' thread
                await asyncio.sleep(0.01)
            assert manager.take_tools_changed()
            result = await manager.call_tool("probe", "late", {})
            assert result.content[0].text == "late answer"  # type: ignore[union-attr]
            await manager.call_tool("probe", "chatty", {"text": "x"})

        asyncio.run(scenario())
    finally:
        manager.close()
    lines = (tmp_path / "mcp.log").read_text(encoding="utf-8").splitlines()
    assert [line.split(" ", 1)[1] for line in lines[:1]] == ["[probe] warning probe-log: said x"]
    assert lines[1] == "    second line"


def test_timeouts_are_counted_from_the_last_progress() -> None:
    """``timeout`` 1.5 s: a call that reports progress every 0.2 s for 2.4 s finishes; a silent one
    fails after 1.5 s. (The limit covers ``initialize`` too, as in Pi; it is lowered once the
    server is up, since a loaded machine may take seconds to start it.)"""
    config: dict[str, Any] = {**PROBE, "exposure": "direct"}
    manager = _manager(probe=config)
    manager.start()
    updates: list[tuple[float, float | None, str | None]] = []
    try:

        async def scenario() -> None:
            assert await manager.wait_for_direct()
            manager.config.servers[0].config["timeout"] = 1.5
            result = await manager.call_tool("probe", "slow", {"seconds": 2.4}, lambda *u: updates.append(u))
            assert result.content[0].text == "finished"  # type: ignore[union-attr]
            with pytest.raises(
                TimeoutError, match=r'MCP server "probe" did not answer stall within 1\.5 seconds'
            ):
                await manager.call_tool("probe", "stall", {"seconds": 4})
            quick = await manager.call_tool("probe", "add", {"a": 1, "b": 1})  # the connection is still good
            assert quick.content[0].text == "2"  # type: ignore[union-attr]

        asyncio.run(scenario())
    finally:
        manager.close()
    assert updates[0] == (1.0, 12.0, "step 1") and len(updates) == 12


def test_direct_tools_follow_the_configured_order_of_servers_not_their_connection_order() -> None:
    """Pi 1.6 declares MCP tools in the order its servers finished connecting; ours keep
    ``mcp.json``'s order (docs/mcp.md, differences), so a request does not change from run to
    run. The first server here starts a second late and connects last."""
    late = {"command": "sh", "args": ["-c", f"sleep 1; exec {sys.executable} -m tests.support.mcp_server"],
            "cwd": str(REPO), "exposure": "direct"}  # fmt: skip
    manager = _manager(late=late, early={**PROBE, "exposure": "direct"})
    manager.start()

    async def names() -> list[str]:
        assert await manager.wait_for_direct()
        return [tool.name for tool in manager.direct_tools()]

    try:
        listed = asyncio.run(names())
    finally:
        manager.close()
    servers = [name.split("__")[1] for name in listed]
    assert servers == sorted(servers, key=["late", "early"].index) and set(servers) == {"late", "early"}
