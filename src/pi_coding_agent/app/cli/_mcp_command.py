"""``pi mcp add|remove|list``: change ``mcp.json`` and check its servers without a session, with
Pi 1.6's options, lines and exit codes; ``login``/``logout`` (OAuth) are in ``_mcp_login``."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Out = Callable[[str], None]
HINT = 'Use "pi mcp --help" for usage.'
HELP = """Usage:
  pi mcp add <server> [options] -- <command> [args...]
  pi mcp add <server> [options] --url <url>
  pi mcp remove <server> [-l]
  pi mcp list [--json]
  pi mcp login <server> [-l] [--timeout <seconds>]
  pi mcp logout <server> [-l]

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads ~/.pi/agent/mcp.json and, in trusted projects, .pi/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json
  list                    Show state, tools, and errors (exits 1 on failure)
  login <server>          Sign in through the browser
  logout <server>         Delete the stored OAuth credentials

Options for add, remove, login, and logout:
  -l, --local             Use .pi/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send "Authorization: Bearer ${NAME}"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${NAME} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --oauth-client-registration <mode>
                          auto (default), cimd, or dcr
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --timeout <seconds>     Time limit for the whole sign-in (default: 300)"""
_HTTP_ONLY = (
    "header", "bearer-token-env-var", "oauth-client-id", "oauth-client-secret", "oauth-callback-port",
    "oauth-client-name", "oauth-client-registration",
)  # fmt: skip
_ADD_OPTIONS = {
    "local": "flag", "url": "value", "env": "list", "cwd": "value", "header": "list", "exposure": "value",
    "description": "value", **{name: "value" for name in _HTTP_ONLY if name != "header"},
}  # fmt: skip


class _Parsed:
    def __init__(self) -> None:
        self.positional: list[str] = []
        self.values: dict[str, str | bool] = {}
        self.lists: dict[str, list[str]] = {}


def _parse(
    args: Sequence[str], known: dict[str, str], error: Out, max_positionals: int | None = None
) -> _Parsed | None:
    """``--name value`` options; ``--`` (or ``max_positionals`` positionals) ends them."""
    parsed = _Parsed()
    index = 0
    while index < len(args):
        typed = args[index]
        arg = "--local" if typed == "-l" else typed
        if arg == "--" or (max_positionals is not None and len(parsed.positional) >= max_positionals):
            parsed.positional += args[index + 1 if arg == "--" else index :]
            break
        if not arg.startswith("--"):
            parsed.positional.append(arg)
            index += 1
            continue
        name = arg[2:]
        kind = known.get(name)
        if kind is None:
            error(f"Unknown option {typed}.\n{HINT}")
            return None
        if kind == "flag":
            parsed.values[name] = True
            index += 1
            continue
        if index + 1 >= len(args):
            error(f"{arg} needs a value.")
            return None
        value = args[index + 1]
        if kind == "list":
            parsed.lists.setdefault(name, []).append(value)
        else:
            parsed.values[name] = value
        index += 2
    return parsed


def run_mcp_command(
    args: Sequence[str], agent_dir: Path, cwd: str, log: Out = print, error: Out | None = None
) -> int:
    """``pi mcp <args>``; the exit code."""
    err: Out = error or (lambda line: print(line, file=sys.stderr))
    if not args or args[0] == "help" or "--help" in args or "-h" in args:
        log(HELP)
        return 0
    command, rest = args[0], list(args[1:])
    from pi_coding_agent.core.mcp.config import project_config_path

    project_config = project_config_path(cwd)
    if command == "add":
        return _add(rest, project_config, agent_dir, cwd, log=log, error=err)
    if command == "remove":
        return _remove(rest, project_config, agent_dir, cwd, log=log, error=err)
    if command == "list":
        parsed = _parse(rest, {"json": "flag"}, err)
        if parsed is None:
            return 1
        if parsed.positional:
            err(f"Usage: pi mcp list [--json]\n{HINT}")
            return 1
        from pi_coding_agent.app.cli._mcp_list import list_servers

        return list_servers(agent_dir, cwd, bool(parsed.values.get("json")), _trusted(agent_dir, cwd), log)
    if command in ("login", "logout"):
        known = {"local": "flag", "timeout": "value"} if command == "login" else {"local": "flag"}
        parsed = _parse(rest, known, err)
        if parsed is None:
            return 1
        from pi_coding_agent.app.cli._mcp_login import run_login_command

        trusted = _trusted(agent_dir, cwd)
        return run_login_command(
            command,
            parsed.values,
            parsed.positional,
            agent_dir=agent_dir,
            cwd=cwd,
            trusted=trusted,
            log=log,
            error=err,
        )
    err(f'Unknown mcp command "{command}".\n{HINT}')
    return 1


def _trusted(agent_dir: Path, cwd: str) -> bool:
    from pi_coding_agent.core.settings import stored_trust_decision

    try:
        return stored_trust_decision(agent_dir, cwd) is True
    except OSError:
        return False


def _pairs(option: str, pairs: list[str] | None, error: Out) -> dict[str, str] | None:
    record: dict[str, str] = {}
    for pair in pairs or []:
        separator = pair.find("=")
        if separator <= 0:
            error(f'--{option} expects KEY=VALUE, got "{pair}".')
            return None
        record[pair[:separator]] = pair[separator + 1 :]
    return record


def _build_config(parsed: _Parsed, command: list[str], error: Out) -> dict[str, Any] | None:
    def value(option: str) -> str | None:
        found = parsed.values.get(option)
        return found if isinstance(found, str) else None

    url = value("url")
    misplaced = next(
        (
            o
            for o in (_HTTP_ONLY if url is None else ("env", "cwd"))
            if o in parsed.values or o in parsed.lists
        ),
        None,
    )
    if misplaced is not None:
        error(f"--{misplaced} only applies to {'HTTP servers (--url)' if url is None else 'stdio servers'}.")
        return None
    config: dict[str, Any]
    if url is not None:
        headers = _pairs("header", parsed.lists.get("header"), error)
        if headers is None:
            return None
        bearer = value("bearer-token-env-var")
        if bearer is not None:
            headers["Authorization"] = f"Bearer ${{{bearer}}}"
        oauth: dict[str, Any] = {}
        for option, key in (("oauth-client-id", "clientId"), ("oauth-client-secret", "clientSecret"),
                            ("oauth-callback-port", "callbackPort"), ("oauth-client-name", "clientName"),
                            ("oauth-client-registration", "clientRegistration")):  # fmt: skip
            found = value(option)
            if found is not None:
                oauth[key] = _number(found) if key == "callbackPort" else found
        config = {
            "url": url,
            **({"headers": headers} if headers else {}),
            **({"oauth": oauth} if oauth else {}),
        }
    else:
        env = _pairs("env", parsed.lists.get("env"), error)
        if env is None:
            return None
        config = {"command": command[0], **({"args": command[1:]} if command[1:] else {})}
        config.update({"env": env} if env else {})
        config.update({"cwd": value("cwd")} if value("cwd") is not None else {})
    for option in ("exposure", "description"):
        if value(option) is not None:
            config[option] = value(option)
    return config


def _number(text: str) -> float | int | None:
    try:
        number = float(text)
    except ValueError:
        return None  # JavaScript's NaN, which JSON writes as null
    return int(number) if number.is_integer() else number


def _add(args: list[str], project_config: str, agent_dir: Path, cwd: str, *, log: Out, error: Out) -> int:
    from pi_coding_agent.core.mcp.config import (
        McpConfigEditError,
        add_server_config,
        is_http,
        user_config_path,
        validate_server,
    )

    usage = f"Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])\n{HINT}"
    parsed = _parse(args, _ADD_OPTIONS, error, 2)
    if parsed is None:
        return 1
    name, command = (parsed.positional[0], parsed.positional[1:]) if parsed.positional else ("", [])
    if not name or ("url" not in parsed.values) == (not command):
        error(usage)
        return 1
    config = _build_config(parsed, command, error)
    if config is None:
        return 1
    checked = validate_server(name, config)
    if isinstance(checked, str):
        error(checked)
        return 1
    project = bool(parsed.values.get("local"))
    path = project_config if project else user_config_path(agent_dir)
    try:
        replaced = add_server_config(path, name, checked)
    except (McpConfigEditError, OSError) as failure:
        error(f"Could not update {path}: {failure}")
        return 1
    log(
        f'{"Replaced" if replaced else "Added"} {"project" if project else "global"} MCP server "{name}" in {path}.'
    )
    if project and not _trusted(agent_dir, cwd):
        log(
            f"The project is not trusted, so {path} is ignored until you start pi in the project and trust it."
        )
    sign_in = is_http(checked) and not any(h.lower() == "authorization" for h in checked.get("headers") or {})
    log(f"Check it with: pi mcp list{f'. If it requires sign-in: pi mcp login {name}' if sign_in else ''}")
    return 0


def _remove(args: list[str], project_config: str, agent_dir: Path, cwd: str, *, log: Out, error: Out) -> int:
    from pi_coding_agent.core.mcp.config import (
        McpConfigEditError,
        load_mcp_config,
        remove_server_config,
        user_config_path,
    )

    parsed = _parse(args, {"local": "flag"}, error)
    if parsed is None:
        return 1
    if len(parsed.positional) != 1:
        error(f"Usage: pi mcp remove <server> [-l]\n{HINT}")
        return 1
    name = parsed.positional[0]
    project = bool(parsed.values.get("local"))
    path, scope = (project_config, "project") if project else (user_config_path(agent_dir), "global")
    try:
        removed = remove_server_config(path, name)
    except (McpConfigEditError, OSError) as failure:
        error(f"Could not update {path}: {failure}")
        return 1
    if removed:
        log(f'Removed {scope} MCP server "{name}" from {path}.')
        return 0
    servers = load_mcp_config(agent_dir, cwd, project_trusted=True).servers
    other = next((s for s in servers if s.name == name and s.scope != scope), None)
    where = ""
    if other is not None:
        where = f" It is defined in {other.source}{'; use --local' if other.scope == 'project' else '; omit --local'}."
    error(f'No {scope} MCP server named "{name}" in {path}.{where}')
    return 1


def agent_dir_and_cwd() -> tuple[Path, str]:
    from pi_coding_agent.core.paths import get_agent_dir

    return Path(get_agent_dir()), os.getcwd()
