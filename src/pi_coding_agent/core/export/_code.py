"""Blocks of code and tool output: highlighted with the theme's syntax colours, and folded
after a few lines (a click unfolds them), as the TUI shows tool output.

The text is written once: the folded part is the same ``<pre>`` with its tail hidden until
the block is opened, so a long output does not appear twice in the page.
"""

from __future__ import annotations

from html import escape

from pi_coding_agent.core.syntax import syntax_lines

HIGHLIGHT_LIMIT = 256 * 1024
"""Longer text is shown plain: lexing megabytes of output would slow the export for little."""


def _css_class(token: str) -> str:
    return "sx-" + token.removeprefix("syntax").lower()


def _lines_html(text: str, language: str | None) -> list[str]:
    lines = syntax_lines(text, language) if language and len(text) <= HIGHLIGHT_LIMIT else None
    if lines is None:
        return [escape(line) for line in text.split("\n")]
    return [
        "".join(
            f'<span class="{_css_class(style)}">{escape(piece)}</span>' if style else escape(piece)
            for style, piece in line
        )
        for line in lines
    ]


def code_block(code: str, language: str | None) -> str:
    """A Markdown code block: all of it, highlighted when ``language`` is known."""
    body = "\n".join(_lines_html(code, language))
    return f'<pre class="code-block"><code>{body}</code></pre>'


def output_block(text: str, shown_lines: int, language: str | None = None, css: str = "tool-output") -> str:
    """``text`` with its first ``shown_lines`` lines shown and the rest behind a click."""
    lines = _lines_html(text.replace("\t", "   "), language)
    hidden = len(lines) - shown_lines
    if hidden <= 0:
        body = "\n".join(lines)
        return f'<div class="{css}"><pre>{body}</pre></div>'
    head, tail = "\n".join(lines[:shown_lines]), "\n".join(lines[shown_lines:])
    return (
        f'<div class="{css} foldable"><pre>{head}<span class="fold-rest">\n{tail}</span></pre>'
        f'<div class="fold-hint">... ({hidden} more lines, click to expand)</div></div>'
    )
