"""Cleaning terminal output for display and storage: ANSI escapes and control characters.

User bash output is shown in the UI and stored in the session, so colour codes, cursor
movement and stray control bytes (from binary output) are removed; tabs and newlines stay
and carriage returns are dropped.
"""

from __future__ import annotations

import re

# Escape sequences: OSC (ESC ] ... terminated by BEL, ESC \ or the 8-bit ST) and CSI-like
# sequences (ESC or the 8-bit CSI, optional intermediates, numeric parameters, a final byte).
_OSC = r"\x1b\][\s\S]*?(?:\x07|\x1b\\|\x9c)"
_CSI = r"[\x1b\x9b][\[\]()#;?]*(?:[0-9]{1,4}(?:[;:][0-9]{0,4})*)?[0-9A-PR-TZcf-nq-uy=><~]"
_ANSI = re.compile(f"{_OSC}|{_CSI}")
# What may still become a sequence when the next chunk arrives.
_UNFINISHED = re.compile(
    r"(?:\x1b\][^\x07\x9c]*\x1b?|[\x1b\x9b][\[\]()#;?]*(?:[0-9]{1,4}(?:[;:][0-9]{0,4})*)?)\Z"
)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufff9-\ufffb]")
_HOLD_LIMIT = 4096


def strip_ansi(text: str) -> str:
    if "\x1b" not in text and "\x9b" not in text:
        return text
    return _ANSI.sub("", text)


def sanitize_binary_output(text: str) -> str:
    """Drop control characters except tab, newline and carriage return, and U+FFF9-U+FFFB."""
    return _CONTROL.sub("", text)


def sanitize(text: str) -> str:
    """ANSI escapes, control characters and carriage returns removed."""
    return sanitize_binary_output(strip_ansi(text)).replace("\r", "")


class StreamSanitizer:
    """``sanitize`` over a stream: an escape sequence split across chunks is still removed."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, text: str) -> str:
        text = self._held + text
        self._held = ""
        start = max(text.rfind("\x1b"), text.rfind("\x9b"))
        if start != -1 and len(text) - start <= _HOLD_LIMIT and _UNFINISHED.match(text, start):
            self._held = text[start:]
            text = text[:start]
        return sanitize(text)

    def flush(self) -> str:
        held, self._held = self._held, ""
        return sanitize(held)
