"""Glob patterns with the semantics of fd and ripgrep (the Rust ``globset`` crate).

``*`` and ``?`` never cross ``/``; ``**`` as a whole path component crosses any number of
directories (``**/x``, ``a/**``, ``a/**/b``); ``[...]`` is a class (``[!...]`` or ``[^...]``
negates), ``{a,b}`` alternates, ``\\`` escapes the next character.
"""

from __future__ import annotations

import re


class GlobError(ValueError):
    pass


def glob_to_regex(pattern: str) -> str:
    """A regular expression (for ``fullmatch``) equivalent to ``pattern``."""
    out: list[str] = []
    i = 0
    depth = 0
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                end = i + 2
                if at_start and (end == n or pattern[end] == "/"):
                    if end == n:
                        out.append(".*")
                        i = end
                    else:
                        out.append("(?:.*/)?")
                        i = end + 1
                    continue
                i = end
            else:
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            close = _class_end(pattern, i)
            if close == -1:
                raise GlobError(f"unclosed character class in glob: {pattern}")
            body = pattern[i + 1 : close]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            escaped = "".join("\\" + c if c in "\\^[]" else c for c in body)
            out.append(f"[{'^' if negate else ''}{escaped}]")
            i = close + 1
        elif char == "{":
            depth += 1
            out.append("(?:")
            i += 1
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
            i += 1
        elif char == "," and depth:
            out.append("|")
            i += 1
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    if depth:
        raise GlobError(f"unclosed alternation in glob: {pattern}")
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern):
        if pattern[i] == "]":
            return i
        i += 1
    return -1


def compile_glob(pattern: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    return re.compile(glob_to_regex(pattern), re.IGNORECASE | re.DOTALL if ignore_case else re.DOTALL)
