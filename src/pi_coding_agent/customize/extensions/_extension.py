"""One loaded extension: what its setup registered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_coding_agent.customize.extensions._types import (
    CommandDefinition,
    FlagDefinition,
    Handler,
    ShortcutDefinition,
    ToolDefinition,
)

MessageConverter = Callable[[Any], Any]
"""``converter(message)`` -> LLM messages for a custom role: a message, a list, or ``None`` (filtered)."""


@dataclass
class Extension:
    path: str
    """The file (or folder) it was loaded from; how errors name it."""
    handlers: dict[str, list[Handler]] = field(default_factory=dict)
    tools: dict[str, ToolDefinition] = field(default_factory=dict)
    commands: dict[str, CommandDefinition] = field(default_factory=dict)
    flags: dict[str, FlagDefinition] = field(default_factory=dict)
    shortcuts: dict[str, ShortcutDefinition] = field(default_factory=dict)
    message_renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    message_converters: dict[str, MessageConverter] = field(default_factory=dict)
    entry_renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    markdown_transformer: Callable[..., Any] | None = None
    module: Any = None
