"""How a script names a tool: characters not allowed in a JavaScript identifier become ``_``."""

from __future__ import annotations

import re

_FIRST = re.compile(r"[A-Za-z_$]")
_REST = re.compile(r"[A-Za-z0-9_$]")


def to_identifier(name: str) -> str:
    """``mcp__dev-radius__search`` -> ``mcp__dev_radius__search``; ``""`` -> ``_``."""
    out = [char if (_REST if index else _FIRST).fullmatch(char) else "_" for index, char in enumerate(name)]
    return "".join(out) or "_"
