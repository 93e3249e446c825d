"""``pi mcp login|logout <server> [-l]``: sign in to an OAuth MCP server, or forget its stored
credentials, with Pi 1.6's options, lines and exit codes.

``login`` connects first (already signed in: it says so); else it shows the authorization URL,
opens the browser and waits for the answer on the loopback callback (``--timeout``, default 300
seconds, bounds the whole sign-in), then connects again and counts the tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_coding_agent.core.mcp.config import McpServerEntry, load_mcp_config, project_config_path

Out = Callable[[str], None]
HINT = 'Use "pi mcp --help" for usage.'
DEFAULT_TIMEOUT_S = 300.0
PASTE_PROMPT = "Or paste the address the browser was sent to here (when it cannot reach this machine): "


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, 1):
        current = [i]
        for j, right in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (left != right)))
        previous = current
    return previous[-1]


def _timeout(text: str | bool | None) -> float | None:
    if text is None:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(str(text)) if str(text).strip() else 0.0
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def run_login_command(
    command: str,
    values: dict[str, str | bool],
    positional: list[str],
    *,
    agent_dir: Path,
    cwd: str,
    trusted: bool,
    log: Out,
    error: Out,
) -> int:
    """``login``/``logout`` after option parsing; the exit code."""
    if len(positional) != 1:
        error(f"Usage: pi mcp {command} <server> [-l]\n{HINT}")
        return 1
    name = positional[0]
    config = load_mcp_config(agent_dir, cwd, project_trusted=trusted)
    entry = next((server for server in config.servers if server.name == name), None)
    if entry is None:
        names = [server.name for server in config.servers]
        close = next((candidate for candidate in names if _distance(candidate, name) <= 2), None)
        project = project_config_path(cwd)
        note = (
            f" {project} is ignored because the project is not trusted. Start pi in the project to trust it."
            if not trusted and os.path.exists(project)
            else ""
        )
        suggestion = f' Did you mean "{close}"?' if close else ""
        error(f'No MCP server named "{name}".{suggestion}{note} Configured: {", ".join(names) or "none"}.')
        return 1
    if values.get("local") and entry.scope != "project":
        error(f'MCP server "{name}" is defined in {entry.source}, not in the project; omit --local.')
        return 1
    auth = entry.config.get("auth")
    if isinstance(auth, dict) and auth.get("provider"):
        error(
            f'MCP server "{name}" uses the credentials of provider "{auth["provider"]}". Run "pi auth {command} {auth["provider"]}".'
        )
        return 1
    from pi_coding_agent.core.mcp.oauth import McpAuthFileError, McpAuthStore, uses_oauth

    if not uses_oauth(entry):
        error(
            f'MCP server "{name}" does not use OAuth. Only HTTP servers without an Authorization header do.'
        )
        return 1
    store = McpAuthStore(agent_dir)
    try:
        if command == "logout":
            removed = asyncio.run(store.remove(name, entry.config["url"]))
            log(
                f'Signed out of MCP server "{name}".'
                if removed
                else f'No stored credentials for MCP server "{name}".'
            )
            return 0
        timeout = _timeout(values.get("timeout"))
        if timeout is None:
            error("--timeout must be a positive number of seconds.")
            return 1
        return asyncio.run(_login(entry, cwd, store, limit_s=timeout, log=log, error=error))
    except McpAuthFileError as failure:
        error(str(failure))
        return 1


async def _connect(entry: McpServerEntry, cwd: str, store: Any) -> tuple[str, int, str | None, Any]:
    """Connect once: ``(state, tool count, error, OAuth challenge)``."""
    import anyio

    from pi_coding_agent import PI_COMPAT_VERSION
    from pi_coding_agent.core.mcp.client import McpConnection

    connection = McpConnection(entry, cwd, client_version=PI_COMPAT_VERSION, auth_store=store)
    async with anyio.create_task_group() as group:
        with contextlib.suppress(Exception):  # the state and error say what happened
            await connection.session(group)
        result = (connection.state, len(connection.tools), connection.error, connection.challenge)
        await connection.close()
    return result


def _tools(count: int) -> str:
    return f"{count} tools"


async def _login(entry: McpServerEntry, cwd: str, store: Any, *, limit_s: float, log: Out, error: Out) -> int:
    from pi_coding_agent.core.mcp.config import McpValueError
    from pi_coding_agent.core.mcp.oauth import (
        SignInCancelled,
        ask_in_terminal,
        oauth_settings,
        open_browser,
        sign_in,
    )

    name = entry.name
    state, count, problem, challenge = await _connect(entry, cwd, store)
    if state == "connected":
        log(f'Already signed in to MCP server "{name}" ({_tools(count)}).')
        return 0
    if state != "needs-auth":
        error(f'MCP server "{name}" failed to connect: {problem or "unknown error"}')
        return 1

    def show(url: str) -> None:
        log(f'Sign in to MCP server "{name}" in your browser:\n{url}')
        open_browser(url)

    try:
        settings = oauth_settings(entry)
        # In a terminal, the redirect URL can also be pasted (a browser on another machine).
        pasted = ask_in_terminal(PASTE_PROMPT) if sys.stdin.isatty() else None
        await sign_in(
            store.server(name, entry.config["url"]), settings, challenge, show, limit_s, pasted_url=pasted
        )
    except SignInCancelled:
        seconds = round(limit_s)
        error(f'Sign-in to MCP server "{name}" was cancelled or not completed within {seconds} seconds.')
        return 1
    except (McpValueError, ValueError, OSError, RuntimeError) as failure:
        error(f'Sign-in to MCP server "{name}" failed: {failure}')
        return 1
    except Exception as failure:  # the OAuth server's or the network's errors
        error(f'Sign-in to MCP server "{name}" failed: {failure or type(failure).__name__}')
        return 1
    state, count, problem, _ = await _connect(entry, cwd, store)
    if state != "connected":
        reason = "sign-in is still required" if state == "needs-auth" else problem or "unknown error"
        error(f'Signed in, but MCP server "{name}" failed to connect: {reason}')
        return 1
    log(f'Signed in to MCP server "{name}" ({_tools(count)}).')
    return 0
