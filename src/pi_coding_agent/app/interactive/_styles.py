"""Theme-driven styles shared by the interactive components: markdown and code colours."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_coding_agent.core.syntax import syntax_lines
from pi_tui import MarkdownTheme

if TYPE_CHECKING:
    from pi_coding_agent.customize.themes import Theme


def highlight_code(theme: Theme, code: str, language: str | None) -> list[str]:
    """``code`` as lines coloured with the theme's syntax tokens; plain code-block colour without a lexer."""
    lines = syntax_lines(code, language)
    if lines is None:
        return [theme.fg("mdCodeBlock", line) for line in code.split("\n")]
    return ["".join(theme.fg(style, text) if style else text for style, text in line) for line in lines]


def markdown_theme(theme: Theme, code_block_indent: str = "  ") -> MarkdownTheme:
    return MarkdownTheme(
        heading=lambda s: theme.fg("mdHeading", s),
        link=lambda s: theme.fg("mdLink", s),
        link_url=lambda s: theme.fg("mdLinkUrl", s),
        code=lambda s: theme.fg("mdCode", s),
        code_block=lambda s: theme.fg("mdCodeBlock", s),
        code_block_border=lambda s: theme.fg("mdCodeBlockBorder", s),
        quote=lambda s: theme.fg("mdQuote", s),
        quote_border=lambda s: theme.fg("mdQuoteBorder", s),
        hr=lambda s: theme.fg("mdHr", s),
        list_bullet=lambda s: theme.fg("mdListBullet", s),
        highlight_code=lambda code, language: highlight_code(theme, code, language),
        code_block_indent=code_block_indent,
    )
