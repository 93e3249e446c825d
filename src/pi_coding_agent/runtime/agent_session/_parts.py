"""What the ``AgentSession`` mixins may rely on: the attributes and hooks of the session core."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pi_agent import Agent, AgentMessage
from pi_ai import AbortController, Model, TextContent
from pi_coding_agent.core.model_registry import ModelCatalog, ScopedModel
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.runtime.agent_session._events import SessionEvent

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


class SessionError(Exception):
    """An operation the session refuses (no model, no credentials, busy, unknown entry, ...)."""


class SessionParts:
    """Declarations only; ``AgentSession`` provides them."""

    agent: Agent
    session_manager: SessionManager
    settings: Settings
    catalog: ModelCatalog
    cwd: str
    scoped_models: list[ScopedModel]
    _model: Model | None
    _run_active: bool
    _branch_summary: AbortController | None
    _select_source: str
    """How the next model change came about for ``model_select`` (``set`` or ``cycle``)."""

    @property
    def messages(self) -> list[AgentMessage]:
        raise NotImplementedError

    @property
    def thinking_level(self) -> str:
        raise NotImplementedError

    def _emit(self, event: SessionEvent) -> None:
        raise NotImplementedError

    def _resolve_idle_if_idle(self) -> None:
        raise NotImplementedError

    def _notify_model_select(self, previous: Model | None, model: Model) -> None:
        """Extensions hear of a model change (``model_select``); nothing without extensions."""

    def _notify_thinking_select(self, previous: str, level: str) -> None:
        """Extensions hear of a thinking-level change (``thinking_level_select``)."""

    async def _extension_compaction(
        self, preparation: Any, reason: str, will_retry: bool, custom_instructions: str | None
    ) -> Any:
        """An extension's compaction (``session_before_compact``); ``None`` without extensions."""
        return None

    async def _before_tree(self, target_id: str, old_leaf: str | None, summarize: bool) -> Any:
        """``session_before_tree``: ``False`` to cancel, a branch summary outcome, or ``None``."""
        return None

    async def _after_tree(self, new_leaf: str | None, old_leaf: str | None, summary_entry: Any, from_extension: bool) -> None:
        """``session_tree`` for extensions."""

    async def _compacted(self, reason: str, will_retry: bool, from_extension: bool) -> None:
        """``session_compact`` for extensions."""

    async def _compaction_failed(self, reason: str, error: str | None, will_retry: bool, *, aborted: bool = False) -> None:
        """``session_compact_failed`` for extensions."""


def message_text(content: str | Sequence[object]) -> str:
    """The text blocks of a message's content, joined without separator (Pi's ``contentText(c, "")``)."""
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))
