"""Which tools a run starts with: ``defaultTools``, ``--tools``, ``--exclude-tools``, ``--no-tools``
and ``--no-builtin-tools``, with Pi 1.6's rules (``docs/pi-1.6/settings-and-cli.md``).

* A list is either an allowlist (plain names, ``*`` matching any characters) or, when every entry
  starts with ``+`` or ``-``, a change to the inherited selection: ``+name`` adds a tool, ``-name``
  removes one, in order, exact names only. ``--tools`` refuses a mix of both and ``+``/``-``
  entries with ``*``; ``defaultTools`` is not checked (plain names there form the selection, then
  the ``+``/``-`` entries apply).
* ``defaultTools`` of the project file changes the user's list when it has only ``+``/``-``
  entries, and replaces it otherwise.
* ``--exclude-tools`` (names or ``*`` patterns) removes tools after everything else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from pi_coding_agent.core.tools import DEFAULT_TOOL_NAMES

NoTools = Literal["all", "builtin"]
"""``--no-tools`` (``all``: extension tools too) or ``--no-builtin-tools`` (``builtin``)."""

ToolMatcher = Callable[[str], bool]


def is_tool_modifier(entry: object) -> bool:
    """Whether a selection entry is a ``+name`` or ``-name`` change rather than a name."""
    return isinstance(entry, str) and entry.startswith(("+", "-"))


def tool_list_error(entries: Sequence[str]) -> str | None:
    """What is wrong with a ``--tools`` list (Pi's wording), or ``None`` when it is valid."""
    modifiers = [entry for entry in entries if is_tool_modifier(entry)]
    if not modifiers:
        return None
    if len(modifiers) < len(entries):
        return "tool names cannot be mixed with +name or -name entries"
    pattern = next((entry for entry in modifiers if "*" in entry), None)
    if pattern is not None:
        return f"+name and -name entries take exact tool names, not patterns: {pattern}"
    return None


def apply_tool_modifiers(base: Sequence[str], entries: Sequence[str]) -> list[str]:
    """``base`` with the ``+name`` / ``-name`` entries of ``entries`` applied in order (a ``+``
    of a present tool or a ``-`` of an absent one changes nothing; other entries are skipped)."""
    tools = list(base)
    for entry in entries:
        if not is_tool_modifier(entry):
            continue
        name = entry[1:]
        if entry.startswith("+") and name and name not in tools:
            tools.append(name)
        elif entry.startswith("-") and name in tools:
            tools.remove(name)
    return tools


def merge_default_tools(base: Any, override: Any) -> Any:
    """``defaultTools`` of a settings layer over the one below: a list of only ``+``/``-`` entries
    is appended to an inherited list, anything else replaces it."""
    if isinstance(base, list) and isinstance(override, list) and all(is_tool_modifier(e) for e in override):
        return [*base, *override]
    return override


def resolve_default_tools(value: Any) -> list[str]:
    """A merged ``defaultTools`` value as the selection it stands for: its plain names (or, when it
    has only ``+``/``-`` entries, the defaults) with the changes applied. A value that is not a
    list selects nothing, non-string entries are skipped (as Pi 1.6 does)."""
    entries = [entry for entry in value if isinstance(entry, str)] if isinstance(value, list) else []
    plain = [entry for entry in entries if not is_tool_modifier(entry)]
    base = plain if plain or not entries else list(DEFAULT_TOOL_NAMES)
    return apply_tool_modifiers(base, entries)


def tool_name_matcher(entries: Sequence[str]) -> ToolMatcher:
    """Whether a tool name is one of ``entries``, each an exact name or a pattern where ``*``
    matches any characters (and nothing else is special)."""
    names = {entry for entry in entries if "*" not in entry}
    patterns = [
        re.compile(".*".join(re.escape(part) for part in entry.split("*")), re.DOTALL)
        for entry in entries
        if "*" in entry
    ]
    return lambda name: name in names or any(pattern.fullmatch(name) for pattern in patterns)


@dataclass(frozen=True)
class ToolSelection:
    """The tools a session starts with, and which tools may exist at all."""

    initial: list[str]
    """Names to activate, in order (names of tools that do not exist are ignored later)."""
    allowlist: list[str] | None
    """Entries (names, ``*`` patterns) every tool must match, and all matching tools start
    active; ``None``: no allowlist."""
    excluded: list[str]
    """``--exclude-tools`` entries: matching tools do not exist for the run."""

    @cached_property
    def _is_excluded(self) -> ToolMatcher:
        return tool_name_matcher(self.excluded)

    @cached_property
    def _is_listed(self) -> ToolMatcher | None:
        return tool_name_matcher(self.allowlist) if self.allowlist is not None else None

    def allowed(self, name: str) -> bool:
        """Whether the tool may exist in the run (``--tools`` allowlist, ``--exclude-tools``)."""
        if self._is_excluded(name):
            return False
        return self._is_listed is None or self._is_listed(name)

    def active(self, available: Sequence[str]) -> list[str]:
        """Of ``available`` (names, in registration order), those the run starts with: the initial
        names first, then every other tool the allowlist names or matches."""
        present = [name for name in available if self.allowed(name)]
        chosen = [name for name in self.initial if name in present]
        if self._is_listed is not None:
            chosen += [name for name in present if self._is_listed(name)]
        return list(dict.fromkeys(chosen))


def select_tools(
    default_tools: Sequence[str] | None,
    tools: Sequence[str] | None,
    exclude_tools: Sequence[str] | None,
    no_tools: NoTools | None,
) -> ToolSelection:
    """Pi 1.6's startup selection. ``default_tools``: the resolved setting (``None`` when unset);
    ``tools``: ``--tools``, already checked with ``tool_list_error``."""
    defaults = [] if no_tools else list(DEFAULT_TOOL_NAMES if default_tools is None else default_tools)
    excluded = list(exclude_tools or ())
    if tools is not None and any(is_tool_modifier(entry) for entry in tools):
        selected = apply_tool_modifiers(defaults, tools)
        allowlist = selected if no_tools == "all" else None
    else:
        selected = list(tools) if tools is not None else defaults
        allowlist = list(tools) if tools is not None else ([] if no_tools == "all" else None)
    matches_excluded = tool_name_matcher(excluded)
    initial = [name for name in selected if not matches_excluded(name)]
    return ToolSelection(initial, allowlist, excluded)
