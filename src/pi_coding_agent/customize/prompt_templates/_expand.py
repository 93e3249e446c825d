"""``/name args`` in a prompt: the template's body with the arguments substituted (Pi's rules).

Arguments are split as Pi 1.6 splits them (``parse_command_args``; 0.85 differed whenever quotes
were involved). In the body: ``$1``, ``$2``, ...;
``$@`` and ``$ARGUMENTS`` (all arguments joined by spaces); ``${N:-default}``,
``${@:-default}``, ``${ARGUMENTS:-default}`` (the default when the value is missing or
empty); ``${@:N}`` and ``${@:N:L}`` (arguments from the Nth, at most L of them). Values are
not substituted again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pi_coding_agent.customize.prompt_templates._load import PromptTemplate
from pi_coding_agent.customize.resources import JS_WHITESPACE_SET

_WS = "".join(sorted(JS_WHITESPACE_SET)).replace("\\", "")
_PLACEHOLDER = re.compile(
    r"\$\{([0-9]+|ARGUMENTS|@):-([^}]*)\}|\$\{@:([0-9]+)(?::([0-9]+))?\}|\$(ARGUMENTS|@|[0-9]+)"
)
_COMMAND = re.compile(rf"/([^{re.escape(_WS)}]+)(?:[{re.escape(_WS)}]+(.*))?", re.DOTALL)


def parse_command_args(text: str) -> list[str]:
    """The arguments of ``/name ARGS``, Pi 1.6's shell-like rule: whitespace separates them; a
    ``"`` or ``'`` opens a quoted part only at the start of an argument (``doesn't`` stays one
    word), and the argument goes on after the closing quote (``"a b"c`` is ``a bc``); inside,
    a backslash before the same quote keeps that quote, other backslashes stay; ``""`` is an
    empty argument; a quote that is never closed is plain text."""
    args: list[str] = []
    current: list[str] = []
    started = False
    i = 0
    while i < len(text):
        char = text[i]
        if char in ('"', "'") and not started:
            closing = _closing_quote(text, i)
            started = True
            if closing is not None:
                current.append(text[i + 1 : closing].replace("\\" + char, char))
                i = closing
            else:
                current.append(char)
        elif char in JS_WHITESPACE_SET:
            if started:
                args.append("".join(current))
                current, started = [], False
        else:
            current.append(char)
            started = True
        i += 1
    if started:
        args.append("".join(current))
    return args


def _closing_quote(text: str, start: int) -> int | None:
    """Where the quote opened at ``start`` closes (a backslash-escaped quote does not close it)."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == "\\" and text[i + 1 : i + 2] == quote:
            i += 2
        elif text[i] == quote:
            return i
        else:
            i += 1
    return None


def _argument(args: Sequence[str], number: str) -> str | None:
    index = int(number) - 1
    return args[index] if 0 <= index < len(args) else None


def substitute_args(content: str, args: Sequence[str]) -> str:
    joined = " ".join(args)

    def replace(match: re.Match[str]) -> str:
        default_target, default_value, slice_start, slice_length, simple = match.groups()
        if default_target:
            value = joined if default_target in ("@", "ARGUMENTS") else _argument(args, default_target)
            return value if value else default_value
        if slice_start:
            start = max(int(slice_start) - 1, 0)
            chosen = args[start : start + int(slice_length)] if slice_length else args[start:]
            return " ".join(chosen)
        if simple in ("ARGUMENTS", "@"):
            return joined
        return _argument(args, simple) or ""

    return _PLACEHOLDER.sub(replace, content)


def expand_prompt_template(text: str, templates: Sequence[PromptTemplate]) -> str:
    """The expansion when ``text`` is ``/<template name> [args]``, else ``text`` unchanged."""
    if not text.startswith("/"):
        return text
    match = _COMMAND.fullmatch(text)
    if match is None:
        return text
    template = next((t for t in templates if t.name == match.group(1)), None)
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(match.group(2) or ""))
