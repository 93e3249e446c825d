"""The ``[Extension issues]`` block under the startup header (Pi's extension diagnostics).

It names, for the extension that caused it: a command with a built-in command's name, and
each shortcut that meets another key: a reserved application key (the shortcut is skipped),
another built-in key (the extension's shortcut wins) or another extension's (the later one
wins). Each issue is its extension's path, labelled with where it came from as Pi labels it
(``path (temp)`` for ``-e``, ``user``/``project`` for settings entries, the package source
for a package), then the message. The block shows with ``quietStartup`` too, as in Pi.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_coding_agent.app.interactive._extension_sources import labelled_path
from pi_coding_agent.app.interactive.commands import BUILTIN_COMMANDS
from pi_tui import Component, Spacer, Text

if TYPE_CHECKING:
    from pi_coding_agent.customize.extensions import ExtensionRunner
    from pi_coding_agent.customize.themes import Theme
    from pi_tui import Keybindings

Issue = tuple[str, str]
"""``(extension path, message)``."""

_BUILTIN_NAMES = frozenset(name for name, _ in BUILTIN_COMMANDS)


def extension_issues(runner: ExtensionRunner, keys: Keybindings, reserved: tuple[str, ...]) -> list[Issue]:
    """Packages listing Pi's own packages as dependencies, built-in command clashes, then
    shortcut conflicts, in Pi's order."""
    issues: list[Issue] = list(runner.package_warnings)
    for command in runner.commands():
        if command.name not in _BUILTIN_NAMES:
            continue
        if command.invocation_name == command.name:
            outcome = "Skipping in autocomplete."
        else:
            outcome = f"Available as '/{command.invocation_name}'."
        message = f"Extension command '/{command.name}' conflicts with built-in interactive command. {outcome}"
        issues.append((command.extension_path, message))
    return issues + _shortcut_issues(runner, keys, reserved)


def _builtin_keys(keys: Keybindings, reserved: tuple[str, ...]) -> dict[str, tuple[str, bool]]:
    """Each bound key's action and whether it is reserved (a reserved action keeps a key it
    shares with another)."""
    found: dict[str, tuple[str, bool]] = {}
    for action, bound in {**keys.defaults, **keys.user}.items():
        restricted = action in reserved
        for key in bound:
            normalized = key.lower()
            if normalized in found and found[normalized][1] and not restricted:
                continue
            found[normalized] = (action, restricted)
    return found


def _shortcut_issues(runner: ExtensionRunner, keys: Keybindings, reserved: tuple[str, ...]) -> list[Issue]:
    builtin = _builtin_keys(keys, reserved)
    taken: dict[str, str] = {}
    issues: list[Issue] = []
    for extension in runner.extensions:
        for shortcut in extension.shortcuts.values():
            key, path = shortcut.key, shortcut.extension_path
            normalized = key.lower()
            action, restricted = builtin.get(normalized, ("", False))
            if restricted:
                issues.append((path, f"Extension shortcut '{key}' from {path} conflicts with built-in shortcut. Skipping."))
                continue
            if action:
                message = f"Extension shortcut conflict: '{key}' is built-in shortcut for {action} and {path}. Using {path}."
                issues.append((path, message))
            if normalized in taken:
                message = f"Extension shortcut conflict: '{key}' registered by both {taken[normalized]} and {path}. Using {path}."
                issues.append((path, message))
            taken[normalized] = path
    return issues


def issues_block(issues: list[Issue], runner: ExtensionRunner, theme: Theme) -> list[Component]:
    """The block and the blank line after it; nothing when there is no issue."""
    if not issues:
        return []
    lines = [theme.fg("warning", "[Extension issues]")]
    for path, message in issues:
        lines += [theme.fg("warning", f"  {labelled_path(path, runner.sources)}"), theme.fg("warning", f"    {message}")]
    return [Text("\n".join(lines), 0, 0), Spacer(1)]
