"""Tool names as Pi 1.6 gives them: ``mcp__<server>__<tool>`` with every character but letters,
digits and ``_`` as ``_``; names longer than 64 characters, and every name of a server that two
of its tools sanitize to, end in ``_`` and eight hex digits of a SHA-256 of ``server\\0tool``."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence

MAX_TOOL_NAME_LENGTH = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def mcp_tool_name(server: str, tool: str, is_taken: Callable[[str], bool] = lambda name: False) -> str:
    name = _UNSAFE.sub("_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME_LENGTH and not is_taken(name):
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME_LENGTH - len(digest) - 1]}_{digest}"


def server_tool_names(server: str, tools: Sequence[str], owners: dict[str, str]) -> dict[str, str]:
    """``{tool: name}`` for one server's tools. ``owners`` (name to ``server\\0tool``) keeps names
    unique and stable across the run's servers and tool-list changes."""
    plain = [mcp_tool_name(server, tool) for tool in dict.fromkeys(tools)]
    current: set[str] = set()
    names: dict[str, str] = {}
    for tool in tools:
        owner = f"{server}\0{tool}"

        def taken(candidate: str, owner: str = owner) -> bool:
            existing = owners.get(candidate)
            return (
                (existing is not None and existing != owner)
                or candidate in current
                or plain.count(candidate) > 1
            )

        name = mcp_tool_name(server, tool, taken)
        owners[name] = owner
        current.add(name)
        names[tool] = name
    return names
