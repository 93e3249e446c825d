"""Images inline in terminals that can show them (Kitty graphics, iTerm2), a text line elsewhere.

Support is judged from the environment as Pi does (``PI_IMAGE_PROTOCOL`` forces it:
``kitty``, ``iterm2``, ``none``). Inside tmux (or screen) neither protocol reaches the
terminal, so they get the text line, ``[Image: [image/png] 3x2]``, which joins the tool's
text output (shown where the tool shows its output) instead of being drawn below it.
"""

from __future__ import annotations

import base64
import math
import os
import struct

IMAGE_WIDTH_CELLS = [60]  # the widest an image is drawn, in cells: ``terminal.imageWidthCells``
_FORCED_PROTOCOL: list[str | bool | None] = [None]  # ``terminal.images`` ("kitty", "iterm2", False)
CELL_PX = [9, 18]  # the terminal's cell in pixels: Pi's default until the terminal tells (set_cell_size)
KITTY_CHUNK = 4096


def configure_images(protocol: object, width_cells: int) -> None:
    """Pi's ``terminal.images`` (``"kitty"``, ``"iterm2"``, ``false``; anything else: detect)
    and ``terminal.imageWidthCells``."""
    _FORCED_PROTOCOL[0] = protocol if protocol in ("kitty", "iterm2", False) else None
    IMAGE_WIDTH_CELLS[0] = max(1, width_cells)


def image_protocol(env: dict[str, str] | None = None) -> str | None:
    """``kitty``, ``iterm2`` or ``None`` (text instead): the ``terminal.images`` setting, else
    ``PI_IMAGE_PROTOCOL``, else judged from the environment, as Pi does (its settings override
    what it detects, the variable included)."""
    setting = _FORCED_PROTOCOL[0]
    if setting is not None:
        return setting if isinstance(setting, str) else None
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


def set_cell_size(width_px: int, height_px: int) -> None:
    """The terminal's answer to ``CSI 16 t``: images are sized with its cells from now on."""
    CELL_PX[:] = [width_px, height_px]


def cell_size(image: tuple[int, int] | None, width: int) -> tuple[int, int]:
    """``(columns, rows)`` an image takes: scaled to at most ``IMAGE_WIDTH_CELLS[0]`` columns
    (two fewer than the width) and as many rows as make a square, keeping its proportions,
    in cells of ``CELL_PX``."""
    max_columns = max(1, min(width - 2, IMAGE_WIDTH_CELLS[0]))
    max_rows = max(1, math.ceil(max_columns * CELL_PX[0] / CELL_PX[1]))
    if image is None:
        return max_columns, max_rows
    image_width, image_height = max(1, image[0]), max(1, image[1])
    scale = min(max_columns * CELL_PX[0] / image_width, max_rows * CELL_PX[1] / image_height)
    columns = math.ceil(image_width * scale / CELL_PX[0])
    rows = math.ceil(image_height * scale / CELL_PX[1])
    return max(1, min(max_columns, columns)), max(1, min(max_rows, rows))


def kitty_sequence(data: str, columns: int, rows: int, image_id: int) -> str:
    """Transmit and show a PNG (``f=100``) over ``columns`` x ``rows`` cells, quietly (``q=2``),
    leaving the cursor where it was (``C=1``); sent in chunks of 4096 base64 characters."""
    head = f"a=T,f=100,q=2,C=1,c={columns},r={rows},i={image_id}"
    if len(data) <= KITTY_CHUNK:
        return f"\x1b_G{head};{data}\x1b\\"
    chunks = [data[i : i + KITTY_CHUNK] for i in range(0, len(data), KITTY_CHUNK)]
    parts = [f"\x1b_G{head},m=1;{chunks[0]}\x1b\\"]
    parts += [f"\x1b_Gm={0 if n == len(chunks) - 1 else 1};{chunk}\x1b\\" for n, chunk in enumerate(chunks) if n]
    return "".join(parts)


def image_lines(data: str, mime_type: str, width: int, protocol: str, image_id: int = 1) -> list[str]:
    """The image drawn with ``protocol``, taking as many lines as it covers. Kitty's goes on
    the first line (the cursor stays put); iTerm2's on the last, after moving up to the first
    (the cursor ends below the image)."""
    columns, rows = cell_size(image_size(data, mime_type), width)
    if protocol == "kitty":
        return [kitty_sequence(data, columns, rows, image_id), *[""] * (rows - 1)]
    size = len(base64.b64decode(data + "=" * (-len(data) % 4))) if data else 0
    sequence = f"\x1b]1337;File=inline=1;size={size};width={columns};height=auto:{data}\x07"
    return [*[""] * (rows - 1), (f"\x1b[{rows - 1}A" if rows > 1 else "") + sequence]
