"""Grammar (custom) tools on the Responses API: which tools are sent as grammars, reading a
replayed call's free-form input back from its arguments, and streaming that input as JSON
argument deltas. Which tools qualify and the grammar itself come from ``_constrained``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_ai._context import Tool
from pi_ai.api._constrained import resolve_grammar
from pi_ai.api._js_json import js_stringify


def grammar_tool_input_properties(
    tools: Sequence[Tool] | None, supports_grammar_tools: bool
) -> dict[str, str]:
    """Tool name -> input argument, for the tools sent as grammar (custom) tools."""
    found: dict[str, str] = {}
    for tool in tools or ():
        grammar = resolve_grammar(tool, supports_grammar_tools)
        if grammar is not None:
            found[tool.name] = grammar.input_property
    return found


def grammar_tool_input(tool_name: str, arguments: dict[str, Any], input_property: str) -> str:
    """The free-form input of a grammar tool call, read back from its arguments."""
    value = arguments.get(input_property)
    if not isinstance(value, str):
        raise ValueError(
            f'Grammar tool call "{tool_name}" requires argument "{input_property}" to be a string.'
        )
    return value


@dataclass(slots=True)
class GrammarInputBuffer:
    """What has been emitted so far of a grammar tool call's input, as JSON argument deltas."""

    input: str = ""
    started: bool = False
    closed: bool = False


def append_grammar_tool_input_json_delta(
    buffer: GrammarInputBuffer, input_property: str, next_input: str, close: bool
) -> str | None:
    """The JSON text that extends ``{"<property>":"<input so far>`` to ``next_input``.

    Grammar tools stream plain text; tool-call deltas are JSON, so the text is re-encoded as
    the growing string value of the one argument (closed with ``"}`` at the end).
    """
    if buffer.closed:
        if close and next_input == buffer.input:
            return None
        raise ValueError(f'grammar tool input for property "{input_property}" changed after it was closed')
    if not next_input.startswith(buffer.input):
        raise ValueError(f'grammar tool input for property "{input_property}" changed non-monotonically')
    added = next_input[len(buffer.input) :]
    if not close and not added:
        return None
    delta = ""
    if not buffer.started:
        delta += "{" + js_stringify(input_property) + ':"'
        buffer.started = True
    delta += js_stringify(added)[1:-1]
    buffer.input = next_input
    if close:
        delta += '"}'
        buffer.closed = True
    return delta
