"""``pi install|remove|uninstall|update|list|config``: the package commands.

Options, messages and exit statuses follow Pi 0.85's package CLI; the differences
(no self-update, no trust prompt, ``pi config`` without a
full-screen UI) are listed in ``docs/packages.md``.
"""

from __future__ import annotations

import os
import sys

from pi_coding_agent.customize.packages._parse import HELP, PACKAGE_COMMANDS, USAGE, parse_package_command

__all__ = ["PACKAGE_COMMANDS", "run_package_command"]


def run_package_command(argv: list[str]) -> int | None:
    """Run a package command; ``None`` when ``argv`` is not one (the caller goes on)."""
    parsed = parse_package_command(argv)
    if parsed is None:
        return None
    if parsed.help:
        print(f"Usage:\n  {USAGE[parsed.command]}\n\n{HELP[parsed.command]}", end="")
        return 0
    if parsed.problem:
        print(parsed.problem, file=sys.stderr)
        hint = (
            f'Use "pi --help" or "{USAGE[parsed.command]}".'
            if parsed.unknown_option
            else f"Usage: {USAGE[parsed.command]}"
        )
        print(hint, file=sys.stderr)
        return 1
    if parsed.command in ("install", "remove") and not parsed.source:
        print(f"Missing {parsed.command} source.", file=sys.stderr)
        print(f"Usage: {USAGE[parsed.command]}", file=sys.stderr)
        return 1
    from pi_coding_agent.customize.packages._commands import execute

    return execute(parsed, os.getcwd())
