"""``pi mcp login``/``logout`` and ``list`` on an OAuth server, ours against Pi 1.6's CLI: the
SDK-built server with its own authorization server on 127.0.0.1, and a stand-in ``xdg-open`` on
``PATH`` that plays the browser (fetches the authorization URL and follows the redirect to the
loopback callback), so both sign in headless.

Each program runs the same commands in its own agent folder: the lines, exit codes and the
shape of ``mcp-auth.json`` (keys, order, value types; mode 0600) must agree. Then each reads the
other's ``mcp-auth.json``: a sign-in by one serves the other."""

from __future__ import annotations

import json
import re
import shutil
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.pi_coding_agent.e2e._mcp_oauth import oauth_sandbox
from tests.support.mcp_launch import serve_oauth

COMMANDS: list[tuple[str, ...]] = [
    ("mcp", "list"),
    ("mcp", "logout", "guarded"),
    ("mcp", "login", "guarded"),
    ("mcp", "list"),
    ("mcp", "login", "guarded"),
    ("mcp", "login", "gaurded"),
    ("mcp", "login", "guarded", "--timeout", "0"),
    ("mcp", "login", "guarded", "-l"),
    ("mcp", "logout"),
    ("mcp", "login", "plain"),
    ("mcp", "logout", "guarded"),
    ("mcp", "logout", "guarded"),
    ("mcp", "list"),
]
LOGIN = 2


def _shape(value: Any) -> Any:
    """The keys of a JSON value, recursively and in order, with the values' types."""
    if isinstance(value, dict):
        return [(key, _shape(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_shape(item) for item in value[:1]]
    return type(value).__name__


def _normalized(text: str, url: str, root: Path) -> str:
    """Without what differs per run: the authorization URL's client id, PKCE challenge,
    state and callback port."""
    text = text.replace(str(root), "<root>")
    text = re.sub(r"client_id=[^&\s]+", "client_id=<id>", text)
    text = re.sub(r"code_challenge=[^&\s]+", "code_challenge=<challenge>", text)
    text = re.sub(r"state=[0-9a-f]+", "state=<state>", text)
    return re.sub(r"127\.0\.0\.1%3A\d+%2Fcallback", "127.0.0.1%3A<port>%2Fcallback", text)


def _path(sandbox: Sandbox) -> str:
    return f"{sandbox.root / 'bin'}:{sandbox.env()['PATH']}"


def _run(tmp_path: Path, program: str, url: str) -> tuple[list[tuple[int, str, str]], Any, int]:
    sandbox = oauth_sandbox(tmp_path / program, url)
    answers = []
    shape: Any = None
    mode = 0
    for index, command in enumerate(COMMANDS):
        run = run_pi if program == "pi" else run_ours
        extra = {"current": True} if program == "pi" else {}
        done: Completed = run(sandbox, *command, PATH=_path(sandbox), **extra)  # type: ignore[operator]
        answers.append(
            (
                done.returncode,
                _normalized(done.stdout, url, sandbox.root),
                _normalized(done.stderr, url, sandbox.root),
            )
        )
        if index == LOGIN:
            path = sandbox.agent_dir / "mcp-auth.json"
            shape = _shape(json.loads(path.read_text(encoding="utf-8")))
            mode = stat.S_IMODE(path.stat().st_mode)
            shutil.copy(path, tmp_path / f"{program}-mcp-auth.json")
    return answers, shape, mode


def _list_with(tmp_path: Path, program: str, url: str, auth_file: Path) -> Completed:
    sandbox = oauth_sandbox(tmp_path / f"{program}-reads", url)
    shutil.copy(auth_file, sandbox.agent_dir / "mcp-auth.json")
    if program == "pi":
        return run_pi(sandbox, "mcp", "list", current=True)
    return run_ours(sandbox, "mcp", "list")


@pytest.mark.timeout(900)  # Pi 1.6's CLI starts in 10-25 s on a busy machine, 15 runs in a row
def test_mcp_login_logout_and_list_match_pi_1_6(tmp_path: Path) -> None:
    with serve_oauth() as url, ThreadPoolExecutor(max_workers=2) as pool:
        (theirs, their_shape, their_mode), (ours, our_shape, our_mode) = pool.map(
            lambda program: _run(tmp_path, program, url), ("pi", "ours")
        )
        differ = [
            (command, mine, pi)
            for command, mine, pi in zip(COMMANDS, ours, theirs, strict=True)
            if mine != pi
        ]
        assert differ == []
        assert our_shape == their_shape
        assert our_mode == their_mode == 0o600
        # Each reads the other's sign-in.
        crossed = list(
            pool.map(
                lambda pair: _list_with(tmp_path, pair[0], url, tmp_path / f"{pair[1]}-mcp-auth.json"),
                (("pi", "ours"), ("ours", "pi")),
            )
        )
    assert ours[0][0] == 1 and "guarded: needs sign-in (codemode, global)" in ours[0][1]
    assert "  sign in with: pi mcp login guarded" in ours[0][1]
    assert ours[LOGIN][0] == 0 and ours[LOGIN][1].endswith('Signed in to MCP server "guarded" (2 tools).\n')
    assert ours[3][0] == 1 and "guarded: connected, 2 tools" in ours[3][1]  # "plain" fails (401)
    assert (
        "plain: failed (codemode, global)" in ours[3][1]
        and "MCP server requires authentication" in ours[3][1]
    )
    assert ours[-3][1] == 'Signed out of MCP server "guarded".\n'
    assert ours[-2][1] == 'No stored credentials for MCP server "guarded".\n'
    for done in crossed:
        assert "guarded: connected, 2 tools (codemode, global)" in done.stdout
