"""The escape families a terminal must never receive from content (docs/security.md,
"Terminal output"): a sample of each, hypothesis strategies that make complete sequences of
each with random parameters and payloads, and ``leaks``, which names what got through.

``leaks`` does not share the policy's parsing: once SGR sequences are taken out, any C0
control but tab and newline, DEL or C1 control left in a text is a leak (without ESC, the
8-bit introducers and the other controls, no sequence of any family can be formed).
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

SAMPLES: dict[str, str] = {
    "OSC 52 clipboard": "\x1b]52;c;cHduZWQ=\x07",
    "OSC 0/1/2 title": "\x1b]0;owned\x07\x1b]1;icon\x1b\\\x1b]2;window\x07",
    "OSC 8 link": "\x1b]8;;https://evil.example\x1b\\",
    "OSC colour set/query": "\x1b]11;?\x07\x1b]4;1;rgb:ff/00/00\x07",
    "DCS": "\x1bP$qm\x1b\\",
    "APC": "\x1b_Ga=T,f=100;AAAA\x1b\\",
    "PM": "\x1b^private\x1b\\",
    "SOS": "\x1bXstring\x1b\\",
    "C1 8-bit": "\x9b2J\x9d0;t8\x9c\x85\x84\x8d\x90q\x9c",
    "C1 7-bit": "\x1bD\x1bE\x1bM\x1bH\x1bZ",
    "cursor move": "\x1b[10;5H\x1b[3A\x1b[s\x1b7\x1b8\x1b[1;5r",
    "erase/clear": "\x1b[2J\x1b[3J\x1b[K\x1bc",
    "mode set/reset": "\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[4h\x1b[?2004l\x1b[>4;2m",
    "device query": "\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b[21t\x1b[18t",
    "charset shift": "\x1b(0\x1b)B\x0e\x0f\x1b#8",
    "C0 control": "\r\x08\x07\x0b\x0c\x7f",
}
"""One sample of each family; none of it may reach a terminal."""

SGR = re.compile(r"\x1b\[[0-9;:]*m")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def leaks(text: str) -> list[str]:
    """The controls left in ``text`` once its SGR sequences are gone, each as ``repr`` with a
    little context (empty when the text is safe for a terminal)."""
    rest = SGR.sub("", text)
    return [repr(rest[max(0, m.start() - 8) : m.end() + 8]) for m in _CONTROL.finditer(rest)]


# ---------------------------------------------------------------------- strategies

_PAYLOAD = st.text(  # what a string sequence carries: anything but BEL, ESC and C1
    st.characters(exclude_characters="\x07\x1b" + "".join(map(chr, range(0x80, 0xA0))), exclude_categories=("Cs",)),
    max_size=40,
)
_PARAMS = st.lists(st.integers(0, 9999).map(str), max_size=4).map(";".join)
_TERMINATOR = st.sampled_from(["\x07", "\x1b\\", "\x9c"])
TEXT = st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=30)
"""Printable text: what must come through unchanged."""
SGR_SEQUENCE = st.lists(st.integers(0, 255).map(str), max_size=5).map(lambda ps: f"\x1b[{';'.join(ps)}m")


def _string(introducers: str) -> st.SearchStrategy[str]:
    seven_bit = {"]": "\x9d", "P": "\x90", "_": "\x9f", "^": "\x9e", "X": "\x98"}
    forms = [f"\x1b{kind}" for kind in introducers] + [seven_bit[kind] for kind in introducers]
    return st.tuples(st.sampled_from(forms), _PAYLOAD, _TERMINATOR).map("".join)


def _osc(codes: list[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(["\x1b]", "\x9d"]), st.sampled_from(codes), _PAYLOAD, _TERMINATOR).map(
        lambda p: f"{p[0]}{p[1]};{p[2]}{p[3]}"
    )


def _csi(finals: str, prefixes: str = "") -> st.SearchStrategy[str]:
    return st.tuples(
        st.sampled_from(["\x1b[", "\x9b"]), st.sampled_from(["", *prefixes]), _PARAMS, st.sampled_from(finals)
    ).map("".join)


STRATEGIES: dict[str, st.SearchStrategy[str]] = {
    "OSC 52 clipboard": _osc(["52"]),
    "OSC 0/1/2 title": _osc(["0", "1", "2"]),
    "OSC 8 link": _osc(["8;"]),
    "OSC colour set/query": _osc(["4", "10", "11", "12", "104"]),
    "DCS": _string("P"),
    "APC": _string("_"),
    "PM": _string("^"),
    "SOS": _string("X"),
    "C1 8-bit": st.characters(min_codepoint=0x80, max_codepoint=0x9F).filter(
        lambda c: c not in "\x90\x98\x9b\x9d\x9e\x9f"  # the introducers: their families make them
    ),
    "C1 7-bit": st.sampled_from("DEHMNOVWZ\\").map(lambda c: f"\x1b{c}"),
    "cursor move": _csi("ABCDEFGHIJKSTdfrsu`aeP@LMX"),
    "erase/clear": st.one_of(_csi("JK"), st.just("\x1bc")),
    "mode set/reset": st.one_of(
        _csi("hl", "?>=<"),  # DEC and ANSI modes, with and without a private marker
        st.tuples(st.sampled_from(["\x1b[", "\x9b"]), st.sampled_from(">?"), _PARAMS).map(lambda p: "".join(p) + "m"),
    ),
    "device query": _csi("nctx", "?>="),
    "charset shift": st.one_of(
        st.tuples(st.just("\x1b"), st.sampled_from("()*+#%"), st.sampled_from("0AB<58@G")).map("".join),
        st.sampled_from("\x0e\x0f"),
    ),
    "C0 control": st.characters(max_codepoint=0x1F).filter(lambda c: c not in "\t\n\x1b") | st.just("\x7f"),
}
"""Complete sequences of each family (7-bit and 8-bit forms, random parameters and payloads)."""

assert set(STRATEGIES) == set(SAMPLES)
