"""YAML frontmatter of skill and prompt template files, read as Pi reads it.

Pi: newlines normalized (CRLF and lone CR become LF), a leading BOM dropped; the text has
frontmatter only when it starts with ``---`` and a later line starts with ``---``; the
YAML between them (from the fifth character on) is parsed with the YAML 1.2 core schema
(``yes`` is a string, not a boolean; duplicate keys are an error); the body is what follows
the closing ``---``, trimmed. A value that is not a mapping counts as no frontmatter.

Most frontmatter is a few ``key: plain value`` lines. Those are read here directly; anything
else goes to PyYAML with a YAML 1.2 core-schema resolver. Importing PyYAML and building
that loader costs a run about 55 ms; forty frontmatters read directly cost well under
1 ms (``bench/frontmatter.py``: 27 ms against 85 ms, imports included).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pi_coding_agent.customize.resources._text import js_trim


@dataclass(frozen=True)
class Frontmatter:
    fields: dict[str, Any]
    body: str


def _normalize(content: str) -> str:
    text = content[1:] if content.startswith("\ufeff") else content
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_frontmatter(content: str) -> tuple[str | None, str]:
    """``(yaml text or None, body)`` of a Markdown file's content."""
    normalized = _normalize(content)
    if not normalized.startswith("---"):
        return None, normalized
    end = normalized.find("\n---", 3)
    if end == -1:
        return None, normalized
    return normalized[4:end], js_trim(normalized[end + 4 :])


def parse_frontmatter(content: str) -> Frontmatter:
    """Fields and body; raises ``FrontmatterError`` for invalid YAML."""
    yaml_text, body = split_frontmatter(content)
    if not yaml_text:
        return Frontmatter({}, body)
    fields = _parse_simple(yaml_text)
    if fields is None:
        fields = _parse_yaml(yaml_text)
    return Frontmatter(fields, body)


def strip_frontmatter(content: str) -> str:
    return parse_frontmatter(content).body


# ---------------------------------------------------------------------- direct path

_KEY_LINE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_-]*):(?: +(.*))?")
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_NUMBER_LIKE = re.compile(r"[-+]?(?:[0-9.]|\.inf|\.Inf|\.INF|\.nan|\.NaN|\.NAN)|0[ox]")
_CORE_CONSTANTS: dict[str, Any] = {
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
    "null": None,
    "Null": None,
    "NULL": None,
    "~": None,
}


def _plain_value(raw: str) -> tuple[bool, Any]:
    """``(ok, value)`` for a plain scalar that needs no YAML parser; ``ok`` False otherwise."""
    value = raw.rstrip(" ")
    if not value:
        return True, None
    if value in _CORE_CONSTANTS:
        return True, _CORE_CONSTANTS[value]
    if (
        value[0] in _INDICATORS
        or _NUMBER_LIKE.match(value)
        or ": " in value
        or " #" in value
        or value.endswith(":")
        or any(ord(char) < 0x20 or char in "\x7f\ufeff" for char in value)
    ):
        return False, None
    return True, value


def _parse_simple(yaml_text: str) -> dict[str, Any] | None:
    """The mapping when every line is ``key: plain scalar`` (or blank/comment), else ``None``."""
    fields: dict[str, Any] = {}
    for line in yaml_text.split("\n"):
        if not line.strip(" ") or line.startswith("#"):
            continue
        match = _KEY_LINE.fullmatch(line)
        if match is None or match.group(1) in fields:
            return None
        ok, value = _plain_value(match.group(2) or "")
        if not ok:
            return None
        fields[match.group(1)] = value
    return fields


# ---------------------------------------------------------------------- PyYAML path


def _parse_yaml(yaml_text: str) -> dict[str, Any]:
    from pi_coding_agent.customize.resources._yaml12 import load_yaml12

    # Pi's text ends before the closing marker's line break; its parser still ends a block
    # scalar with one ("clip" chomping), PyYAML only when the text has it.
    value = load_yaml12(yaml_text + "\n")
    return value if isinstance(value, dict) else {}
