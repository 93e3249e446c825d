"""Components rendered to lines at given widths, the renderer's output, keys, editor, themes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_coding_agent.app.interactive.components._footer import format_tokens
from pi_coding_agent.app.interactive.components._tools import render_diff
from pi_coding_agent.customize.themes import ThemeError, builtin_theme, load_theme_file
from pi_tui import (
    TUI_DEFAULTS,
    Box,
    Editor,
    InputSplitter,
    Keybindings,
    Markdown,
    Paste,
    Rgb,
    ScreenRenderer,
    Text,
    parse_key,
    read_keybindings_file,
    rgb_to_256,
    strip_ansi,
    truncate_to_width,
    visible_width,
    wrap_text_with_ansi,
)


@pytest.mark.parametrize("width", [10, 17, 40])
def test_wrapped_text_fits_and_keeps_every_word(width: int) -> None:
    text = "\x1b[31mred words\x1b[39m that wrap around the given width, with a verylongwordthatmustbreak"
    lines = wrap_text_with_ansi(text, width)
    assert all(visible_width(line) <= width for line in lines)
    assert "".join(strip_ansi(line) for line in lines).replace(" ", "") == strip_ansi(text).replace(" ", "")
    assert lines[0].startswith("\x1b[31m")
    spanning = wrap_text_with_ansi("\x1b[31mone two three\x1b[39m", 8)
    assert spanning[1].startswith("\x1b[31m") and spanning[0].endswith("\x1b[0m")  # reopened, nothing leaks


def test_width_of_wide_and_combining_characters() -> None:
    assert visible_width("日本") == 4
    assert visible_width("e\u0301") == 1
    assert visible_width("\x1b[1mab\x1b[22m") == 2
    assert strip_ansi(truncate_to_width("日本語テキスト", 7)) == "日本..."
    assert visible_width(truncate_to_width("abcdef", 4, "", pad=True)) == 4


def test_text_and_box_padding() -> None:
    assert Text("hello", 1, 1).render(20) == ["", " hello", ""]
    box = Box(1, 0, lambda s: f"<{s}>")
    box.add_child(Text("hi", 0, 0))
    assert box.render(6) == ["< hi   >"]


def test_markdown_blocks_at_two_widths() -> None:
    source = "# Title\n\nSome **bold** and `code`.\n\n```python\nx = 1\n```\n\n- a\n- b\n\n> quote"
    wide = [strip_ansi(line) for line in Markdown(source, 0, 0).render(40)]
    assert wide == ["Title", "", "Some bold and code.", "", "```python", "  x = 1", "```", "", "- a", "- b", "",
                    "│ quote"]  # fmt: skip
    narrow = [strip_ansi(line) for line in Markdown("word " * 10, 1, 0).render(12)]
    assert all(len(line) <= 12 for line in narrow) and narrow[0] == " word word"


def test_streamed_markdown_renders_like_the_whole_text() -> None:
    source = "## A\n\npara one\n\n```js\nlet a = 1;\n```\n\n1. x\n2. y\n\nlast *words*"
    streamed = Markdown("", 0, 0)
    for end in range(1, len(source) + 1):
        streamed.set_text(source[:end])
        streamed.render(30)
    assert streamed.render(30) == Markdown(source, 0, 0).render(30)
    assert len(streamed._stable) >= 4  # earlier blocks were not parsed again


class _Screen:
    def __init__(self) -> None:
        self.writes: list[str] = []

    def __call__(self, data: str) -> None:
        self.writes.append(data)


def test_renderer_rewrites_only_changed_lines() -> None:
    screen = _Screen()
    renderer = ScreenRenderer(screen)
    renderer.render(["one", "two", "three"], 20, 10)
    assert "one\r\ntwo\r\nthree" in screen.writes[-1]
    screen.writes.clear()
    renderer.render(["one", "TWO", "three"], 20, 10)
    output = "".join(screen.writes)
    assert "TWO" in output and "one" not in output and "three" not in output
    assert "\x1b[2J" not in output and "\x1b[3J" not in output  # no clear, scrollback kept
    screen.writes.clear()
    renderer.render(["one", "TWO", "three"], 30, 10)  # a new width redraws everything
    assert "\x1b[2J" in "".join(screen.writes)


def test_renderer_scrolls_long_output_into_the_scrollback() -> None:
    screen = _Screen()
    renderer = ScreenRenderer(screen)
    renderer.render(["editor"], 20, 5)
    lines = [f"line {i}" for i in range(12)] + ["editor"]
    renderer.render(lines, 20, 5)
    output = "".join(screen.writes)
    assert output.count("\r\n") >= 12 and "\x1b[2J" not in output
    assert renderer.viewport_top == len(lines) - 5


def test_input_splitter_keys_and_pastes() -> None:
    splitter = InputSplitter()
    assert splitter.feed(b"ab\x1b[A\x03") == ["ab", "\x1b[A", "\x03"]
    assert splitter.feed(b"\x1b[200~one\ntwo\x1b[2") == []
    assert splitter.feed(b"01~\x1b") == [Paste("one\ntwo")]
    assert splitter.pending_escape and splitter.flush() == ["\x1b"]


@pytest.mark.parametrize(
    ("data", "key"),
    [("\x03", "ctrl+c"), ("\x1b[99;5u", "ctrl+c"), ("\x1b[27;5;99~", "ctrl+c"), ("\x1b[13;2u", "shift+enter"),
     ("\x1b\r", "alt+enter"), ("\x1b[1;3A", "alt+up"), ("\x1b[Z", "shift+tab"), ("\x1f", "ctrl+-"), ("a", None)],
)  # fmt: skip
def test_key_names(data: str, key: str | None) -> None:
    assert parse_key(data) == key


def test_keybindings_file_overrides_and_legacy_names(tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    path.write_text(json.dumps({"cursorUp": ["up", "alt+k"], "tui.editor.undo": "ctrl+z"}))
    user, problem = read_keybindings_file(path)
    assert problem is None
    keys = Keybindings(TUI_DEFAULTS, user)
    assert keys.matches("\x1bk", "tui.editor.cursorUp") and keys.matches("\x1a", "tui.editor.undo")
    assert not keys.matches("\x1f", "tui.editor.undo")
    path.write_text("{bad")
    assert "invalid JSON" in str(read_keybindings_file(path)[1])


def test_editor_kill_ring_undo_history_and_paste_marker() -> None:
    editor = Editor()
    for char in "hello world":
        editor.handle_input(char)
    editor.handle_input("\x17")  # ctrl+w kills "world"
    assert editor.get_raw_text() == "hello "
    editor.handle_input("\x19")  # ctrl+y yanks it back
    assert editor.get_raw_text() == "hello world"
    editor.handle_input("\x1f")  # ctrl+- undoes the yank
    assert editor.get_raw_text() == "hello "
    editor.handle_input("\x1b[200~" + "\n".join(map(str, range(12))) + "\x1b[201~")
    assert editor.get_raw_text() == "hello [paste #1 +12 lines]"
    assert editor.text == "hello " + "\n".join(map(str, range(12)))
    submitted: list[str] = []
    editor.on_submit = submitted.append
    editor.handle_input("\r")
    assert submitted == [editor.text]
    editor.add_to_history("first prompt")
    editor.clear()
    editor.handle_input("\x1b[A")
    assert editor.get_raw_text() == "first prompt"


def test_editor_renders_inside_rules_at_the_width() -> None:
    editor = Editor()
    editor.focused = True
    editor.set_text("a" * 25)
    lines = editor.render(10)
    assert lines[0] == lines[-1] == "─" * 10
    assert [strip_ansi(line).replace("\x1b_pi:c\x07", "") for line in lines[1:-1]] == [
        "a" * 10,
        "a" * 10,
        "aaaaa ",
    ]


def test_themes_resolve_pi_colours_and_report_missing_tokens(tmp_path: Path) -> None:
    # Pi 1.6's colours, checked token by token against Pi 1.6 in customize/themes/test_pi_themes.py
    dark = builtin_theme("dark", truecolor=False)
    assert dark.fg("text", "x") == "\x1b[38;5;254mx\x1b[39m"  # okhsl(234 3% 89%) in a 256-colour terminal
    assert builtin_theme("dark", truecolor=True).fg("text", "x") == "\x1b[38;2;222;224;225mx\x1b[39m"
    assert rgb_to_256(Rgb(0x34, 0x35, 0x41)) == 59
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"name": "mine", "colors": {"accent": "#ffffff"}}))
    with pytest.raises(ThemeError, match=r"mine\.json:1: missing required color tokens: bashMode, border,"):
        load_theme_file(path)


def test_diff_and_token_formatting() -> None:
    theme = builtin_theme("dark", truecolor=False)
    lines = render_diff(theme, "-1 old\n+1 new\n 2 same")
    assert [strip_ansi(line) for line in lines] == ["-1 old", "+1 new", " 2 same"]
    assert lines[0].startswith(theme.fg_code("toolDiffRemoved"))
    assert [format_tokens(n) for n in (999, 1500, 64000, 2_500_000)] == ["999", "1.5k", "64k", "2.5M"]
