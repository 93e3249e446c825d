"""Small things the parts of ``AgentSession`` share: the no-model message, slash commands, errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NO_MODEL_MESSAGE = (
    "No model selected: pass --model provider/id, or set defaultProvider and defaultModel in "
    "settings.json (run pi --list-models to see what is available)."
)


@dataclass(frozen=True)
class SlashCommand:
    """A ``/name`` command a prompt may start with (Pi's ``get_commands`` entry)."""

    name: str
    description: str
    source: Literal["extension", "prompt", "skill"]
    path: str
    """The file it comes from (Pi's ``sourceInfo.path``)."""
    argument_hint: str | None = None
    """What it takes, as a prompt template's ``argument-hint`` (shown by ``/`` completion)."""


class SessionError(Exception):
    """An operation the session refuses (no model, no credentials, busy, unknown entry, ...)."""
