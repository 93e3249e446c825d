"""TypeScript declarations of tools for scripts: ``name(args: {...}): Promise<R>;`` with the
description as a doc comment. Schemas become one-line types; ``$ref`` to local definitions are
followed, anything this does not understand is ``unknown``."""

from __future__ import annotations

import json
from typing import Any

from pi_coding_agent.core.codemode._identifier import to_identifier

TEXT_OUTPUT: dict[str, Any] = {"type": "string"}
_MAX_DEPTH = 6


def _resolve(schema: Any, root: Any) -> Any:
    seen: set[int] = set()
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and id(schema) not in seen:
        seen.add(id(schema))
        ref = schema["$ref"]
        if not ref.startswith("#"):
            break
        target: Any = root
        for raw in [p for p in ref[1:].split("/") if p]:
            key = raw.replace("~1", "/").replace("~0", "~")
            target = target.get(key) if isinstance(target, dict) else None
        if target is None:
            break
        schema = target
    return schema


def schema_type(schema: Any, root: Any = None, depth: int = 0) -> str:
    """A JSON Schema as a TypeScript type expression."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if depth > _MAX_DEPTH or not isinstance(schema, dict):
        return "unknown"
    if "const" in schema:
        return json.dumps(schema["const"])
    if isinstance(schema.get("enum"), list):
        return " | ".join(json.dumps(value) for value in schema["enum"]) or "never"
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list) and variants:
        return " | ".join(schema_type(variant, root, depth + 1) for variant in variants)
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(schema_type({**schema, "type": entry}, root, depth + 1) for entry in kind)
    if kind in ("string", "boolean", "null"):
        return str(kind)
    if kind in ("number", "integer"):
        return "number"
    if kind == "array":
        return f"Array<{schema_type(schema.get('items'), root, depth + 1)}>"
    properties = schema.get("properties")
    if kind == "object" or isinstance(properties, dict):
        if not isinstance(properties, dict) or not properties:
            return "Record<string, unknown>"
        required = set(schema.get("required") or ())
        fields = [
            f"{name if name.isidentifier() else json.dumps(name)}{'' if name in required else '?'}: "
            f"{schema_type(value, root, depth + 1)};"
            for name, value in sorted(properties.items())
        ]
        return "{ " + " ".join(fields) + " }"
    return "unknown"


def doc_comment(text: str) -> str:
    lines = text.strip().replace("*/", "*\\/").splitlines() or [""]
    return "/**\n" + "\n".join(f" *{' ' + line if line else ''}" for line in lines) + "\n */"


def render_declaration(name: str, description: str, parameters: Any, output_schema: Any) -> str:
    """The tool's description as a doc comment, then its signature."""
    signature = (
        f"{to_identifier(name)}(args: {schema_type(parameters)}): Promise<{schema_type(output_schema or TEXT_OUTPUT)}>;"
    )
    return f"{doc_comment(description)}\n{signature}" if description.strip() else signature


def describe_output(output_schema: Any) -> str:
    """What a call resolves to, in a few words: ``a string`` or a TypeScript type."""
    rendered = schema_type(output_schema or TEXT_OUTPUT)
    return "a string" if rendered == "string" else f"`{rendered}`"
