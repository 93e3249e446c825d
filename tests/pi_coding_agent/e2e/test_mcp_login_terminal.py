"""``pi mcp login`` in a terminal when the browser cannot reach this machine (a browser on
another computer, over SSH): the user copies the address the browser ended on and pastes it at
the prompt. Our ``pi`` on a pseudo-terminal, the SDK-built OAuth server on 127.0.0.1; the test
plays the far browser: it opens the authorization URL without following the redirect, and types
the redirect's address."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox, run_ours
from tests.support.mcp_launch import serve_oauth
from tests.support.pty_terminal import Pty


def _login_in_terminal(tmp_path: Path, url: str, answer: str | None) -> tuple[int, str]:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    (sandbox.agent_dir / "mcp.json").write_text(
        json.dumps({"mcpServers": {"guarded": {"url": url}}}), encoding="utf-8"
    )
    nowhere = tmp_path / "bin"  # a browser opener that reaches nothing
    nowhere.mkdir()
    (nowhere / "xdg-open").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (nowhere / "xdg-open").chmod(0o755)
    env = sandbox.env(PATH=f"{nowhere}:{sandbox.env()['PATH']}", TERM="xterm")
    terminal = Pty([str(OUR_PI), "mcp", "login", "guarded", "--timeout", "60"], sandbox.work, env)
    try:
        terminal.wait_for("paste the address", limit=90)
        text = terminal.text_since(0)[0]
        authorization = re.search(r"http://127\.0\.0\.1:\d+/authorize\?\S+", text)
        assert authorization is not None, text
        redirect = httpx2.get(authorization.group(0), follow_redirects=False)
        assert redirect.status_code in (302, 307), redirect.text
        terminal.write((answer or redirect.headers["location"]) + "\r")
        code = terminal.wait_exit(90)
        return code, terminal.text_since(0)[0]
    finally:
        terminal.close()


def test_pasted_redirect_url_completes_the_sign_in(tmp_path: Path) -> None:
    with serve_oauth() as url:
        code, text = _login_in_terminal(tmp_path / "pasted", url, None)
        assert code == 0, text
        assert 'Signed in to MCP server "guarded" (2 tools).' in text
        stored = json.loads((tmp_path / "pasted/home/.pi/agent/mcp-auth.json").read_text(encoding="utf-8"))
        assert stored[f"mcp__guarded|{url}"]["tokens"]["access_token"]

        code, text = _login_in_terminal(
            tmp_path / "wrong", url, "http://127.0.0.1:1/elsewhere?code=x&state=y"
        )
        assert code == 1
        assert (
            'Sign-in to MCP server "guarded" failed: '
            "The redirect URL does not match this sign-in's redirect URI" in text
        )


def test_a_sign_in_nobody_finishes_ends_at_the_time_limit(tmp_path: Path) -> None:
    with serve_oauth() as url:
        sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
        (sandbox.agent_dir / "mcp.json").write_text(
            json.dumps({"mcpServers": {"guarded": {"url": url}}}), encoding="utf-8"
        )
        nowhere = tmp_path / "bin"
        nowhere.mkdir()
        (nowhere / "xdg-open").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        (nowhere / "xdg-open").chmod(0o755)
        done = run_ours(
            sandbox, "mcp", "login", "guarded", "--timeout", "1", PATH=f"{nowhere}:{sandbox.env()['PATH']}"
        )
    assert done.returncode == 1
    assert done.stdout.startswith('Sign in to MCP server "guarded" in your browser:\nhttp://127.0.0.1:')
    assert done.stderr == 'Sign-in to MCP server "guarded" was cancelled or not completed within 1 seconds.\n'
