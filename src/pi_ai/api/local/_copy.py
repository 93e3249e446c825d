"""Arguments a small model must copy from a text instead of recalling it.

Qwen2.5-Coder 1.5B's usual failure on coding tasks is an ``edit`` whose ``oldText`` it made up: a
line from the traceback, a function it expected, a line as it remembered it
(docs/providers/local-bench.md). A caller that knows which text a call's argument will be matched
against (the file named by the call's first argument) can say so (``CopySource``); the grammar then
lets that argument be only a run of whole lines of the text, each line with or without its leading
indentation. The model still chooses which lines, and writes the replacement freely.

Each rule is a chain of literals, one per line, so its size grows with the text (not with the
number of possible runs), and only lines that are not blank can begin a run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi_ai.api.local._schema_gbnf import literal

MAX_COPY_LINES = 400
MAX_COPY_CHARS = 32_000
"""Texts beyond either limit are not enforced: every line can begin a run, and llama.cpp checks
each candidate token against every run that is still possible, so the first token of the argument
would cost about as much as the lines are many."""


@dataclass(frozen=True)
class CopiedText:
    """``field`` (a string property of the call's arguments, at any depth, such as
    ``edits[].oldText``) may only be a run of whole lines of ``text``."""

    field: str
    text: str


CopySource = Callable[[str, str, str], "CopiedText | None"]
"""``(tool name, name of the call's first argument, its value)`` -> what the rest of that call must
copy, or None. Asked once per tool and value, when the value has been written."""


@dataclass(frozen=True)
class CopyRule:
    """A call of ``tool`` whose first argument ``key`` is ``value`` copies ``copied``."""

    tool: str
    key: str
    value: str
    copied: CopiedText


def enforceable(copied: CopiedText) -> bool:
    return len(copied.text) <= MAX_COPY_CHARS and copied.text.count("\n") < MAX_COPY_LINES


def plain_value(value: str) -> bool:
    """Whether ``value`` is written in JSON with no escapes (the only values rules are made for)."""
    return all(char not in '"\\' and ord(char) >= 0x20 for char in value)


def _json_body(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def copy_rules(name: str, text: str) -> list[str]:
    """GBNF rules; ``name`` matches a JSON string holding a run of whole lines of ``text``."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # the text's final line end begins no line
    rules: list[str] = []
    starts: list[str] = []
    for index, line in enumerate(lines):
        more = f' ("\\\\n" {name}-{index + 1})?' if index + 1 < len(lines) else ""
        rules.append(f"{name}-{index} ::= {literal(_json_body(line))}{more}")
        bare = line.lstrip(" \t")
        if not bare:
            continue
        starts.append(f"{name}-{index}")
        if bare != line:
            rules.append(f"{name}-{index}-bare ::= {literal(_json_body(bare))}{more}")
            starts.append(f"{name}-{index}-bare")
    if not starts:
        return [f'{name} ::= "\\"" pi-json-char* "\\"" space']
    return [f'{name} ::= "\\"" ({" | ".join(starts)}) "\\"" space', *rules]


JSON_CHAR_RULES = (
    r'pi-json-char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})',
    r'pi-json-rest ::= pi-json-char* "\""',
)
"""A character of a JSON string, and the rest of one; both rule sets below use them."""


def _class_char(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02X}" if code < 0x100 else (f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}")


def other_string_rules(name: str, values: Sequence[str]) -> list[str]:
    """GBNF rules; ``name`` matches any JSON string except those holding one of ``values``
    (all of them ``plain_value``s): a walk along the values' common beginnings that leaves them at
    the first character none of them has there."""
    children: list[dict[str, int]] = [{}]
    terminal = [False]
    for value in values:
        node = 0
        for char in value:
            if char not in children[node]:
                children.append({})
                terminal.append(False)
                children[node][char] = len(children) - 1
            node = children[node][char]
        terminal[node] = True
    rules = [f'{name} ::= "\\"" {name}-0 space']
    for node, following in enumerate(children):
        excluded = "".join(_class_char(char) for char in following)
        options = [] if terminal[node] else ['"\\""']
        options.append(rf'[^"\\\x7F\x00-\x1F{excluded}] pi-json-rest')
        options.append(r'[\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4}) pi-json-rest')
        options.extend(f"{literal(char)} {name}-{child}" for char, child in following.items())
        rules.append(f"{name}-{node} ::= {' | '.join(options)}")
    return rules
