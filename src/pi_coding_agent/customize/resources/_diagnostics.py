"""Problems found while loading resources, with Pi's kinds and wording."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DiagnosticKind = Literal["warning", "error", "collision"]
ResourceKind = Literal["extension", "skill", "prompt", "theme"]


@dataclass(frozen=True)
class Collision:
    resource_type: ResourceKind
    name: str
    winner_path: str
    loser_path: str


@dataclass(frozen=True)
class ResourceDiagnostic:
    """One problem: ``kind`` and ``message`` as Pi has them, ``path`` of the file concerned."""

    kind: DiagnosticKind
    message: str
    path: str | None = None
    collision: Collision | None = None

    def __str__(self) -> str:
        """One line for a terminal: ``<path>: <message>`` (collisions name both files)."""
        if self.collision is not None:
            c = self.collision
            label = f"/{c.name}" if c.resource_type == "prompt" else c.name
            return f'{c.resource_type} "{label}" collision: {c.loser_path} skipped, {c.winner_path} is used'
        return f"{self.path}: {self.message}" if self.path else self.message
