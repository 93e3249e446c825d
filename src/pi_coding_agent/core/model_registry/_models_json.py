"""Reading ``<agent dir>/models.json``: the user's providers, models and overrides.

The file is JSON with ``//`` and ``/* */`` comments and trailing commas allowed (Pi 1.6 reads
``//`` comments and trailing commas; Pi 0.85's files may have block comments). This module
finds and parses it; ``pi_ai.models.ModelRegistry`` composes the parsed data with the
built-in catalog. A file that cannot be used leaves the built-in models usable, and the
registry's ``error`` says what is wrong, naming the file (and the line for JSON errors).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi_ai import Model, ModelRegistry


def load_models_json(path: Path, dynamic: Mapping[str, list[Model]] | None = None) -> ModelRegistry:
    """The built-in models (and ``dynamic`` catalogs) composed with ``path``; no file means
    those alone."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ModelRegistry(dynamic=dynamic)
    except (OSError, UnicodeDecodeError) as error:
        return _failed(f"Failed to load models.json: {error}", path, dynamic)
    text = _strip_json_comments(raw.removeprefix("\ufeff"))
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        return _failed(
            f"Failed to parse models.json: {error.msg} at line {error.lineno} column {error.colno}",
            path,
            dynamic,
        )
    registry = ModelRegistry(parsed, dynamic)
    if registry.error is not None:
        registry.error += f"\n\nFile: {path}"
    return registry


def read_models_json(path: Path) -> Any:
    """The parsed file (comments allowed), or ``None`` when it is missing or unreadable."""
    try:
        return json.loads(_strip_json_comments(path.read_text(encoding="utf-8").removeprefix("\ufeff")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _failed(problem: str, path: Path, dynamic: Mapping[str, list[Model]] | None) -> ModelRegistry:
    registry = ModelRegistry(dynamic=dynamic)
    registry.error = f"{problem}\n\nFile: {path}"
    return registry


_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(\s*[}\]])')


def _strip_json_comments(text: str) -> str:
    """Comments and trailing commas removed (newlines kept for line numbers)."""
    return _STRING_OR_TRAILING_COMMA.sub(
        lambda match: match.group(1) if match.group(1) is not None else match.group(0), _strip_comments(text)
    )


def _strip_comments(text: str) -> str:
    """Remove ``//`` and ``/* */`` comments outside strings (newlines kept for line numbers)."""
    out: list[str] = []
    index = 0
    length = len(text)
    in_string = False
    while index < length:
        char = text[index]
        if in_string:
            out.append(char)
            if char == "\\" and index + 1 < length:
                out.append(text[index + 1])
                index += 2
                continue
            if char == '"':
                in_string = False
            index += 1
        elif char == '"':
            in_string = True
            out.append(char)
            index += 1
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = length if end < 0 else end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            comment = text[index : length if end < 0 else end + 2]
            out.append("\n" * comment.count("\n"))
            index = length if end < 0 else end + 2
        else:
            out.append(char)
            index += 1
    return "".join(out)
