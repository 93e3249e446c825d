"""Key names for raw terminal input, in the notation of Pi's ``keybindings.json``.

A key is written ``modifier+...+key`` with modifiers ``ctrl``, ``shift``, ``alt``,
``super`` in any order (``shift+ctrl+p`` equals ``ctrl+shift+p``). ``parse_key`` turns one
input sequence into that notation, understanding the legacy sequences every terminal
sends, the Kitty keyboard protocol (``CSI code ; mods u``) and xterm's
``modifyOtherKeys`` (``CSI 27 ; mods ; code ~``), which tmux forwards with extended keys.
"""

from __future__ import annotations

from functools import lru_cache

_MODIFIER_ORDER = ("ctrl", "shift", "alt", "super")
_ALIASES = {"esc": "escape", "return": "enter", "pageup": "pageUp", "pagedown": "pageDown"}

_LEGACY: dict[str, str] = {
    "\r": "enter",
    "\n": "ctrl+j",
    "\t": "tab",
    "\x1b": "escape",
    "\x7f": "backspace",
    "\x08": "ctrl+backspace",
    " ": "space",
    "\x00": "ctrl+space",
    "\x1b[Z": "shift+tab",
    "\x1b\r": "alt+enter",
    "\x1b\n": "alt+enter",
    "\x1b\x7f": "alt+backspace",
    "\x1b\x08": "ctrl+alt+backspace",
    "\x1b[A": "up",
    "\x1b[B": "down",
    "\x1b[C": "right",
    "\x1b[D": "left",
    "\x1bOA": "up",
    "\x1bOB": "down",
    "\x1bOC": "right",
    "\x1bOD": "left",
    "\x1b[H": "home",
    "\x1b[F": "end",
    "\x1bOH": "home",
    "\x1bOF": "end",
    "\x1b[1~": "home",
    "\x1b[4~": "end",
    "\x1b[7~": "home",
    "\x1b[8~": "end",
    "\x1b[2~": "insert",
    "\x1b[3~": "delete",
    "\x1b[5~": "pageUp",
    "\x1b[6~": "pageDown",
    "\x1bOP": "f1",
    "\x1bOQ": "f2",
    "\x1bOR": "f3",
    "\x1bOS": "f4",
    "\x1b[E": "clear",
    "\x1c": "ctrl+\\",
    "\x1d": "ctrl+]",
    "\x1e": "ctrl+^",
    "\x1f": "ctrl+-",
}
_TILDE_NUMBERS = {
    1: "home", 2: "insert", 3: "delete", 4: "end", 5: "pageUp", 6: "pageDown", 7: "home", 8: "end",
    11: "f1", 12: "f2", 13: "f3", 14: "f4", 15: "f5", 17: "f6", 18: "f7", 19: "f8", 20: "f9",
    21: "f10", 23: "f11", 24: "f12",
}  # fmt: skip
_CSI_LETTERS = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end", "E": "clear",
                "P": "f1", "Q": "f2", "R": "f3", "S": "f4"}  # fmt: skip
_CODEPOINT_NAMES = {13: "enter", 9: "tab", 27: "escape", 127: "backspace", 8: "backspace", 32: "space"}
_KITTY_FUNCTIONAL = {57399 + i: str(i) for i in range(10)} | {
    57414: "enter", 57417: "left", 57418: "right", 57419: "up", 57420: "down",
    57421: "pageUp", 57422: "pageDown", 57423: "home", 57424: "end", 57425: "insert", 57426: "delete",
}  # fmt: skip


def normalize_key(spec: str) -> str:
    """``spec`` in canonical form: lower-case modifiers in a fixed order, then the key."""
    parts = spec.split("+")
    if spec.endswith("++"):
        parts = [*spec[:-2].split("+"), "+"] if len(spec) > 2 else ["+"]
    key = parts[-1]
    modifiers = {p.lower() for p in parts[:-1] if p}
    lowered = key.lower()
    key = _ALIASES.get(lowered, lowered if len(key) > 1 and lowered not in ("pageup", "pagedown") else key)
    if len(key) == 1 and key.isalpha():
        key = key.lower()
    ordered = [m for m in _MODIFIER_ORDER if m in modifiers]
    return "+".join([*ordered, key])


def _with_modifiers(key: str, mask: int) -> str:
    modifiers = []
    if mask & 4:
        modifiers.append("ctrl")
    if mask & 1:
        modifiers.append("shift")
    if mask & 2:
        modifiers.append("alt")
    if mask & 8:
        modifiers.append("super")
    return "+".join([*modifiers, key])


def _codepoint_key(code: int) -> str:
    if code in _CODEPOINT_NAMES:
        return _CODEPOINT_NAMES[code]
    if code in _KITTY_FUNCTIONAL:
        return _KITTY_FUNCTIONAL[code]
    char = chr(code)
    return char.lower() if char.isalpha() else char


def _parse_csi(body: str, final: str) -> str | None:
    params = body.split(";") if body else []
    if final == "u" and params:
        code = int(params[0].split(":")[0] or 0)
        mods = int(params[1].split(":")[0]) - 1 if len(params) > 1 and params[1] else 0
        key = _codepoint_key(code)
        if len(key) == 1 and not key.isalpha() and mods & 1 and not mods & ~1:
            return key  # shifted symbols arrive as the symbol itself
        return _with_modifiers(key, mods)
    if final == "~" and params:
        if params[0] == "27" and len(params) >= 3:  # modifyOtherKeys
            return _with_modifiers(_codepoint_key(int(params[2])), int(params[1]) - 1)
        name = _TILDE_NUMBERS.get(int(params[0]))
        if name is None:
            return None
        mods = int(params[1]) - 1 if len(params) > 1 and params[1] else 0
        return _with_modifiers(name, mods)
    if final in _CSI_LETTERS:
        mods = int(params[1]) - 1 if len(params) > 1 and params[1] else 0
        return _with_modifiers(_CSI_LETTERS[final], mods)
    return None


@lru_cache(maxsize=1024)
def parse_key(data: str) -> str | None:
    """The canonical name of the key ``data`` encodes, or ``None`` for text and unknown sequences.

    Printable characters are text, not keys (``None``); control characters are ``ctrl+<letter>``.
    """
    if data in _LEGACY:
        return _LEGACY[data]
    if len(data) == 1:
        code = ord(data)
        if 1 <= code <= 26:
            return "ctrl+" + chr(code + 96)
        return None
    if data.startswith("\x1b["):
        final = data[-1]
        body = data[2:-1]
        if body.startswith("?") or not all(c.isdigit() or c in ";:" for c in body):
            return None
        return _parse_csi(body, final)
    if data.startswith("\x1bO") and len(data) == 3:
        return _CSI_LETTERS.get(data[2])
    if len(data) == 2 and data[0] == "\x1b":
        inner = parse_key(data[1])
        if inner is not None:
            return normalize_key("alt+" + inner)
        char = data[1]
        return "alt+" + (char.lower() if char.isalpha() and char.islower() else char)
    return None


def matches_key(data: str, spec: str) -> bool:
    """Whether input ``data`` is the key ``spec`` (``"ctrl+c"``, ``"shift+tab"``, ``"enter"``)."""
    key = parse_key(data) or shifted_letter(data)
    return key is not None and key == normalize_key(spec)


def shifted_letter(data: str) -> str | None:
    """``shift+l`` for ``L``: legacy terminals send Shift+letter as the capital letter, which
    is text to the editor but matches a ``shift+<letter>`` binding, as in Pi."""
    return f"shift+{data.lower()}" if len(data) == 1 and data.isalpha() and data.isupper() else None


def is_printable(data: str) -> bool:
    """Text to insert (one or more printable characters, no escape sequence)."""
    return bool(data) and data[0] not in "\x1b\x7f" and all(c >= " " or c == "\t" for c in data)


def decode_kitty_printable(data: str) -> str | None:
    """The text of a Kitty-protocol key event for a plain or shifted printable key."""
    if not (data.startswith("\x1b[") and data.endswith("u")):
        return None
    params = data[2:-1].split(";")
    try:
        code = int(params[0].split(":")[0])
        mods = int(params[1].split(":")[0]) - 1 if len(params) > 1 and params[1] else 0
    except ValueError:
        return None
    if mods & ~1 or code < 32 or code in _KITTY_FUNCTIONAL or code == 127:
        return None
    if mods & 1:
        shifted = params[0].split(":")
        if len(shifted) > 1 and shifted[1]:
            return chr(int(shifted[1]))
        return chr(code).upper()
    return chr(code)


def decode_printable_key(data: str) -> str | None:
    """The text of a printable key sent as a Kitty event or as xterm's modifyOtherKeys
    (``CSI 27 ; mods ; code ~``, which a terminal in that mode may send for Shift+letter)."""
    kitty = decode_kitty_printable(data)
    if kitty is not None or not (data.startswith("\x1b[27;") and data.endswith("~")):
        return kitty
    try:
        mods, code = (int(part) for part in data[5:-1].split(";"))
    except ValueError:
        return None
    if (mods - 1) & ~(64 | 128) & ~1 or code < 32 or code == 127:  # shift (and lock keys) only
        return None
    return chr(code) if code <= 0x10FFFF else None
