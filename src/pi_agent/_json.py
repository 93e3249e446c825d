"""JSON text as JavaScript writes it, for strings that Pi's tests and models read verbatim.

Python and JavaScript disagree on how numbers print (``5.0`` vs ``5``, ``1e-05`` vs
``0.00001``), so anything that must match Pi's text byte for byte goes through here.
"""

from __future__ import annotations

import json
import math
from typing import Any


def js_number(value: float | int) -> str:
    """``String(n)`` in JavaScript."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    text = repr(value)  # shortest round-trip digits, as JavaScript uses
    if "e" not in text:
        return text
    mantissa, exponent_text = text.split("e")
    exponent = int(exponent_text)
    if -7 < exponent < 21:
        from decimal import Decimal

        expanded = format(Decimal(text), "f")
        return expanded[:-2] if expanded.endswith(".0") else expanded
    return f"{mantissa}e{'+' if exponent > 0 else '-'}{abs(exponent)}"


def js_stringify(value: Any, indent: int = 0) -> str:
    """``JSON.stringify(value, null, indent)`` for JSON-like Python data."""
    return _write(value, indent, 0)


def _write(value: Any, indent: int, depth: int) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return "null"
        return js_number(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{json.dumps(str(key), ensure_ascii=False)}:{' ' if indent else ''}{_write(item, indent, depth + 1)}"
                 for key, item in value.items()]
        return _join("{", items, "}", indent, depth)
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        return _join("[", [_write(item, indent, depth + 1) for item in value], "]", indent, depth)
    return json.dumps(str(value), ensure_ascii=False)


def _join(open_: str, items: list[str], close: str, indent: int, depth: int) -> str:
    if not indent:
        return open_ + ",".join(items) + close
    inner = "\n" + " " * (indent * (depth + 1))
    return open_ + inner + ("," + inner).join(items) + "\n" + " " * (indent * depth) + close
