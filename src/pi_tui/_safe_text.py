"""What of a text from a model, a tool, an extension or a session file may reach a terminal.

The one owner of the terminal-output policy (docs/security.md, "Terminal output"). Content
keeps its printable text, tabs, newlines and SGR sequences (colours, bold, underline);
every other control is dropped, one rule for all families:

* string sequences (OSC: titles, clipboard, hyperlinks, colours; DCS; APC; PM; SOS), 7-bit
  (``ESC ] ... ST``) or 8-bit (U+009D ... U+009C): dropped with their payload when they are
  terminated (BEL, ``ESC \\`` or U+009C); an unterminated one (no terminator before the next
  ESC or C1 control) loses its introducer only, so the rest shows as plain text instead of
  vanishing. A payload never spans another ESC or C1 control, which also keeps the cost
  linear in the text's length whatever it holds;
* CSI sequences other than SGR (cursor moves, erase and clear, scrolling, mode set and
  reset, device queries such as DSR and DA whose answers would arrive as pi's input), and
  every CSI in its 8-bit form U+009B: dropped;
* any other escape (``ESC c`` reset, ``ESC 7``/``ESC 8``, charset shifts, the 7-bit C1 forms
  ``ESC D``/``ESC E``/``ESC M``...), a lone ESC, C0 controls but tab and newline (so carriage
  return, backspace, BEL, SI/SO), DEL and the C1 controls U+0080-U+009F: dropped.

What our own UI draws around that content (its colours, cursor marker, OSC 8 links it makes,
the renderer's own cursor moves) never passes through here: the policy applies to content,
where it enters a component, not to the frames the renderer writes.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SEQUENCE = re.compile(
    r"(?:\x1b[\]P_^X]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x80-\x9f]*(?:\x07|\x1b\\|\x9c)"  # a terminated string
    r"|(?P<csi>(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?)"  # CSI, its final byte perhaps still missing
    r"|\x1b[ -/]*[0-~]?"  # any other escape (an unterminated string's introducer too), a lone ESC
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # C0 but tab and newline, DEL, C1
)
_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def terminal_safe(text: str, *, keep_sgr: bool = True, known_clean: int = 0) -> str:
    """``text`` as it may be written to a terminal: printable text, tabs, newlines and (with
    ``keep_sgr``) SGR sequences; every other control removed (see the module's docstring).

    ``known_clean``: the length of a prefix already known to hold no control at all (a
    streamed answer's text so far), which is not searched again. Text without controls is
    returned as it is (the same object)."""
    found = _UNSAFE.search(text, known_clean)
    if found is None:
        return text
    out: list[str] = [text[: found.start()]]
    while found is not None:  # every control starts a match, so only those places are tried
        sequence = _SEQUENCE.match(text, found.start())
        assert sequence is not None
        if keep_sgr and sequence.group("csi") and _SGR.fullmatch(sequence.group()):
            out.append(sequence.group())
        found = _UNSAFE.search(text, sequence.end())
        out.append(text[sequence.end() : found.start() if found is not None else len(text)])
    return "".join(out)
