"""``env`` and ``headers`` values of ``mcp.json``: ``${VAR}``/``$VAR`` templates and ``!command``
(the whole value), resolved each time a server starts (no cache, as Pi 1.6 does for MCP), with
Pi's error when a value cannot be resolved."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping

from pi_coding_agent.core.auth import referenced_env_vars, resolve_config_value


class McpValueError(Exception):
    """A configured value could not be resolved; the message names the server and field."""


def _run(command: str) -> str | None:
    try:
        completed = subprocess.run(
            command, shell=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if completed.returncode != 0:
        return None
    return completed.stdout.decode("utf-8", "replace").strip() or None


def resolve_value(value: str, description: str) -> str:
    """The value, or ``McpValueError`` saying which variable or command failed."""
    if value.startswith("!"):
        resolved = _run(value[1:])
        if resolved is None:
            raise McpValueError(f"Failed to resolve {description} from shell command: {value[1:]}")
        return resolved
    resolved = resolve_config_value(value)
    if resolved is not None:
        return resolved
    missing = [name for name in referenced_env_vars(value) if resolve_config_value(f"${{{name}}}") is None]
    if len(missing) == 1:
        raise McpValueError(f"Failed to resolve {description} from environment variable: {missing[0]}")
    if missing:
        raise McpValueError(
            f"Failed to resolve {description} from environment variables: {', '.join(missing)}"
        )
    raise McpValueError(f"Failed to resolve {description}")


def resolve_env(server: str, env: Mapping[str, str]) -> dict[str, str]:
    return {key: resolve_value(value, f'MCP server "{server}" env "{key}"') for key, value in env.items()}


def resolve_headers(server: str, headers: Mapping[str, str]) -> dict[str, str]:
    return {
        key: resolve_value(value, f'MCP server "{server}" header "{key}"') for key, value in headers.items()
    }
