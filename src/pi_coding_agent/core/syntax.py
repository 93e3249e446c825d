"""Code highlighting: which language a file is in (the terminal and the HTML export), and code
split into lines of (theme syntax token, text) pieces for the terminal.

The theme tokens are Pi's (``syntaxKeyword``, ``syntaxString``, ...); the terminal turns them
into ANSI colours. Lexing is Pygments'. (The HTML export colours code in the page, with the same
tokens as CSS classes: ``core/export/_highlight.py``.)
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

_EXTENSION_LANGUAGES = {
    ".py": "python", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript", ".tsx": "tsx",
    ".jsx": "jsx", ".json": "json", ".md": "markdown", ".sh": "bash", ".bash": "bash", ".rs": "rust",
    ".go": "go", ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".java": "java", ".rb": "ruby",
    ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".html": "html", ".css": "css", ".sql": "sql",
}  # fmt: skip

Piece = tuple[str | None, str]
"""A run of text and the theme token that colours it (``None``: the surrounding colour)."""


def language_for_path(path: str) -> str | None:
    return _EXTENSION_LANGUAGES.get(os.path.splitext(path)[1].lower())


def _token_style(token_type: Any) -> str | None:
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
def _lexer(language: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def knows_language(language: str) -> bool:
    return _lexer(language.lower()) is not None


def syntax_lines(code: str, language: str | None) -> list[list[Piece]] | None:
    """``code`` as lines of coloured pieces; ``None`` when there is no lexer for ``language``."""
    lexer = _lexer(language.lower()) if language else None
    if lexer is None:
        return None
    from pygments import lex

    style_of: dict[Any, str | None] = {}
    lines: list[list[Piece]] = [[]]
    for token_type, value in lex(code, lexer):
        if token_type not in style_of:
            style_of[token_type] = _token_style(token_type)
        style = style_of[token_type]
        for index, piece in enumerate(value.split("\n")):
            if index:
                lines.append([])
            if piece:
                lines[-1].append((style, piece))
    return lines
