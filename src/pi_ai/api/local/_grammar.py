"""The grammar that shapes every assistant turn of a local model.

A turn is either a final answer (free text) or one or more tool calls, never both; a reasoning
model may open with a ``<think>`` block. A call is ``{"name": <tool>, "arguments": <object>}`` with
``name`` one of the offered tools and ``arguments`` valid against that tool's JSON schema
(``_schema_gbnf`` writes those rules), written in any of the three forms
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
from pi_ai.api.local._copy import JSON_CHAR_RULES, CopyRule, copy_rules, other_string_rules
from pi_ai.api.local._schema_gbnf import schema_rules

RULE_KEY = "x-pi-rule"
"""Marks a schema that a rule of ``_copy`` writes instead of the converter."""

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


def call_schema(tools: Sequence[Tool], copies: Sequence[CopyRule] = ()) -> dict[str, Any]:
    """JSON schema of one call: ``{"name": <tool>, "arguments": <its parameters>}`` for any tool.

    A tool with ``copies`` gets one variant per rule (its first argument fixed to the rule's value,
    the copied field written by ``pi-copy-<n>``) and one for every other value (``pi-other-<tool>``)."""
    variants: list[dict[str, Any]] = []
    for position, tool in enumerate(tools):
        parameters = _object_schema(tool.parameters)
        rules = [(index, rule) for index, rule in enumerate(copies) if rule.tool == tool.name]
        for index, rule in rules:
            variants.append(_call_variant(tool.name, _copying(parameters, rule, f"pi-copy-{index}")))
        if rules:
            key = rules[0][1].key
            parameters = {**parameters, "properties": {**parameters["properties"], key: {RULE_KEY: f"pi-other-{position}"}}}
        variants.append(_call_variant(tool.name, parameters))
    return variants[0] if len(variants) == 1 else {"anyOf": variants}


def _object_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """A tool's parameters, closed to unknown keys (the converter would otherwise allow any)."""
    schema = dict(parameters) if isinstance(parameters, dict) else {}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    schema.setdefault("additionalProperties", False)
    return schema


def _call_variant(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"name": {"const": name}, "arguments": arguments},
        "required": ["name", "arguments"],
    }


def _copying(parameters: dict[str, Any], rule: CopyRule, rule_name: str) -> dict[str, Any]:
    """``parameters`` with the rule's first argument fixed and its copied field, wherever it is,
    replaced by ``rule_name``."""

    def replace(schema: Any) -> Any:
        if isinstance(schema, list):
            return [replace(item) for item in schema]
        if not isinstance(schema, dict):
            return schema
        replaced = {key: replace(value) for key, value in schema.items() if key != "properties"}
        properties = schema.get("properties")
        if isinstance(properties, dict):
            replaced["properties"] = {
                key: {RULE_KEY: rule_name} if key == rule.copied.field else replace(value)
                for key, value in properties.items()
            }
        return replaced

    copied = replace(parameters)
    copied["properties"] = {**copied["properties"], rule.key: {"const": rule.value}}
    return dict(copied)


def first_argument(tool: Tool) -> str | None:
    """The argument a call of ``tool`` writes first under this grammar (the first required one, as
    ``_schema_gbnf`` orders them), when it is a string."""
    parameters = _object_schema(tool.parameters)
    required = parameters.get("required") or []
    for key, schema in parameters["properties"].items():
        if key in required:
            return key if isinstance(schema, dict) and schema.get("type") == "string" else None
    return None


def _schema_rules(schema: dict[str, Any], name: str) -> list[str]:
    """GBNF for ``schema`` (``_schema_gbnf``), with ``{RULE_KEY: name}`` standing for a rule written
    here (``_copy``)."""
    return schema_rules(schema, name, rule_key=RULE_KEY)


def _call_rules(tools: Sequence[Tool], copies: Sequence[CopyRule]) -> list[str]:
    lines = _schema_rules(call_schema(tools, copies), "pi-call-json")
    if copies:
        lines.extend(JSON_CHAR_RULES)
        for index, rule in enumerate(copies):
            lines.extend(copy_rules(f"pi-copy-{index}", rule.copied.text))
        for position, tool in enumerate(tools):
            values = [rule.value for rule in copies if rule.tool == tool.name]
            if values:
                lines.extend(other_string_rules(f"pi-other-{position}", values))
    forms = " | ".join(
        f"{json.dumps(opening)} pi-call-json {json.dumps(closing)}" if closing else "pi-call-json"
        for opening, closing in CALL_FORMS
    )
    return [*lines, f"pi-call ::= {forms}", 'pi-calls ::= pi-call']


def turn_grammar(
    tools: Sequence[Tool], *, thinking: bool, calls_only: bool = False, copies: Sequence[CopyRule] = (),
    resume: bool = False,
) -> str:
    """GBNF for one assistant turn offering ``tools`` (an answer only when there are none; calls
    only with ``calls_only``, OpenAI's ``tool_choice: "required"``), whose calls follow ``copies``.

    ``resume`` gives the rest of a turn whose text so far ends where a call is about to begin."""
    lines = [_ANSWER_RULE]
    body = "pi-answer"
    if tools:
        lines.extend(_call_rules(tools, copies))
        body = "pi-calls" if calls_only else "(pi-calls | pi-answer)"
        if resume:
            lines.append("root ::= pi-calls")
            return "\n".join(lines) + "\n"
    if thinking:
        lines.append(_THINK_RULES.strip())
        body = f"pi-think? {body}"
    lines.append(f"root ::= {body}")
    return "\n".join(lines) + "\n"
