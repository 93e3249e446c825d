"""PyYAML with the YAML 1.2 core schema, the way Pi's ``yaml`` package reads frontmatter.

PyYAML follows YAML 1.1 (``yes``/``on`` are booleans, ``010`` is octal, ``1:20`` is a
number). The resolvers here are the 1.2 core schema's; duplicate keys are an error, as
they are for Pi. Imported only for frontmatter the direct reader leaves alone.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from pi_coding_agent.customize.resources._errors import FrontmatterError

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]


class _Core12Loader(_BaseLoader):
    """Safe loader, YAML 1.2 core schema resolvers, unique keys."""

    yaml_implicit_resolvers: dict[str, list[tuple[str, re.Pattern[str]]]] = {}  # noqa: RUF012

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        keys: set[Any] = set()
        for key_node, _value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in keys
            except TypeError:
                continue
            if duplicate:
                mark = key_node.start_mark
                raise FrontmatterError(
                    f"Map keys must be unique (line {mark.line + 2}, column {mark.column + 1})"
                )
            keys.add(key)
        return super().construct_mapping(node, deep=deep)


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    if digits.startswith("0o"):
        return sign * int(digits[2:], 8)
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    return sign * int(digits, 10)


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    text = str(loader.construct_scalar(node)).lower()
    if text.endswith(".inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    if text == ".nan":
        return float("nan")
    return float(text)


_RESOLVERS: list[tuple[str, str, str]] = [
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", "~nN"),
    ("tag:yaml.org,2002:int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+.0123456789",
    ),
]
for _tag, _pattern, _first in _RESOLVERS:
    _Core12Loader.add_implicit_resolver(_tag, re.compile(f"^(?:{_pattern})$"), list(_first))
_Core12Loader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile("^$"), [""])
_Core12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Core12Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def load_yaml12(text: str) -> Any:
    """The YAML value of ``text``; ``FrontmatterError`` with line and column when invalid."""
    try:
        return yaml.load(text, Loader=_Core12Loader)
    except FrontmatterError:
        raise
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f" (line {mark.line + 2}, column {mark.column + 1})" if mark is not None else ""
        raise FrontmatterError(f"invalid YAML frontmatter: {error.problem or error}{where}") from None
    except yaml.YAMLError as error:
        raise FrontmatterError(f"invalid YAML frontmatter: {error}") from None
