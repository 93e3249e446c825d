"""Values in ``auth.json`` and ``models.json`` that name where a secret comes from.

Same rules as Pi:

* ``"!command"``: run ``command`` with the shell, use its trimmed stdout (cached for the
  process; a failure or empty output means "no value");
* otherwise a template: ``$NAME`` and ``${NAME}`` are replaced by environment variables
  (a scoped ``env`` mapping first, then the process), ``$$`` is a literal ``$`` and ``$!``
  a literal ``!``; if any referenced variable is unset or empty the value is missing;
* anything else is taken literally.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_command_cache: dict[str, str | None] = {}


def _env_value(name: str, env: Mapping[str, str] | None) -> str | None:
    return (env.get(name) if env else None) or os.environ.get(name) or None


def _template_parts(config: str) -> list[tuple[str, str]]:
    """``[("literal", text) | ("env", NAME)]`` in order."""
    parts: list[tuple[str, str]] = []

    def literal(text: str) -> None:
        if not text:
            return
        if parts and parts[-1][0] == "literal":
            parts[-1] = ("literal", parts[-1][1] + text)
        else:
            parts.append(("literal", text))

    index = 0
    while index < len(config):
        dollar = config.find("$", index)
        if dollar < 0:
            literal(config[index:])
            break
        literal(config[index:dollar])
        following = config[dollar + 1 : dollar + 2]
        if following in ("$", "!"):
            literal(following)
            index = dollar + 2
            continue
        if following == "{":
            end = config.find("}", dollar + 2)
            if end < 0:
                literal("$")
                index = dollar + 1
                continue
            name = config[dollar + 2 : end]
            if _NAME.fullmatch(name):
                parts.append(("env", name))
            else:
                literal(config[dollar : end + 1])
            index = end + 1
            continue
        match = _NAME.match(config, dollar + 1)
        if match:
            parts.append(("env", match.group(0)))
            index = match.end()
            continue
        literal("$")
        index = dollar + 1
    return parts


def referenced_env_vars(config: str) -> list[str]:
    """Environment variables a (non-command) value needs, in order, without duplicates."""
    if config.startswith("!"):
        return []
    names: list[str] = []
    for kind, value in _template_parts(config):
        if kind == "env" and value not in names:
            names.append(value)
    return names


def is_configured(config: str, env: Mapping[str, str] | None = None) -> bool:
    """True when every referenced variable is set (commands count as configured)."""
    return all(_env_value(name, env) is not None for name in referenced_env_vars(config))


def resolve_config_value(config: str, env: Mapping[str, str] | None = None) -> str | None:
    """The value ``config`` stands for, or ``None`` when it cannot be resolved."""
    if config.startswith("!"):
        return _run_command(config[1:])
    resolved = []
    for kind, value in _template_parts(config):
        if kind == "literal":
            resolved.append(value)
            continue
        found = _env_value(value, env)
        if found is None:
            return None
        resolved.append(found)
    return "".join(resolved)


def _run_command(command: str) -> str | None:
    if command in _command_cache:
        return _command_cache[command]
    try:
        completed = subprocess.run(
            command,
            shell=True,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
        output = completed.stdout.decode("utf-8", "replace").strip() if completed.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        output = ""
    value = output or None
    _command_cache[command] = value
    return value
