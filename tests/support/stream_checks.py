"""Checks the fuzz tests share: a stream settled exactly once, and no Python-only wording in what
a user reads."""

from __future__ import annotations

import re
from typing import Any

PYTHON_WORDING = re.compile(
    r"Traceback|NoneType|has no attribute|not subscriptable|unhashable|object is not callable"
    r"|invalid literal for|positional argument|maximum recursion|RecursionError|AttributeError"
    r"|KeyError|IndexError|ValueError|TypeError: '|'(?:dict|list|str|int|float|bool)' object"
    r"|can only concatenate|unsupported operand|codec can't"
)
"""Texts only Python produces (V8's ``TypeError`` messages, which Pi shows too, do not match)."""


def settled_once(events: list[Any], result: Any) -> Any:
    """The terminal event of ``events`` after checking it is the one ``done`` or ``error``, that it
    comes last, and that the stream's ``result`` is what it carries."""
    kinds = [event.type for event in events]
    assert kinds[-1] in ("done", "error") and all(kind not in ("done", "error") for kind in kinds[:-1]), kinds
    terminal = events[-1]
    assert result is (terminal.message if terminal.type == "done" else terminal.error)
    return terminal
