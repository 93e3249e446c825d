"""Finding and applying ``edit`` replacements, with a tolerant fallback.

All replacements of one call are located in the original text (never in the result of an
earlier replacement), must be unique and must not overlap. Exact matching comes first. A
model often reproduces text with its trailing spaces dropped, or with typographic quotes,
dashes or spaces turned into ASCII (or the reverse); when any replacement only matches
after normalizing both sides for those differences, every replacement is located in the
normalized text, and only the lines a replacement touches are taken from the normalized
text: every other line keeps its original bytes.

Offsets are counted in UTF-16 code units nowhere here: Python string indexes are code
points on both sides, which gives the same matches.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from dataclasses import dataclass

from pi_coding_agent.core.tools._common import ToolError

_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")
_LINE_WITH_END = re.compile(r"[^\n]*\n|[^\n]+")
# JavaScript's trimEnd strips ECMAScript white space and line terminators.
_JS_TRAILING_SPACE = re.compile(
    "[\t\n\u000b\u000c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$"
)


def detect_line_ending(text: str) -> str:
    """``\\r\\n`` if the first line break of the text is a CRLF, else ``\\n``."""
    lf = text.find("\n")
    if lf == -1:
        return "\n"
    crlf = text.find("\r\n")
    if crlf == -1:
        return "\n"
    return "\r\n" if crlf < lf else "\n"


def normalize_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


@functools.lru_cache(maxsize=4)
def normalize_for_fuzzy_match(text: str) -> str:
    """NFKC, trailing white space of each line removed, typographic punctuation to ASCII."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(_JS_TRAILING_SPACE.sub("", line) for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


@dataclass(slots=True)
class _Match:
    index: int
    length: int
    fuzzy: bool


@dataclass(slots=True)
class _Replacement:
    edit_index: int
    start: int
    length: int
    new_text: str


def _find(content: str, old_text: str) -> _Match | None:
    exact = content.find(old_text)
    if exact != -1:
        return _Match(exact, len(old_text), False)
    fuzzy_content = normalize_for_fuzzy_match(content)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    index = fuzzy_content.find(fuzzy_old)
    if index == -1:
        return None
    return _Match(index, len(fuzzy_old), True)


def _count(content: str, old_text: str) -> int:
    fuzzy_content = normalize_for_fuzzy_match(content)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    if not fuzzy_old:
        # JavaScript splits an empty separator into characters: one "occurrence" between each.
        return len(fuzzy_content) - 1 if fuzzy_content else -1
    return fuzzy_content.count(fuzzy_old)


def apply_edits(content: str, edits: list[tuple[str, str]], path: str) -> tuple[str, str]:
    """Apply ``(old_text, new_text)`` pairs to LF text; returns ``(base, result)``.

    Raises ``ToolError`` with the message the model reads when a replacement is empty,
    missing, ambiguous, overlapping, or when nothing would change.
    """
    edits = [(normalize_to_lf(old), normalize_to_lf(new)) for old, new in edits]
    total = len(edits)
    for index, (old, _) in enumerate(edits):
        if not old:
            raise ToolError(
                f"oldText must not be empty in {path}."
                if total == 1
                else f"edits[{index}].oldText must not be empty in {path}."
            )
    first_pass = [_find(content, old) for old, _ in edits]
    fuzzy = any(match is not None and match.fuzzy for match in first_pass)
    base = normalize_for_fuzzy_match(content) if fuzzy else content
    replacements: list[_Replacement] = []
    for index, (old, new) in enumerate(edits):
        match = _find(base, old)
        if match is None:
            raise ToolError(
                f"Could not find the exact text in {path}. The old text must match exactly "
                "including all whitespace and newlines."
                if total == 1
                else f"Could not find edits[{index}] in {path}. The oldText must match exactly "
                "including all whitespace and newlines."
            )
        occurrences = _count(base, old)
        if occurrences > 1:
            raise ToolError(
                f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
                "Please provide more context to make it unique."
                if total == 1
                else f"Found {occurrences} occurrences of edits[{index}] in {path}. Each oldText must be "
                "unique. Please provide more context to make it unique."
            )
        replacements.append(_Replacement(index, match.index, match.length, new))
    replacements.sort(key=lambda r: r.start)
    for previous, current in itertools.pairwise(replacements):
        if previous.start + previous.length > current.start:
            raise ToolError(
                f"edits[{previous.edit_index}] and edits[{current.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )
    result = _overlay(content, base, replacements) if fuzzy else _replace(base, replacements)
    if result == content:
        raise ToolError(
            f"No changes made to {path}. The replacement produced identical content. This might "
            "indicate an issue with special characters or the text not existing as expected."
            if total == 1
            else f"No changes made to {path}. The replacements produced identical content."
        )
    return content, result


def _replace(text: str, replacements: list[_Replacement], offset: int = 0) -> str:
    pieces: list[str] = []
    cursor = 0
    for replacement in sorted(replacements, key=lambda r: r.start):
        start = replacement.start - offset
        pieces.append(text[cursor:start])
        pieces.append(replacement.new_text)
        cursor = start + replacement.length
    pieces.append(text[cursor:])
    return "".join(pieces)


def _overlay(original: str, base: str, replacements: list[_Replacement]) -> str:
    """Rewrite only the lines the replacements touch (from ``base``); keep the rest original."""
    original_lines = _LINE_WITH_END.findall(original)
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in _LINE_WITH_END.findall(base):
        spans.append((offset, offset + len(line)))
        offset += len(line)
    if len(original_lines) != len(spans):
        raise ToolError(
            "Cannot preserve unchanged lines because the base content has a different line count."
        )
    groups: list[tuple[int, int, list[_Replacement]]] = []
    for replacement in replacements:
        first, last = _line_range(spans, replacement)
        if groups and first < groups[-1][1]:
            start, end, members = groups[-1]
            groups[-1] = (start, max(end, last), [*members, replacement])
        else:
            groups.append((first, last, [replacement]))
    pieces: list[str] = []
    next_line = 0
    for first, last, members in groups:
        pieces.extend(original_lines[next_line:first])
        group_start, group_end = spans[first][0], spans[last - 1][1]
        pieces.append(_replace(base[group_start:group_end], members, group_start))
        next_line = last
    pieces.extend(original_lines[next_line:])
    return "".join(pieces)


def _line_range(spans: list[tuple[int, int]], replacement: _Replacement) -> tuple[int, int]:
    start = replacement.start
    end = replacement.start + replacement.length
    first = next((i for i, (s, e) in enumerate(spans) if s <= start < e), -1)
    if first == -1:
        raise ToolError("Replacement range is outside the base content.")
    last = first
    while last < len(spans) and spans[last][1] < end:
        last += 1
    if last >= len(spans):
        raise ToolError("Replacement range is outside the base content.")
    return first, last + 1
