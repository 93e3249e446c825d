"""``/mcp login`` and ``/mcp logout`` inside a running session, ours against Pi 1.6's CLI in RPC
mode: the SDK-built OAuth server on 127.0.0.1 and a stand-in ``xdg-open`` on ``PATH`` that plays
the browser (it fetches the authorization URL and follows the redirect to the loopback callback).

Both show the authorization URL as a notice, ask for a redirect URL meanwhile (the question is
withdrawn once the callback answered), sign in, connect the server again and say so; ``/mcp``
then lists it connected; logging out twice says the credentials went, then that there were none.
Print mode refuses the sign-in: it needs someone to answer."""

from __future__ import annotations

import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import pi_command
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, run_ours, run_pi
from tests.pi_coding_agent.e2e._mcp_oauth import oauth_sandbox
from tests.support.mcp_launch import serve_oauth
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(600)

COMMANDS = ["/mcp login guarded", "/mcp", "/mcp logout guarded", "/mcp logout", "/mcp"]


def _normalized(text: str) -> str:
    """Without what differs per run: the client id, PKCE challenge, state, ports."""
    text = re.sub(r"client_id=[^&\s]+", "client_id=<id>", text)
    text = re.sub(r"code_challenge=[^&\s]+", "code_challenge=<challenge>", text)
    text = re.sub(r"state=[0-9a-f]+", "state=<state>", text)
    text = re.sub(r"127\.0\.0\.1%3A\d+%2Fcallback", "127.0.0.1%3A<port>%2Fcallback", text)
    return re.sub(r"127\.0\.0\.1:\d+/", "127.0.0.1:<port>/", text)


def _ui_requests(lines: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The notices and questions, without the problem report, which Pi 1.6 sends once the
    servers settled and we at the first prompt (docs/mcp.md)."""
    found: list[tuple[str, ...]] = []
    for line in lines:
        if line.get("type") != "extension_ui_request" or str(line.get("message")).startswith("MCP servers need"):
            continue
        method = str(line.get("method"))
        if method == "notify":
            found.append((method, str(line.get("notifyType")), _normalized(str(line.get("message")))))
        elif method == "input":
            found.append((method, str(line.get("title")), str(line.get("placeholder"))))
    return found


def _session(root: Path, which: str, url: str) -> list[list[tuple[str, ...]]]:
    """Each command's extension UI requests, in order."""
    with ScriptedProvider([{"text": "ok"}]) as provider:
        sandbox = oauth_sandbox(root / which, url, provider.base_url)
        path = f"{sandbox.root / 'bin'}:{sandbox.env()['PATH']}"
        command = pi_command(which, "--mode", "rpc", "--model", OPENAI_MODEL, "--no-session")
        process = subprocess.Popen(command, cwd=sandbox.work, env=sandbox.env(PATH=path), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        answers: list[list[tuple[str, ...]]] = []
        try:
            for index, text in enumerate(COMMANDS):
                process.stdin.write(json.dumps({"id": f"c{index}", "type": "prompt", "message": text}) + "\n")
                process.stdin.flush()
                seen: list[dict[str, Any]] = []
                while (line := json.loads(process.stdout.readline())).get("id") != f"c{index}":
                    seen.append(line)
                answers.append(_ui_requests(seen))
        finally:
            process.stdin.close()
            process.wait(timeout=60)
        return answers


def test_mcp_login_in_a_session_matches_pi_1_6(tmp_path: Path) -> None:
    with serve_oauth() as url, ThreadPoolExecutor(max_workers=2) as pool:
        theirs, ours = pool.map(lambda which: _session(tmp_path, which, url), ("pi16", "ours"))
    assert ours[0][0][:2] == ("notify", "info")
    assert ours[0][0][2].startswith('Sign in to MCP server "guarded" in your browser:\nhttp://127.0.0.1')
    assert ours[0][-1] == ("notify", "info", 'Signed in to MCP server "guarded" (2 tools).')
    assert ours == theirs
    assert ours[-1] == [
        ("notify", "info", "guarded: needs sign-in, run /mcp login guarded (codemode)\nplain: failed (codemode)\n"
         "    MCP server requires authentication")
    ]  # fmt: skip


def test_mcp_login_needs_someone_to_answer(tmp_path: Path) -> None:
    """Print mode: the refusal goes to the extension UI, which print mode does not show; the
    run ends at once without signing in (no tokens in ``mcp-auth.json``)."""
    with serve_oauth() as url:
        for which in ("pi", "ours"):
            sandbox = oauth_sandbox(tmp_path / which, url, "http://127.0.0.1:9")
            args = ("--model", OPENAI_MODEL, "--no-session", "-p", "/mcp login guarded")
            done = run_pi(sandbox, *args, current=True) if which == "pi" else run_ours(sandbox, *args)
            assert done.returncode == 0, done.stderr
            stored = sandbox.agent_dir / "mcp-auth.json"
            assert "tokens" not in (stored.read_text(encoding="utf-8") if stored.exists() else "")
