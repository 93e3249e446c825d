"""The ANSI-to-HTML converter behind the screenshots in docs/tui (tools/tui_screens.py)."""

from __future__ import annotations

from pathlib import Path

from tests.support import chromium
from tests.support.ansi_html import ansi_page, ansi_to_spans, colour_256, standalone_lines


def test_styles_become_spans_and_text_is_escaped() -> None:
    text = "plain \x1b[1;38;5;109mbold accent\x1b[0m <tag> \x1b[48;2;1;2;3mbg\x1b[49m \x1b[7mrev\x1b[27m\x1b[?25l"
    spans = ansi_to_spans(text, "#d4d4d4", "#1e1e1e")
    assert spans == (
        'plain <span style="color:#87afaf;font-weight:bold">bold accent</span> &lt;tag&gt; '
        '<span style="background:#010203;padding:1px 0">bg</span> '
        '<span style="color:#1e1e1e;background:#d4d4d4;padding:1px 0">rev</span>'
    )


def test_the_256_colour_palette() -> None:
    assert standalone_lines("a\x1b[31mb\nc\x1b[0m\nd") == ["a\x1b[31mb", "\x1b[31mc\x1b[0m", "d"]
    assert [colour_256(i) for i in (1, 9, 16, 21, 196, 232, 255)] == [
        "#cd0000", "#ff0000", "#000000", "#0000ff", "#ff0000", "#080808", "#eeeeee"
    ]  # fmt: skip


def test_a_page_renders_in_chromium(tmp_path: Path) -> None:
    page = tmp_path / "screen.html"
    page.write_text(ansi_page("\x1b[31mred\x1b[0m ─── done"), encoding="utf-8")
    dom = chromium.dump_dom(page)
    assert '<span style="color:#cd0000">red</span> ─── done' in dom
    chromium.screenshot(page, tmp_path / "screen.png", width=300, height=60)
