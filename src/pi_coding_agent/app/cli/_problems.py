"""How a run stops or warns: ``CliError`` ends it with one ``Error:`` line (exit status 1);
``Diagnostics`` collects the warnings printed before the run starts; ``problem_line`` writes
such a line (its text may quote an extension's error or a file's content)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field


class CliError(Exception):
    """A problem that ends the run before any model call; printed as ``Error: <message>``."""


@dataclass
class Diagnostics:
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def flush(self) -> None:
        for message in self.warnings:
            problem_line(f"Warning: {message}")
        self.warnings.clear()


def problem_line(line: str) -> None:
    """``line`` on stderr; on a terminal through the terminal-output policy (docs/security.md),
    so an error text quoting escape sequences cannot act. ``pi_tui`` is loaded only then."""
    if sys.stderr.isatty():
        from pi_tui import terminal_safe

        line = terminal_safe(line)
    print(line, file=sys.stderr)
