"""Theme-driven styles shared by the interactive components: markdown and code colours."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING

from pi_tui import MarkdownTheme

if TYPE_CHECKING:
    from pi_coding_agent.customize.themes import Theme

_EXTENSION_LANGUAGES = {
    ".py": "python", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript", ".tsx": "tsx",
    ".jsx": "jsx", ".json": "json", ".md": "markdown", ".sh": "bash", ".bash": "bash", ".rs": "rust",
    ".go": "go", ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".java": "java", ".rb": "ruby",
    ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".html": "html", ".css": "css", ".sql": "sql",
}  # fmt: skip


def language_for_path(path: str) -> str | None:
    return _EXTENSION_LANGUAGES.get(os.path.splitext(path)[1].lower())


def _token_style(token_type: object) -> str | None:
    """The theme token for a pygments token type (walking up to its parents)."""
    from pygments import token as t

    mapping = (
        (t.Comment, "syntaxComment"), (t.Keyword.Type, "syntaxType"), (t.Keyword, "syntaxKeyword"),
        (t.Name.Function, "syntaxFunction"), (t.Name.Class, "syntaxType"), (t.Name.Builtin, "syntaxType"),
        (t.Name.Decorator, "syntaxFunction"), (t.Name.Variable, "syntaxVariable"),
        (t.Name.Attribute, "syntaxVariable"), (t.Name.Tag, "syntaxKeyword"), (t.String, "syntaxString"),
        (t.Number, "syntaxNumber"), (t.Operator.Word, "syntaxKeyword"), (t.Operator, "syntaxOperator"),
        (t.Punctuation, "syntaxPunctuation"),
    )  # fmt: skip
    for kind, style in mapping:
        if token_type in kind:
            return style
    return None


@lru_cache(maxsize=64)
def _lexer(language: str) -> object | None:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer: object = get_lexer_by_name(language, stripnl=False, ensurenl=False)
        return lexer
    except ClassNotFound:
        return None


def highlight_code(theme: Theme, code: str, language: str | None) -> list[str]:
    """``code`` as lines coloured with the theme's syntax tokens; plain code-block colour without a lexer."""
    lexer = _lexer(language.lower()) if language else None
    if lexer is None:
        return [theme.fg("mdCodeBlock", line) for line in code.split("\n")]
    from pygments import lex

    lines: list[str] = [""]
    for token_type, value in lex(code, lexer):
        style = _token_style(token_type)
        for index, piece in enumerate(value.split("\n")):
            if index:
                lines.append("")
            if piece:
                lines[-1] += theme.fg(style, piece) if style else piece
    return lines


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
