"""``/mcp`` in the terminal UI, ours in-process and Pi 1.6's own TUI in tmux, on the same
``mcp.json``: a ``direct`` probe server (a real stdio MCP server on the SDK), a server whose
command does not exist and a disabled one. Both list the servers in the same order with the same
state, exposure and source; the probe's menu offers the same entries; its Tools view lists the
same tools with the same effective exposure; Disable and Exposure write the same file and show
the same new state. The explanatory sentences are ours (docs/mcp.md), so they are not compared."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.e2e._harness import REPO, Sandbox

pytestmark = pytest.mark.timeout(600)

CONFIG = {
    "mcpServers": {
        "probe": {
            "command": sys.executable,
            "args": ["-m", "tests.support.mcp_server", "stdio"],
            "cwd": str(REPO),
            "exposure": "direct",
            "toolExposure": {"fail": "hidden", "long_*": "codemode"},
        },
        "off": {"command": "nothing-here", "enabled": False, "exposure": "deferred"},
        "broken": {"command": "/nonexistent/broken-server"},
    }
}
ROW = re.compile(r"^\s*(→ |  )(\S+)\s{2,}(\S.*?)\s*$")


def _rows(screen: str, names: list[str]) -> list[tuple[bool, str, str]]:
    """The list rows naming one of ``names``: (selected, label, description)."""
    found = []
    for line in screen.splitlines():
        match = ROW.match(line)
        if match and match[2] in names:
            found.append((match[1] == "→ ", match[2], match[3]))
    return found


def _state(description: str) -> str:
    """A server row's description without the failure message (Node's and Python's differ, and
    the row is cut at the terminal's width after it)."""
    return re.sub(r"failed: .*", "failed: <error>", description)


def _write(sandbox: Sandbox) -> None:
    (sandbox.agent_dir / "mcp.json").write_text(json.dumps(CONFIG, indent=2) + "\n", encoding="utf-8")


TOOLS = ["echo", "add", "picture", "fail", "long_text", "dash-name", "pid", "chatty", "slow", "stall", "grow"]
SERVERS = ["probe", "off", "broken"]
ACTIONS = ["Tools", "Reconnect", "Exposure", "Disable", "Enable"]


def walk(tmp_path: Path, which: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    async def to(app: Driven, label: str) -> None:
        """Move the list's cursor to the row ``label``."""
        for _ in range(20):
            selected = [row for row in _rows(app.screen(), [label, *ACTIONS, *SERVERS]) if row[0]]
            if selected and selected[0][1] == label:
                return
            await app.send("Down")
            await app.wait_until(lambda s, was=selected: [r for r in _rows(s, [label, *ACTIONS, *SERVERS]) if r[0]] != was,
                                 "the cursor did not move")  # fmt: skip
        raise AssertionError(f"no row {label}:\n{app.screen()}")

    async def scenario(app: Driven) -> None:
        if not app.ours:  # Pi's startup is over once it reports the failed server
            await app.wait_for("Run /mcp to fix.", 60)
        await app.command("/mcp")
        screen = await app.wait_until(lambda s: "probe" in s and "connected ·" in s and "failed" in s,
                                      "the servers never settled", 60)  # fmt: skip
        seen["servers"] = [(label, _state(text)) for _, label, text in _rows(screen, SERVERS)]
        await to(app, "probe")
        await app.send("Enter")
        screen = await app.wait_until(lambda s: "MCP server probe" in s and "State:" in s and "Disable" in s,
                                      "no server menu")  # fmt: skip
        seen["probe_menu"] = [(label, text) for _, label, text in _rows(screen, ACTIONS)]
        root = str(app.sandbox.root)
        seen["probe_details"] = [line.strip().replace(root, "<root>") for line in screen.splitlines()
                                 if line.strip().startswith(("State:", "global:"))]  # fmt: skip
        await app.send("Enter")  # Tools
        screen = await app.wait_until(lambda s: "Tools of probe" in s and len(_rows(s, TOOLS)) == len(TOOLS)
                                      and "escape" in s.split("grow", 1)[-1], "no tools view")  # fmt: skip
        seen["tools"] = [(label, text) for _, label, text in _rows(screen, TOOLS)]
        await app.send("Escape")
        await app.wait_for("MCP server probe")
        await to(app, "Exposure")
        await app.send("Enter")
        screen = await app.wait_for("Exposure of probe")
        seen["exposures"] = [
            line.strip()[:12]
            for line in screen.splitlines()
            if re.match(r"^\s*(→ )?\s*(✓ )?\s*(codemode|deferred|direct)\s", line)
        ]
        await app.send("Up")  # from direct (selected) to deferred
        await app.send("Enter")
        await app.wait_until(lambda s: "MCP server probe" in s and re.search(r"Exposure\s+deferred", s) is not None,
                             "the exposure did not change")  # fmt: skip
        seen["after_exposure"] = (app.sandbox.agent_dir / "mcp.json").read_text(encoding="utf-8")
        await to(app, "Disable")
        await app.send("Enter")
        screen = await app.wait_until(
            lambda s: re.search(r"State: disabled", s) is not None, "never disabled"
        )
        seen["disabled_menu"] = [(label, text) for _, label, text in _rows(screen, ACTIONS)]
        seen["after_disable"] = (app.sandbox.agent_dir / "mcp.json").read_text(encoding="utf-8")
        await app.send("Escape")
        screen = await app.wait_until(
            lambda s: "enter manage" in s and "disabled · deferred" in s, "back to the list"
        )
        seen["servers_after"] = [(label, _state(text)) for _, label, text in _rows(screen, SERVERS)]
        await app.send("Escape")
        await app.wait_until_gone("enter manage")

    # Pi's editor is probed with Ctrl+C presses, which its busy startup (connecting) can take
    # as a double press (quit); the report above says when it is ready instead.
    play(
        tmp_path / which, which, [], scenario, before=_write, **({} if which == "ours" else {"probe": False})
    )
    return seen


def test_mcp_manager_matches_pi_1_6(tmp_path: Path) -> None:
    theirs = walk(tmp_path, "pi16")
    ours = walk(tmp_path, "ours")
    assert theirs["servers"] == [
        ("broken", "failed: <error>"),
        ("probe", "connected · 11 tools · direct · global"),
        ("off", "disabled · deferred · global"),
    ], theirs["servers"]
    for key in ("servers", "probe_details", "tools", "after_exposure", "after_disable", "servers_after"):
        assert ours[key] == theirs[key], key
    # the same entries; "Reconnect" and "Tools" describe alike, the sentences of the rest are ours
    assert [label for label, _ in ours["probe_menu"]] == [label for label, _ in theirs["probe_menu"]]
    assert [label for label, _ in ours["disabled_menu"]] == [label for label, _ in theirs["disabled_menu"]]
    assert [row[:12] for row in ours["exposures"]] == [row[:12] for row in theirs["exposures"]]
