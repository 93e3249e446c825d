"""``/mcp``'s Sign in and Sign out entries for an OAuth server, in the terminal UI: the SDK-built
OAuth server on 127.0.0.1 and a stand-in ``xdg-open`` on ``PATH`` that plays the browser. A
server that needs a sign-in offers the same entries as in Pi 1.6's TUI (Sign in first); ours
then signs in from the menu (the URL as a notice, Pi 1.6 has a screen of its own), after which
the server is connected and offers Sign out, which forgets the tokens."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.e2e._harness import Sandbox
from tests.support.mcp_launch import serve_oauth

pytestmark = pytest.mark.timeout(600)

BROWSER = """#!{python}
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=30) as answer:
    answer.read()
"""
ACTIONS = ["Sign in", "Tools", "Reconnect", "Sign out", "Exposure", "Disable"]
ROW = re.compile(r"^\s*(→ |  )(Sign in|Sign out|Tools|Reconnect|Exposure|Disable)(\s{2,}\S.*)?$")


def _labels(screen: str) -> list[str]:
    return [match[2] for line in screen.splitlines() if (match := ROW.match(line))]


def _selected(screen: str) -> str | None:
    return next(
        (match[2] for line in screen.splitlines() if (match := ROW.match(line)) and match[1] == "→ "), None
    )


def _walk(tmp_path: Path, which: str, url: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    bin_dir = tmp_path / which / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "xdg-open").write_text(BROWSER.format(python=sys.executable), encoding="utf-8")
    (bin_dir / "xdg-open").chmod(0o755)

    def write(sandbox: Sandbox) -> None:
        config = {"mcpServers": {"guarded": {"url": url}}}
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(config), encoding="utf-8")

    async def scenario(app: Driven) -> None:
        if not app.ours:
            await app.wait_for("Run /mcp to fix.", 60)
        await app.command("/mcp")
        await app.wait_until(
            lambda s: "guarded" in s and "needs sign-in" in s, "the server never settled", 60
        )
        await app.send("Enter")
        screen = await app.wait_until(
            lambda s: "MCP server guarded" in s and "Disable" in s, "no server menu"
        )
        seen["before"] = _labels(screen)
        if not app.ours:
            return
        await app.send("Enter")  # Sign in
        screen = await app.wait_until(lambda s: "Sign out" in s and "Tools" in s, "never signed in", 60)
        seen["after"] = _labels(screen)
        seen["stored"] = "tokens" in (app.sandbox.agent_dir / "mcp-auth.json").read_text(encoding="utf-8")
        for _ in range(len(ACTIONS)):
            if _selected(app.screen()) == "Sign out":
                break
            was = _selected(app.screen())
            await app.send("Down")
            await app.wait_until(lambda s, was=was: _selected(s) != was, "the cursor did not move")
        await app.send("Enter")  # Sign out
        screen = await app.wait_until(lambda s: "Sign in" in s, "never signed out", 60)
        seen["signed_out"] = _labels(screen)
        seen["stored_after"] = "tokens" in (app.sandbox.agent_dir / "mcp-auth.json").read_text(
            encoding="utf-8"
        )

    path = f"{bin_dir}:{os.environ['PATH']}"
    play(tmp_path / which / "run", which, [], scenario, before=write, env={"PATH": path},
         **({} if which == "ours" else {"probe": False}))  # fmt: skip
    return seen


def test_sign_in_entries_match_pi_1_6_and_sign_in(tmp_path: Path) -> None:
    with serve_oauth() as url:
        theirs = _walk(tmp_path, "pi16", url)
        ours = _walk(tmp_path, "ours", url)
    assert ours["before"] == theirs["before"] == ["Sign in", "Reconnect", "Exposure", "Disable"]
    assert ours["after"] == ["Tools", "Reconnect", "Sign out", "Exposure", "Disable"]
    assert ours["stored"] and not ours["stored_after"]
    assert ours["signed_out"] == ["Sign in", "Reconnect", "Exposure", "Disable"]
