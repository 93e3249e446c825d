"""Texts only Python itself produces, which must never reach a user-facing message.

V8's ``TypeError`` messages, which Pi shows too, do not match.
"""

from __future__ import annotations

import re

PYTHON_WORDING = re.compile(
    r"Traceback|NoneType|has no attribute|not subscriptable|unhashable|object is not callable"
    r"|invalid literal for|positional argument|maximum recursion|RecursionError|AttributeError"
    r"|KeyError|IndexError|ValueError|TypeError: '|'(?:dict|list|str|int|float|bool)' object"
    r"|can only concatenate|unsupported operand|codec can't"
)
