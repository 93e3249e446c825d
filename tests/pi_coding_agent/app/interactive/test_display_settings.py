"""Display settings Pi reads, each run on ours (in-process) and on Pi 0.85's TUI (tmux) with
the same script: ``markdown.codeBlockIndent``, ``terminal.images``,
``terminal.imageWidthCells``, ``terminal.showImages`` and ``terminal.showTerminalProgress``."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play

pytestmark = pytest.mark.timeout(600)

CODE_ANSWER = "Code:\n\n```python\ndef f(x):\n    return x + 1\n```\n\nEND-CODE"
ACTIVE, CLEAR = b"\x1b]9;4;3\x07", b"\x1b]9;4;0\x07"
IMAGE_LINE = "[Image: [image/png] 3x2]"


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x00\x80\xff" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _code_lines(tmp_path: Path, which: str, settings: dict[str, Any]) -> list[str]:
    lines: list[str] = []

    async def scenario(app: Driven) -> None:
        await app.submit("show code")
        screen = await app.wait_for("END-CODE")
        lines.extend(line.rstrip() for line in screen.splitlines() if "def f" in line or "return x" in line)
        await app.quit()

    play(tmp_path / f"{which}-{len(settings)}", which, [{"text": CODE_ANSWER}], scenario, settings=settings)
    return lines


def test_code_block_indent_is_pis(tmp_path: Path) -> None:
    four = {"markdown": {"codeBlockIndent": "    "}}
    ours, pis = _code_lines(tmp_path, "ours", four), _code_lines(tmp_path, "pi", four)
    assert ours == pis
    default = _code_lines(tmp_path, "ours", {})
    assert [line[2:] for line in ours] == default  # two more spaces than the default's two
    assert ours[0].strip() == "def f(x):"


def _image_run(
    tmp_path: Path, which: str, settings: dict[str, Any], env: dict[str, str], expanded: str | None = None
) -> tuple[str, bytes]:
    """The screen once the answer came (then, with ``expanded``, once Ctrl+O showed it) and
    everything written to the terminal."""
    picture = tmp_path / "picture.png"
    picture.write_bytes(_png(3, 2))
    turns = [
        {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": str(picture)}}]},
        {"text": "IMAGE-SEEN"},
    ]
    output = tmp_path / "terminal-output"
    seen: list[str] = []

    async def scenario(app: Driven) -> None:
        app.record_output(output)
        await app.submit("show me the picture")
        seen.append(await app.wait_for("IMAGE-SEEN"))
        if expanded is not None:  # a collapsed read shows no output; expanded, what stands for the image
            await app.send("C-o")
            seen.append(await app.wait_for(expanded))
        await app.quit()

    play(tmp_path, which, turns, scenario, settings=settings, env=env, height=40)
    return seen[-1], output.read_bytes()


def _kitty_keys(written: bytes) -> dict[bytes, bytes]:
    start = written.find(b"\x1b_G")
    assert start >= 0, "no Kitty graphics command was written"
    command = written[start : written.find(b"\x1b\\", start)]
    return dict(part.split(b"=", 1) for part in command[3:].split(b";", 1)[0].split(b","))


def test_terminal_images_forces_a_protocol_and_image_width_cells_sizes_it(tmp_path: Path, which: str) -> None:
    """No ``PI_IMAGE_PROTOCOL``: the setting alone turns Kitty images on; 3x2 pixels at 30
    columns of 9x18-pixel cells take 10 rows."""
    settings = {"terminal": {"images": "kitty", "imageWidthCells": 30}}
    screen, written = _image_run(tmp_path, which, settings, {})
    keys = _kitty_keys(written)
    assert (keys[b"a"], keys[b"f"], keys[b"c"], keys[b"r"]) == (b"T", b"100", b"30", b"10")
    assert IMAGE_LINE not in screen


@pytest.mark.parametrize(
    "terminal", [{"images": False}, {"showImages": False}], ids=["images-false", "show-images-false"]
)
def test_images_off_show_pis_text_line(tmp_path: Path, which: str, terminal: dict[str, Any]) -> None:
    """Either setting wins over a terminal that can draw images (``PI_IMAGE_PROTOCOL=kitty``)."""
    settings = {"terminal": terminal}
    _, written = _image_run(tmp_path, which, settings, {"PI_IMAGE_PROTOCOL": "kitty"}, expanded=IMAGE_LINE)
    assert b"\x1b_G" not in written


@pytest.mark.parametrize("on", [True, False], ids=["on", "off"])
def test_show_terminal_progress(tmp_path: Path, which: str, on: bool) -> None:
    """While the agent works the tab shows progress (``OSC 9;4;3``), cleared after; off by default."""
    output = tmp_path / "terminal-output"

    async def scenario(app: Driven) -> None:
        app.record_output(output)
        await app.submit("work a little")
        await app.wait_for("WORK-DONE")
        await app.wait_until(lambda s: "Working" not in s, "the turn did not end")
        await app.quit()

    settings = {"terminal": {"showTerminalProgress": True}} if on else {}
    turns = [{"text": "WORK-DONE " * 2, "chunk_delay": 0.3}]  # about 2.4 s: the 1 s repeat comes too
    play(tmp_path, which, turns, scenario, settings=settings)
    written = output.read_bytes()
    if on:
        assert ACTIVE in written
        assert written.rfind(CLEAR) > written.rfind(ACTIVE)
    else:
        assert ACTIVE not in written and CLEAR not in written
