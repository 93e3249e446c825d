"""Images inline in terminals that can show them (Kitty graphics, iTerm2), a text line elsewhere.

Support is judged from the environment as Pi does (``PI_IMAGE_PROTOCOL`` forces it:
``kitty``, ``iterm2``, ``none``). Inside tmux (or screen) neither protocol reaches the
terminal, so they get the text line, ``[Image: [image/png] 3x2]``, which joins the tool's
text output (shown where the tool shows its output) instead of being drawn below it.
"""

from __future__ import annotations

import base64
import os
import struct

IMAGE_WIDTH_CELLS = 60


def image_protocol(env: dict[str, str] | None = None) -> str | None:
    """``kitty``, ``iterm2`` or ``None`` (text instead), judged from the environment as Pi does."""
    env = dict(os.environ) if env is None else env
    forced = env.get("PI_IMAGE_PROTOCOL", "").lower()
    if forced in ("kitty", "iterm2"):
        return forced
    if forced in ("none", "0"):
        return None
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    if env.get("TMUX") or term.startswith(("tmux", "screen")):
        return None
    kitty = (
        env.get("KITTY_WINDOW_ID") or env.get("GHOSTTY_RESOURCES_DIR") or env.get("WEZTERM_PANE")
        or env.get("WARP_SESSION_ID") or env.get("WARP_TERMINAL_SESSION_UUID")
        or program in ("kitty", "ghostty", "wezterm", "warpterminal") or "ghostty" in term
    )  # fmt: skip
    if kitty:
        return "kitty"
    if env.get("ITERM_SESSION_ID") or program == "iterm.app":
        return "iterm2"
    return None


def _decoded(data: str, chars: int | None = None) -> bytes:
    part = data if chars is None else data[:chars]
    try:
        return base64.b64decode(part + "=" * (-len(part) % 4))
    except ValueError:
        return b""


def _jpeg_size(raw: bytes) -> tuple[int, int] | None:
    """From the first baseline/extended/progressive frame header (SOF0-2), walking the segments."""
    if raw[:2] != b"\xff\xd8":
        return None
    offset = 2
    while offset < len(raw) - 9:
        if raw[offset] != 0xFF:
            offset += 1
            continue
        if 0xC0 <= raw[offset + 1] <= 0xC2:
            height, width = struct.unpack(">HH", raw[offset + 5 : offset + 9])
            return width, height
        (length,) = struct.unpack(">H", raw[offset + 2 : offset + 4])
        if length < 2:
            return None
        offset += 2 + length
    return None


def _webp_size(raw: bytes) -> tuple[int, int] | None:
    if len(raw) < 30 or raw[:4] != b"RIFF" or raw[8:12] != b"WEBP":
        return None
    chunk = raw[12:16]
    if chunk == b"VP8 ":  # lossy: 14-bit sizes in the frame header
        width, height = struct.unpack("<HH", raw[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":  # lossless: two 14-bit fields, each one less than the size
        (bits,) = struct.unpack("<I", raw[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":  # extended: 24-bit fields, each one less than the size
        return int.from_bytes(raw[24:27], "little") + 1, int.from_bytes(raw[27:30], "little") + 1
    return None


def image_size(data: str, mime_type: str) -> tuple[int, int] | None:
    """``(width, height)`` in pixels of a base64 PNG, JPEG, GIF or WebP image, or ``None``."""
    if mime_type == "image/jpeg":
        return _jpeg_size(_decoded(data))  # the frame header may follow large metadata
    raw = _decoded(data, 64)
    if mime_type == "image/png" and raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) >= 24:
        width, height = struct.unpack(">II", raw[16:24])
        return int(width), int(height)
    if mime_type == "image/gif" and len(raw) >= 10:
        width, height = struct.unpack("<HH", raw[6:10])
        return int(width), int(height)
    if mime_type == "image/webp":
        return _webp_size(raw)
    return None


def image_fallback(data: str, mime_type: str) -> str:
    """The line standing for an image a terminal cannot show (Pi's wording)."""
    size = image_size(data, mime_type)
    return f"[Image: [{mime_type}]{f' {size[0]}x{size[1]}' if size else ''}]"


def image_lines(data: str, mime_type: str, width: int, protocol: str) -> list[str]:
    """The image drawn with ``protocol`` (``kitty``, ``iterm2``): the escape sequence on the
    first line, then blank lines for the rows it covers."""
    size = image_size(data, mime_type)
    cells = min(IMAGE_WIDTH_CELLS, width)
    rows = max(1, round(cells * size[1] / size[0] / 2)) if size else cells // 2
    if protocol == "iterm2":
        sequence = f"\x1b]1337;File=inline=1;width={cells};height={rows};preserveAspectRatio=1:{data}\x07"
    else:
        chunks = [data[i : i + 4096] for i in range(0, len(data), 4096)] or [""]
        parts = []
        for index, chunk in enumerate(chunks):
            more = 1 if index < len(chunks) - 1 else 0
            head = f"a=T,f=100,c={cells},r={rows},q=2," if index == 0 else ""
            parts.append(f"\x1b_G{head}m={more};{chunk}\x1b\\")
        sequence = "".join(parts)
    return [sequence, *[""] * (rows - 1)]
