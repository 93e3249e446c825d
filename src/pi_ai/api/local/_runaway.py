"""When a tool call being written has gone wrong: the same text over and over, or too long.

Qwen2.5-Coder 1.5B once wrote one ``edit`` call whose ``edits`` array held the same block 240
times, until the 8 192-token output cap: 14 minutes without output, and then the call was dropped
anyway (issue 27). A call is therefore cut off as soon as

- an array of its arguments holds the same object (or array) ``REPEAT_ITEMS`` times in a row
  (three identical ``edits`` blocks are never meant: the edit tool refuses overlapping blocks);
- its text ends with one piece written at least ``REPEAT_TIMES`` times in a row spanning at least
  ``REPEAT_SPAN`` characters (the same lines in ``newText`` over and over): real files repeat
  short pieces (a row of a zero matrix, a rule of dashes), so only a long run counts;
- its text passes ``MAX_CALL_CHARS`` characters, well below the output cap.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

MAX_CALL_CHARS = 12_000
"""A call's JSON text may not be longer (about 3 000 tokens of code; the 1.5B's output cap is
8 192 tokens). A file that long is better written in parts."""
REPEAT_UNIT = 24
"""Shortest piece whose repetition counts: shorter ones (``----``, ``0, 0, 0``) occur in real files."""
REPEAT_TIMES = 3
REPEAT_SPAN = 1_200
REPEAT_ITEMS = 3
REPEAT_DISTINCT = 6
"""A repeated piece must hold this many different characters (a run of dashes is not a loop)."""
WINDOW = 3_000
"""Only the call's last characters are searched: a repeated piece is at most a third of this."""
CHECK_EVERY = 48
"""The text is searched each time it has grown by this many characters."""

REPEATED = "repeated"
TOO_LONG = "too-long"


def repeated_tail(text: str) -> int | None:
    """The length of a piece that ``text`` ends with, written again and again (see the module), or None."""
    tail = text[-WINDOW:]
    end = len(tail)
    for size in range(REPEAT_UNIT, end // REPEAT_TIMES + 1):
        if tail[end - size :] != tail[end - 2 * size : end - size]:
            continue
        times = max(REPEAT_TIMES, -(-REPEAT_SPAN // size))
        if times * size > end:
            continue
        unit = tail[end - size :]
        if len(set(unit)) >= REPEAT_DISTINCT and tail[end - times * size :] == unit * times:
            return size
    return None


@dataclass
class CallWatch:
    """Watches the text of the call being written; ``check`` names what went wrong, once."""

    checked: int = field(default=0)

    def check(self, raw: str, arguments: object = None) -> str | None:
        """``raw``: the call's text so far; ``arguments``: what of its arguments is parsed so far."""
        if len(raw) > MAX_CALL_CHARS:
            return TOO_LONG
        if len(raw) - self.checked < CHECK_EVERY:
            return None
        self.checked = len(raw)
        return REPEATED if repeated_items(arguments) or repeated_tail(raw) is not None else None


def repeated_items(value: object) -> bool:
    """Whether an array in ``value`` holds the same object or array ``REPEAT_ITEMS`` times in a row
    (its last item, which may still be incomplete, not counted)."""
    if isinstance(value, dict):
        return any(repeated_items(item) for item in value.values())
    if not isinstance(value, list):
        return False
    complete = value[:-1]
    run = 1
    for before, item in itertools.pairwise(complete):
        run = run + 1 if isinstance(item, (dict, list)) and item == before else 1
        if run >= REPEAT_ITEMS:
            return True
    return any(repeated_items(item) for item in value)


def cut_note(reason: str) -> str:
    """The line the model is given when its call was cut off and the turn is written again."""
    if reason == TOO_LONG:
        return (
            f"(Your last tool call was cut off unrun: its arguments passed {MAX_CALL_CHARS} characters. "
            "Make the change in smaller steps: one small edit at a time, or a shorter file.)"
        )
    return (
        "(Your last tool call was cut off unrun: it wrote the same text over and over. "
        "Write the call again with each part written once.)"
    )


def cut_error(reason: str) -> str:
    """What the user reads when the call was cut off and could not be written again."""
    if reason == TOO_LONG:
        return f"the model's tool call passed {MAX_CALL_CHARS} characters of arguments; it was cut off and not run"
    return "the model's tool call repeated the same text over and over; it was cut off and not run"
