"""Blocks of code and tool output, folded after a few lines (a click unfolds them), as the TUI
shows tool output.

Code is written as escaped text with its language in ``data-lang``; the page's script colours
it with the theme's syntax colours when the block is drawn (``_highlight``), so an export
costs no lexing and a page colours only what the reader reaches. The text is written once: the
folded part is the same ``<pre>`` with its tail hidden until the block is opened, so a long
output does not appear twice in the page.
"""

from __future__ import annotations

from html import escape

HIGHLIGHT_LIMIT = 256 * 1024
"""Longer text is shown plain: colouring megabytes of output in the page would stall it for little."""


def _language(text: str, language: str | None) -> str:
    """The ``data-lang`` attribute for ``text``; ``""`` for plain text."""
    if not language or len(text) > HIGHLIGHT_LIMIT:
        return ""
    return f' data-lang="{escape(language.lower())}"'


def code_block(code: str, language: str | None) -> str:
    """A Markdown code block: all of it, coloured in the page when ``language`` is known there."""
    return f'<pre class="code-block"><code{_language(code, language)}>{escape(code)}</code></pre>'


def output_block(text: str, shown_lines: int, language: str | None = None, css: str = "tool-output") -> str:
    """``text`` with its first ``shown_lines`` lines shown and the rest behind a click."""
    text = text.replace("\t", "   ")
    lines = text.split("\n")
    hidden = len(lines) - shown_lines
    lang = _language(text, language)
    if hidden <= 0:
        return f'<div class="{css}"><pre{lang}>{escape(text)}</pre></div>'
    head, tail = "\n".join(lines[:shown_lines]), "\n".join(lines[shown_lines:])
    return (
        f'<div class="{css} foldable"><pre{lang}>{escape(head)}<span class="fold-rest">\n{escape(tail)}</span></pre>'
        f'<div class="fold-hint">... ({hidden} more lines, click to expand)</div></div>'
    )
