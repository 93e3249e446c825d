"""Markdown rendered to terminal lines, cheaply while it streams.

The text is parsed with markdown-it (CommonMark plus tables and strikethrough) into
top-level blocks. While an answer streams, every block but the last is final (text that
is appended later cannot change a block that another block already follows), so their
source and rendered lines are kept and only the text from the start of the last block is
parsed again. That keeps the cost of each frame proportional to the last block, not to
the whole answer (``bench/tui_stream.py`` streams 20,000 tokens).

The look follows Pi's: headings without ``#`` for levels 1 and 2, code blocks between
fence lines with highlighted, indented code, ``- `` bullets, ``│ `` quote bars.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_tui._capabilities import hyperlink, supports_hyperlinks
from pi_tui._safe_text import terminal_safe
from pi_tui._text import strip_ansi, visible_width, wrap_text_with_ansi

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

StyleFn = Callable[[str], str]
Highlighter = Callable[[str, "str | None"], list[str]]


def _plain(text: str) -> str:
    return text


@dataclass
class MarkdownTheme:
    heading: StyleFn = _plain
    link: StyleFn = _plain
    link_url: StyleFn = _plain
    code: StyleFn = _plain
    code_block: StyleFn = _plain
    code_block_border: StyleFn = _plain
    quote: StyleFn = _plain
    quote_border: StyleFn = _plain
    hr: StyleFn = _plain
    list_bullet: StyleFn = _plain
    bold: StyleFn = lambda s: f"\x1b[1m{s}\x1b[22m"
    italic: StyleFn = lambda s: f"\x1b[3m{s}\x1b[23m"
    underline: StyleFn = lambda s: f"\x1b[4m{s}\x1b[24m"
    strikethrough: StyleFn = lambda s: f"\x1b[9m{s}\x1b[29m"
    highlight_code: Highlighter | None = None
    code_block_indent: str = "  "


_parser: MarkdownIt | None = None


def _markdown_parser() -> MarkdownIt:
    global _parser
    if _parser is None:
        from markdown_it import MarkdownIt

        _parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return _parser


@dataclass
class _Block:
    tokens: list[Token]
    start: int
    end: int
    rendered: dict[int, list[str]] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.tokens[0].type


def _split_blocks(tokens: list[Token], line_offset: int) -> list[_Block]:
    blocks: list[_Block] = []
    current: list[Token] = []
    depth = 0
    for token in tokens:
        current.append(token)
        depth += token.nesting
        if depth == 0 and token.level == 0:
            first = current[0]
            start, end = first.map if first.map else (0, 0)
            blocks.append(_Block(current, start + line_offset, end + line_offset))
            current = []
    if current:
        first = current[0]
        start, end = first.map if first.map else (0, 0)
        blocks.append(_Block(current, start + line_offset, end + line_offset))
    return blocks


class Markdown:
    """Markdown content; its source passes ``terminal_safe`` (content never sends the terminal
    anything but text and SGR), the styling and links it draws itself do not."""

    def __init__(
        self,
        text: str = "",
        padding_x: int = 1,
        padding_y: int = 0,
        theme: MarkdownTheme | None = None,
        default_style: StyleFn | None = None,
    ) -> None:
        self._clean = ""
        self.text = self._safe(text)
        self.padding_x = padding_x
        self.padding_y = padding_y
        self.theme = theme or MarkdownTheme()
        self.default_style = default_style
        self._stable: list[_Block] = []
        self._stable_source = ""
        self._stable_lines = 0
        self._tail: list[_Block] = []
        self._parsed_text: str | None = None
        self._cache: tuple[int, str, list[str]] | None = None

    def set_text(self, text: str) -> None:
        self.text = self._safe(text)

    def _safe(self, text: str) -> str:
        """``text`` through the terminal-output policy (it is content: an answer, a message);
        while an answer streams only what was appended is searched for controls."""
        known = len(self._clean) if text.startswith(self._clean) else 0
        safe = terminal_safe(text, known_clean=known)
        self._clean = text if safe is text else ""
        return safe

    def invalidate(self) -> None:
        self._cache = None
        for block in self._stable:
            block.rendered.clear()
        self._parsed_text = None

    # ------------------------------------------------------------------ parsing

    def _parse(self) -> None:
        text = self.text
        if self._parsed_text == text:
            return
        if not text.startswith(self._stable_source):
            self._stable, self._stable_source, self._stable_lines = [], "", 0
        tail = text[len(self._stable_source) :]
        blocks = _split_blocks(_markdown_parser().parse(tail), self._stable_lines)
        if len(blocks) > 1:
            last_start = blocks[-1].start - self._stable_lines
            tail_lines = tail.splitlines(keepends=True)
            self._stable_source += "".join(tail_lines[:last_start])
            self._stable_lines += last_start
            self._stable.extend(blocks[:-1])
            blocks = blocks[-1:]
        self._tail = blocks
        self._parsed_text = text

    # ------------------------------------------------------------------ rendering

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width and self._cache[1] == self.text:
            return self._cache[2]
        if not self.text.strip():
            self._cache = (width, self.text, [])
            return []
        self._parse()
        inner = max(1, width - 2 * self.padding_x)
        lines: list[str] = []
        previous: _Block | None = None
        for block in (*self._stable, *self._tail):
            rendered = block.rendered.get(inner)
            if rendered is None:
                rendered = self._render_block(block, inner)
                if block not in self._tail:
                    block.rendered[inner] = rendered
            if previous is not None and rendered and _gap(previous, block):
                lines.append("")
            lines.extend(rendered)
            previous = block
        margin = " " * self.padding_x
        if margin:
            lines = [margin + line if line else line for line in lines]
        blank = [""] * self.padding_y
        result = [*blank, *lines, *blank]
        self._cache = (width, self.text, result)
        return result

    def _render_block(self, block: _Block, width: int) -> list[str]:
        return _BlockRenderer(self.theme, self.default_style).block(block.tokens, width)


def _gap(previous: _Block, block: _Block) -> bool:
    adjacent = block.start <= previous.end
    lists = ("bullet_list_open", "ordered_list_open")
    return not (adjacent and previous.kind == "paragraph_open" and block.kind in lists)


class _BlockRenderer:
    def __init__(self, theme: MarkdownTheme, default_style: StyleFn | None) -> None:
        self.theme = theme
        self.default_style = default_style

    def block(self, tokens: list[Token], width: int) -> list[str]:
        lines: list[str] = []
        index = 0
        previous_kind: str | None = None
        while index < len(tokens):
            token = tokens[index]
            end = _matching_close(tokens, index)
            kind = token.type
            if (
                previous_kind is not None
                and kind
                in (
                    "paragraph_open",
                    "heading_open",
                    "fence",
                    "code_block",
                    "blockquote_open",
                    "table_open",
                    "hr",
                )
                and lines
            ):
                lines.append("")
            lines.extend(self._one(tokens[index : end + 1], width))
            previous_kind = kind
            index = end + 1
        return lines

    def _one(self, tokens: list[Token], width: int) -> list[str]:
        token = tokens[0]
        kind = token.type
        theme = self.theme
        if kind == "heading_open":
            level = int(token.tag[1])
            if level == 1:
                style: StyleFn = lambda s: theme.heading(theme.bold(theme.underline(s)))  # noqa: E731
            else:
                style = lambda s: theme.heading(theme.bold(s))  # noqa: E731
            text = self.inline(tokens[1], style)
            if level >= 3:
                text = style("#" * level + " ") + text
            return wrap_text_with_ansi(text, width)
        if kind == "paragraph_open":
            return wrap_text_with_ansi(self.inline(tokens[1], self.default_style), width)
        if kind in ("fence", "code_block"):
            return self._code(token.content, token.info.strip() or None, width)
        if kind in ("bullet_list_open", "ordered_list_open"):
            return self._list(tokens, width, 0)
        if kind == "blockquote_open":
            inner = self.block(tokens[1:-1], max(1, width - 2))
            return [theme.quote_border("│ ") + theme.quote(theme.italic(line)) for line in inner]
        if kind == "hr":
            return [theme.hr("─" * min(width, 80))]
        if kind == "table_open":
            return self._table(tokens, width)
        if kind == "html_block":
            return wrap_text_with_ansi(token.content.strip(), width)
        if kind == "inline":
            return wrap_text_with_ansi(self.inline(token, self.default_style), width)
        return []

    def _code(self, code: str, language: str | None, width: int) -> list[str]:
        theme = self.theme
        code = code.removesuffix("\n")
        if theme.highlight_code is not None:
            body = theme.highlight_code(code, language)
        else:
            body = [theme.code_block(line) for line in code.split("\n")]
        indent = theme.code_block_indent
        lines = [theme.code_block_border("```" + (language or ""))]
        for line in body:
            lines.extend(wrap_text_with_ansi(indent + line.replace("\t", "    "), width))
        lines.append(theme.code_block_border("```"))
        return lines

    def _list(self, tokens: list[Token], width: int, depth: int) -> list[str]:
        """Pi's list: a nested list starts four columns further in per level (not under its
        item's text); a loose list keeps a blank line between items."""
        ordered = tokens[0].type == "ordered_list_open"
        number = int(tokens[0].attrs.get("start", 1) or 1) if ordered else 0
        indent = "    " * depth
        items = [(i, _matching_close(tokens, i)) for i in range(1, len(tokens) - 1)
                 if tokens[i].type == "list_item_open" and tokens[i].level == tokens[0].level + 1]  # fmt: skip
        loose = any(
            t.type == "paragraph_open" and not t.hidden and t.level == tokens[0].level + 2 for t in tokens
        )
        lines: list[str] = []
        for position, (start, end) in enumerate(items):
            bullet = f"{number + position}. " if ordered else "- "
            first = indent + self.theme.list_bullet(bullet)
            rest = indent + " " * len(bullet)
            wrote = False
            for kind, part in self._item(
                tokens[start + 1 : end], max(1, width - len(indent) - len(bullet)), width, depth
            ):
                if kind == "list":
                    lines.extend(part)
                    wrote = wrote or bool(part)
                    continue
                for line in part:
                    lines.append((rest if wrote else first) + line)
                    wrote = True
            if not wrote:
                lines.append(first)
            if loose and position < len(items) - 1:
                lines.append("")
        return lines

    def _item(
        self, tokens: list[Token], width: int, full_width: int, depth: int
    ) -> list[tuple[str, list[str]]]:
        """An item's parts: ``("list", lines)`` for a nested list, ``("text", lines)`` else."""
        parts: list[tuple[str, list[str]]] = []
        index = 0
        while index < len(tokens):
            token = tokens[index]
            end = _matching_close(tokens, index)
            if token.type in ("bullet_list_open", "ordered_list_open"):
                parts.append(("list", self._list(tokens[index : end + 1], full_width, depth + 1)))
            elif token.type == "paragraph_open":
                parts.append(
                    ("text", wrap_text_with_ansi(self.inline(tokens[index + 1], self.default_style), width))
                )
            else:
                parts.append(("text", self._one(tokens[index : end + 1], width)))
            index = end + 1
        return parts

    def _table(self, tokens: list[Token], width: int) -> list[str]:
        """Pi's boxed table: natural column widths when they fit, else shrunk towards each
        column's longest word (at most 30 cells); cells wrap; a rule between all rows."""
        header: list[str] = []
        rows: list[list[str]] = []
        in_head = False
        for token in tokens:
            if token.type in ("thead_open", "thead_close"):
                in_head = token.type == "thead_open"
            elif token.type == "tr_open" and not in_head:
                rows.append([])
            elif token.type == "inline":
                (header if in_head else rows[-1]).append(self.inline(token, self.default_style))
        columns = len(header)
        if columns == 0:
            return []
        rows = [[*row, *[""] * (columns - len(row))][:columns] for row in rows]
        if width - (3 * columns + 1) < columns:
            raw = ["| " + " | ".join(cells) + " |" for cells in (header, *rows)]
            return [line for text in raw for line in wrap_text_with_ansi(text, width)]
        widths = _column_widths([header, *rows], width - (3 * columns + 1))
        rule = "─┼─".join("─" * w for w in widths)
        lines = ["┌─" + "─┬─".join("─" * w for w in widths) + "─┐"]
        lines.extend(_table_row(header, widths, self.theme.bold))
        for cells in rows:
            lines.append("├─" + rule + "─┤")
            lines.extend(_table_row(cells, widths, None))
        if not rows:
            lines.append("├─" + rule + "─┤")
        lines.append("└─" + "─┴─".join("─" * w for w in widths) + "─┘")
        return lines

    # ------------------------------------------------------------------ inline

    def inline(self, token: Token, base: StyleFn | None) -> str:
        theme = self.theme
        out: list[str] = []
        stack: list[tuple[str, list[str], Any]] = []

        def emit(text: str) -> None:
            target = stack[-1][1] if stack else out
            target.append(text)

        def plain(text: str) -> str:
            return base(text) if base and text else text

        for child in token.children or []:
            kind = child.type
            if kind == "text":
                emit(plain(child.content))
            elif kind in ("softbreak", "hardbreak"):
                emit("\n")
            elif kind == "code_inline":
                emit(theme.code(child.content))
            elif kind in ("html_inline",):
                emit(plain(child.content))
            elif kind == "image":
                emit(plain(child.content or str(child.attrs.get("alt", ""))))
            elif kind.endswith("_open"):
                stack.append((kind, [], child.attrs.get("href")))
            elif kind.endswith("_close") and stack:
                opened, parts, href = stack.pop()
                inner = "".join(parts)
                emit(self._wrap_inline(opened, inner, href))
        while stack:
            _, parts, _ = stack.pop()
            emit("".join(parts))
        return "".join(out)

    def _wrap_inline(self, kind: str, inner: str, href: Any) -> str:
        theme = self.theme
        if kind == "strong_open":
            return theme.bold(inner)
        if kind == "em_open":
            return theme.italic(inner)
        if kind == "s_open":
            return theme.strikethrough(inner)
        if kind == "link_open":
            text = theme.link(theme.underline(inner))
            url = str(href or "")
            if url and supports_hyperlinks():
                return hyperlink(text, url)  # the address is in the link, not printed
            label = strip_ansi(inner)
            if url and url != label and url.removeprefix("mailto:") != label:
                text += theme.link_url(f" ({url})")
            return text
        return inner


def _column_widths(table: list[list[str]], room: int) -> list[int]:
    """Cells per column so the table fits ``room`` cells (borders excluded), as Pi sizes them."""
    columns = len(table[0])
    natural = [max(visible_width(row[c]) for row in table) for c in range(columns)]
    words = [max(1, min(30, max(_longest_word(row[c]) for row in table))) for c in range(columns)]
    least = list(words)
    if sum(least) > room:
        least = [1] * columns
        spare = room - columns
        if spare > 0:
            weight = sum(w - 1 for w in words)
            growth = [((w - 1) * spare) // weight if weight else 0 for w in words]
            least = [1 + g for g in growth]
            for index in range(min(columns, spare - sum(growth))):
                least[index] += 1
    if sum(natural) <= room:
        return [max(n, m) for n, m in zip(natural, least, strict=True)]
    potential = sum(max(0, n - m) for n, m in zip(natural, least, strict=True))
    extra = max(0, room - sum(least))
    widths = [
        m + ((max(0, n - m) * extra) // potential if potential else 0)
        for n, m in zip(natural, least, strict=True)
    ]
    remaining = room - sum(widths)
    while remaining > 0:
        grew = False
        for index in range(columns):
            if remaining > 0 and widths[index] < natural[index]:
                widths[index] += 1
                remaining -= 1
                grew = True
        if not grew:
            break
    return widths


def _longest_word(text: str) -> int:
    return max((visible_width(word) for word in text.split()), default=0)


def _table_row(cells: list[str], widths: list[int], style: StyleFn | None) -> list[str]:
    """One table row: each cell wrapped to its column, padded, ``│`` between."""
    wrapped = [wrap_text_with_ansi(cell, max(1, width)) for cell, width in zip(cells, widths, strict=True)]
    lines = []
    for line in range(max(len(parts) for parts in wrapped)):
        padded = []
        for parts, width in zip(wrapped, widths, strict=True):
            text = parts[line] if line < len(parts) else ""
            text += " " * max(0, width - visible_width(text))
            padded.append(style(text) if style else text)
        lines.append("│ " + " │ ".join(padded) + " │")
    return lines


def _matching_close(tokens: list[Token], index: int) -> int:
    """Index of the token that closes ``tokens[index]`` (itself when it opens nothing)."""
    if tokens[index].nesting != 1:
        return index
    depth = 0
    for position in range(index, len(tokens)):
        depth += tokens[position].nesting
        if depth == 0:
            return position
    return len(tokens) - 1
