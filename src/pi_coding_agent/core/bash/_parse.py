"""Recognizing user bash input in the editor: ``!cmd`` runs and is shown to the model later,
``!!cmd`` runs and is kept out of the model's context."""

from __future__ import annotations

from dataclasses import dataclass

from pi_ai.js_json import js_trim

ALREADY_RUNNING_WARNING = "A bash command is already running. Press Esc to cancel it first."


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
