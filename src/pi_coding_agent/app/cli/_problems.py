"""How a run stops or warns: ``CliError`` ends it with one ``Error:`` line (exit status 1);
``Diagnostics`` collects the warnings printed before the run starts."""

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
            print(f"Warning: {message}", file=sys.stderr)
        self.warnings.clear()
