"""The grammar that shapes every assistant turn of a local model.

A turn is either a final answer (free text) or one or more tool calls, never both; a reasoning
model may open with a ``<think>`` block. A call is ``{"name": <tool>, "arguments": <object>}`` with
``name`` one of the offered tools and ``arguments`` valid against that tool's JSON schema
(llama.cpp's JSON-schema-to-GBNF converter writes those rules), written in any of the three forms
small Qwen models produce: Qwen2.5's trained ``<tool_call>`` tags, a fenced ``json`` block (what the
Coder models write when left free), or bare JSON. An answer may not begin like a call (``<``, a
backtick, ``{`` or blank), so a model about to write a call as text must write a real one.

Why this shape (docs/providers/local.md has the numbers): with free text allowed before tagged
calls, Qwen2.5-Coder 0.5B and 1.5B wrote every call as a fenced block inside the text, so no call
was ever made; with this grammar the same prompts gave real calls and plain answers stayed plain.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pi_ai._context import Tool

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
CALL_FORMS: tuple[tuple[str, str | None], ...] = (
    ("<tool_call>\n", "\n</tool_call>"),
    ("```json\n", "\n```"),
    ("{", None),
)
"""(opening, closing) of each way a call may be written; ``None``: the JSON object itself ends it."""

_ANSWER_RULE = r"pi-answer ::= [^<`{ \t\r\n\x00] [^\x00]*"
_THINK_RULES = r"""
pi-think ::= "<think>" pi-think-char* "</think>" [ \n]*
pi-think-char ::= [^<] | "<" [^/]
"""


def call_schema(tools: Sequence[Tool]) -> dict[str, Any]:
    """JSON schema of one call: ``{"name": <tool>, "arguments": <its parameters>}`` for any tool."""
    variants = [
        {
            "type": "object",
            "properties": {"name": {"const": tool.name}, "arguments": _object_schema(tool.parameters)},
            "required": ["name", "arguments"],
        }
        for tool in tools
    ]
    return variants[0] if len(variants) == 1 else {"anyOf": variants}


def _object_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """A tool's parameters, closed to unknown keys (the converter would otherwise allow any)."""
    schema = dict(parameters) if isinstance(parameters, dict) else {}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    schema.setdefault("additionalProperties", False)
    return schema


def _call_rules(tools: Sequence[Tool]) -> list[str]:
    from llama_cpp.llama_grammar import SchemaConverter

    converter = SchemaConverter(
        prop_order={"name": 0, "arguments": 1}, allow_fetch=False, dotall=False, raw_pattern=False
    )
    converter.visit(converter.resolve_refs(call_schema(tools), "tools"), "pi-call-json")
    forms = " | ".join(
        f"{json.dumps(opening)} pi-call-json {json.dumps(closing)}" if closing else "pi-call-json"
        for opening, closing in CALL_FORMS
    )
    return [converter.format_grammar(), f"pi-call ::= {forms}", 'pi-calls ::= pi-call ("\\n" pi-call)*']


def turn_grammar(tools: Sequence[Tool], *, thinking: bool, calls_only: bool = False) -> str:
    """GBNF for one assistant turn offering ``tools`` (an answer only when there are none; calls
    only with ``calls_only``, OpenAI's ``tool_choice: "required"``)."""
    lines = [_ANSWER_RULE]
    body = "pi-answer"
    if tools:
        lines.extend(_call_rules(tools))
        body = "pi-calls" if calls_only else "(pi-calls | pi-answer)"
    if thinking:
        lines.append(_THINK_RULES.strip())
        body = f"pi-think? {body}"
    lines.append(f"root ::= {body}")
    return "\n".join(lines) + "\n"
