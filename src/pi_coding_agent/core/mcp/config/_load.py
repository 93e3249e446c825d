"""Reading ``mcp.json``: the user's (``<agent dir>/mcp.json``) and, for a trusted project,
``<cwd>/.pi/mcp.json``, merged as Pi 1.6 merges them.

A project entry replaces the user entry of the same name; a project entry without
``command``, ``url`` or ``type`` only changes ``enabled``, ``exposure`` and ``toolExposure`` of
the user entry it names. Problems are collected as one line each (``<file>: <reason>``) and the
entry is skipped; the other servers still load.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Literal

from pi_coding_agent.core.mcp.config._validate import OVERRIDE_KEYS, is_override, validate_server
from pi_coding_agent.core.paths import CONFIG_DIR_NAME

Scope = Literal["global", "project", "extension"]
"""Where a server is defined: a ``mcp.json`` (user, project) or an extension's registration
(``source`` is then the extension's path)."""


@dataclass(frozen=True)
class McpServerEntry:
    """One configured server."""

    name: str
    config: dict[str, Any]
    """The validated entry (``command``/``args``/``env``/``cwd`` or ``url``/``headers``, and
    ``enabled``, ``exposure``, ``toolExposure``, ``description``, ``timeout``)."""
    source: str
    """The file that defines it."""
    scope: Scope
    override: str | None = None
    """The project file whose override entry changed it, if any."""

    @property
    def enabled(self) -> bool:
        return self.config.get("enabled") is not False


@dataclass
class McpConfig:
    servers: list[McpServerEntry] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """One line per problem: ``<file>: <reason>``."""
    auto_enable_codemode: bool | None = None
    project_config: str | None = None
    """The project file read (the project is trusted), whether or not it exists."""

    def server(self, name: str) -> McpServerEntry | None:
        return next((entry for entry in self.servers if entry.name == name), None)


def mcp_namespace(server: str) -> str:
    """``mcp__<server>`` with ``-`` as ``_``: names differing only there share it."""
    return "mcp__" + server.replace("-", "_")


def user_config_path(agent_dir: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(agent_dir), "mcp.json")


def project_config_path(cwd: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(cwd), CONFIG_DIR_NAME, "mcp.json")


def load_mcp_config(
    agent_dir: str | os.PathLike[str], cwd: str | os.PathLike[str], *, project_trusted: bool
) -> McpConfig:
    """The servers of both files (disabled ones included, ``enabled: false``) and the problems."""
    state: dict[str, McpServerEntry] = {}
    config = McpConfig()
    _read_file(user_config_path(agent_dir), "global", state, config)
    if project_trusted:
        config.project_config = project_config_path(cwd)
        _read_file(config.project_config, "project", state, config)
    config.servers = list(state.values())
    return config


def _parse(path: str, config: McpConfig) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8-sig") as file:
            text = file.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        config.errors.append(f"{path}: cannot be read ({error})")
        return None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        config.errors.append(f"{path}: invalid JSON at line {error.lineno} column {error.colno}: {error.msg}")
        return None
    if not isinstance(parsed, dict) or (
        "mcpServers" in parsed and not isinstance(parsed["mcpServers"], dict)
    ):
        config.errors.append(f'{path}: expected an object with an "mcpServers" object')
        return None
    return parsed


def _read_file(path: str, scope: Scope, state: dict[str, McpServerEntry], config: McpConfig) -> None:
    parsed = _parse(path, config)
    if parsed is None:
        return
    auto = parsed.get("autoEnableCodemode")
    if isinstance(auto, bool):
        config.auto_enable_codemode = auto
    elif "autoEnableCodemode" in parsed:
        config.errors.append(f"{path}: autoEnableCodemode must be a boolean")
    for name, value in (parsed.get("mcpServers") or {}).items():
        if scope == "project" and isinstance(value, dict) and is_override(value):
            _apply_override(path, name, value, state, config)
        else:
            _add_server(path, scope, name, value, state=state, config=config)


def _apply_override(
    path: str, name: str, value: dict[str, Any], state: dict[str, McpServerEntry], config: McpConfig
) -> None:
    base = state.get(name)
    extra = [key for key in value if key not in OVERRIDE_KEYS]
    if base is None:
        config.errors.append(
            f'{path}: server "{name}" needs "command" or "url", or a global server to override'
        )
    elif extra:
        config.errors.append(f'{path}: server "{name}": an override can only set {", ".join(OVERRIDE_KEYS)}')
    else:
        checked = validate_server(name, {**base.config, **value})
        if isinstance(checked, str):
            config.errors.append(f"{path}: {checked}")
        else:
            state[name] = McpServerEntry(name, checked, base.source, base.scope, override=path)


def _add_server(
    path: str, scope: Scope, name: str, value: Any, *, state: dict[str, McpServerEntry], config: McpConfig
) -> None:
    checked = validate_server(name, value)
    if isinstance(checked, str):
        config.errors.append(f"{path}: {checked}")
        return
    clash = next(
        (other for other in state if other != name and mcp_namespace(other) == mcp_namespace(name)), None
    )
    if clash is not None:
        config.errors.append(f'{path}: server "{name}" conflicts with "{clash}"')
        return
    if scope == "project" and "url" in checked and "auth" in checked:
        config.errors.append(f'{path}: server "{name}": auth is only allowed in the global mcp.json')
        return
    state[name] = McpServerEntry(name, checked, path, scope)
