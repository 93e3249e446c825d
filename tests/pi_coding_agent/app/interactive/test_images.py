"""Images (ours in-process, Pi's own TUI in tmux): Ctrl+V with an image on the
clipboard (a stand-in ``xclip`` on PATH; without a display both ask ``xclip``, as Pi does on
X11) saves it to a file whose path goes into the editor; the ``read`` tool's image result is
drawn inline with the Kitty graphics protocol when the terminal has it (forced here with
``PI_IMAGE_PROTOCOL``, as neither terminal here can show images), else as Pi's text line."""

from __future__ import annotations

import os
import stat
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._tmux import editor_text

pytestmark = pytest.mark.timeout(600)

FAKE_XCLIP = """#!/bin/sh
# A clipboard holding one PNG: the targets it offers, and the image for -t image/png -o.
case "$*" in
  *TARGETS*) printf 'TARGETS\\nimage/png\\n' ;;
  *"-t image/png -o"*) cat "$PI_TEST_CLIPBOARD" ;;
  *) exit 1 ;;
esac
"""


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def _turns() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "set once pasted"}}]},
        {"text": "a small red rectangle"},
    ]


def _environment(tmp_path: Path, image: bytes) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    xclip = bin_dir / "xclip"
    xclip.write_text(FAKE_XCLIP, encoding="utf-8")
    xclip.chmod(xclip.stat().st_mode | stat.S_IEXEC)
    clipboard = tmp_path / "clipboard.png"
    clipboard.write_bytes(image)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "PI_TEST_CLIPBOARD": str(clipboard),
            "TMPDIR": str(temporary)}  # fmt: skip


def test_ctrl_v_pastes_a_clipboard_image_and_its_read_shows_as_text(tmp_path: Path, which: str) -> None:
    image = _png(3, 2)
    env = _environment(tmp_path, image)
    turns = _turns()

    async def scenario(app: Driven) -> None:
        await app.type("look at ")
        await app.wait_for("look at", region="editor")
        await app.send("C-v")
        await app.wait_for("pi-clipboard-", region="editor")
        pasted = _pasted(env)
        assert pasted.read_bytes() == image
        shown = "".join(editor_text(app.screen()).split())  # the path may wrap onto a new line
        assert shown == "".join(f"look at {pasted}".split())
        turns[0]["tool_calls"][0]["arguments"]["path"] = str(pasted)
        await app.send("Enter")
        screen = await app.wait_for("a small red rectangle")
        assert "[Image:" not in screen  # a collapsed read shows no output
        await app.send("C-o")
        await app.wait_for("[Image: [image/png] 3x2]")  # no image protocol: Pi's text line in the output
        await app.quit()

    app = play(tmp_path, which, turns, scenario, env=env, height=40)
    [user, *_] = app.messages()
    assert user["content"] == [{"type": "text", "text": f"look at {_pasted(env)}"}]


def _pasted(env: dict[str, str]) -> Path:
    """The one image file Ctrl+V saved in the run's temporary folder."""
    [pasted] = list(Path(env["TMPDIR"]).glob("pi-clipboard-*.png"))
    return pasted


def test_a_read_image_is_drawn_with_the_kitty_protocol(tmp_path: Path, which: str) -> None:
    image = _png(3, 2)
    picture = tmp_path / "picture.png"
    picture.write_bytes(image)
    turns = _turns()
    turns[0]["tool_calls"][0]["arguments"]["path"] = str(picture)
    output = tmp_path / "terminal-output"

    async def scenario(app: Driven) -> None:
        app.record_output(output)
        await app.submit("show me the picture")
        screen = await app.wait_for("a small red rectangle")
        assert "[Image:" not in screen
        await app.quit()

    play(tmp_path, which, turns, scenario, env={"PI_IMAGE_PROTOCOL": "kitty"}, height=40)
    written = output.read_bytes()
    start = written.find(b"\x1b_G")
    assert start >= 0, "no Kitty graphics command was written"
    command = written[start : written.find(b"\x1b\\", start)]
    keys = dict(part.split(b"=", 1) for part in command[3:].split(b";", 1)[0].split(b","))
    assert keys[b"a"] == b"T" and keys[b"f"] == b"100"  # transmit and show, PNG data
    # 3x2 pixels scaled to 60 columns of 9x18-pixel cells, 20 rows; the cursor left in place.
    assert (keys[b"c"], keys[b"r"], keys[b"C"], keys[b"q"]) == (b"60", b"20", b"1", b"2")
