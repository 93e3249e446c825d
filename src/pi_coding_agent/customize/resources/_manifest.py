"""What a package (or a folder of resources) says it provides.

Read from, first found: ``pyproject.toml``'s ``[tool.pi]`` table, then ``package.json``'s
``pi`` object (Pi's own manifest, so a Pi package is read unchanged). Each of the keys
``extensions``, ``skills``, ``prompts``, ``themes`` is kept when it is a list of strings
(paths or globs relative to the folder, with ``!``/``+``/``-`` patterns); other keys are
ignored. A manifest with none of the keys still counts: it provides nothing, as in Pi.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Literal

ResourceType = Literal["extensions", "skills", "prompts", "themes"]
RESOURCE_TYPES: tuple[ResourceType, ...] = ("extensions", "skills", "prompts", "themes")


@dataclass(frozen=True)
class Manifest:
    file: str
    entries: dict[ResourceType, list[str]]

    def get(self, resource_type: ResourceType) -> list[str] | None:
        return self.entries.get(resource_type)

    @property
    def extensions(self) -> list[str] | None:
        return self.entries.get("extensions")


def _entries(table: dict[str, Any]) -> dict[ResourceType, list[str]]:
    found: dict[ResourceType, list[str]] = {}
    for key in RESOURCE_TYPES:
        value = table.get(key)
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            found[key] = list(value)
    return found


def _pyproject_table(path: str) -> dict[str, Any] | None:
    import tomllib

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    tool = data.get("tool")
    table = tool.get("pi") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def _read_json_quietly(path: str) -> object:
    """A JSON file's value, or ``None`` when it is missing or invalid (manifests are optional)."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def read_manifest(folder: str) -> Manifest | None:
    pyproject = os.path.join(folder, "pyproject.toml")
    if os.path.isfile(pyproject):
        table = _pyproject_table(pyproject)
        if table is not None:
            return Manifest(pyproject, _entries(table))
    package_json = os.path.join(folder, "package.json")
    if os.path.isfile(package_json):
        data = _read_json_quietly(package_json)
        pi = data.get("pi") if isinstance(data, dict) else None
        if isinstance(pi, dict):
            return Manifest(package_json, _entries(pi))
    return None
