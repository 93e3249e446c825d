"""Recognizing user bash input in the editor: ``!cmd`` runs and is shown to the model later,
``!!cmd`` runs and is kept out of the model's context."""

from __future__ import annotations

import re
from dataclasses import dataclass

# JavaScript's String.prototype.trim: ECMAScript white space and line terminators.
_JS_SPACE = "\t\n\u000b\u000c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_TRIM = re.compile(f"^[{_JS_SPACE}]+|[{_JS_SPACE}]+$")

ALREADY_RUNNING_WARNING = "A bash command is already running. Press Esc to cancel it first."


def js_trim(text: str) -> str:
    return _TRIM.sub("", text)


@dataclass(frozen=True, slots=True)
class BashInput:
    command: str
    exclude_from_context: bool


def parse_bash_input(text: str) -> BashInput | None:
    """The command of ``!cmd`` / ``!!cmd`` input, or ``None`` when it is a normal prompt.

    The text is trimmed first; an empty command (``!`` alone) is a normal prompt.
    """
    text = js_trim(text)
    if not text.startswith("!"):
        return None
    excluded = text.startswith("!!")
    command = js_trim(text[2:] if excluded else text[1:])
    if not command:
        return None
    return BashInput(command, excluded)
