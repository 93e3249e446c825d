"""Markdown to HTML for the export, as the TUI reads it: CommonMark with tables and
strikethrough, a line break for every newline, raw HTML shown as text, code blocks
highlighted with the theme's syntax colours.

Nothing from a message can run or load on the page: raw HTML is escaped, links keep only the
schemes ``http``, ``https``, ``mailto``, ``tel`` and ``ftp`` (or none: a relative link), and
images are shown as links to their address instead of being fetched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from pi_coding_agent.core.export._code import code_block

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_ALLOWED_SCHEMES = {"http", "https", "mailto", "tel", "ftp"}
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")


def safe_url(url: str) -> str | None:
    """``url`` without control characters, or ``None`` when its scheme is not allowed."""
    cleaned = _CONTROLS.sub("", url.strip())
    scheme = _SCHEME.match(cleaned)
    if scheme and scheme.group(1).lower() not in _ALLOWED_SCHEMES:
        return None
    return cleaned


def _fence(code: str, language: str, _attributes: Any) -> str:
    return code_block(code.removesuffix("\n"), language.split(maxsplit=1)[0] if language.strip() else None)


def _image(_renderer: Any, tokens: Sequence[Token], index: int, _options: Any, _env: Any) -> str:
    token = tokens[index]
    alt = "".join(child.content for child in token.children or [])
    url = safe_url(str(token.attrGet("src") or ""))
    label = escape(f"[image: {alt}]" if alt else "[image]")
    return f'<a class="md-image" href="{escape(url)}">{label}</a>' if url else label


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "breaks": True, "highlight": _fence})
    parser.enable(["table", "strikethrough"])
    parser.validateLink = lambda url: safe_url(url) is not None  # type: ignore[method-assign]
    parser.add_render_rule("image", _image)
    return parser


_PARSER = _parser()


_PLAIN = re.compile(r"[A-Za-z0-9 ,.;:'\"?!()/%\n-]*")
"""Characters that mean nothing to Markdown inside a line (``-`` and digits only there)."""
_MARKUP_LINE = re.compile(r"^ *[-0-9]|^ {4}", re.MULTILINE)
"""A line that could open a list, a rule, an underline or a code block."""


def _plain_html(text: str) -> str | None:
    """What markdown-it renders for prose without Markdown: paragraphs between blank lines,
    each line stripped, a ``<br />`` per newline (``breaks``); ``None`` for any other text."""
    if not _PLAIN.fullmatch(text) or _MARKUP_LINE.search(text):
        return None
    paragraphs: list[list[str]] = [[]]
    for line in text.split("\n"):
        stripped = line.strip(" ")
        if stripped:
            paragraphs[-1].append(stripped)
        elif paragraphs[-1]:
            paragraphs.append([])
    return "".join(
        "<p>" + "<br />\n".join(lines).replace('"', "&quot;") + "</p>\n" for lines in paragraphs if lines
    )


def markdown_html(text: str) -> str:
    """``text`` (Markdown) as safe HTML. Plain prose skips the parser (a good part of a long
    session's text), with the parser's output."""
    plain = _plain_html(text)
    return plain if plain is not None else str(_PARSER.render(text))
