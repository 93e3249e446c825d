"""What extensions need from the session they run in (``AgentSession`` provides it).

The extension runner talks to the session only through this interface, so the
``extensions`` package does not import ``agent_session`` (which imports it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pi_agent import AgentTool
from pi_ai import AbortSignal, ImageContent, Model
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.core.model_registry import ModelCatalog
from pi_coding_agent.core.session import SessionManager


class ExtensionHost(Protocol):
    """The session side of ``pi.*`` and ``ctx.*``."""

    session_manager: SessionManager
    catalog: ModelCatalog
    cwd: str

    @property
    def model(self) -> Model | None: ...

    @property
    def thinking_level(self) -> str: ...

    @property
    def system_prompt(self) -> str: ...

    @property
    def is_idle(self) -> bool: ...

    @property
    def pending_message_count(self) -> int: ...

    @property
    def current_signal(self) -> AbortSignal | None: ...

    async def send_custom_message(
        self, message: CustomRoleMessage, *, deliver_as: str | None, trigger_turn: bool | None
    ) -> None: ...

    async def send_user_message(
        self, text: str, images: Sequence[ImageContent] | None, *, deliver_as: str | None, expand: bool
    ) -> None: ...

    def set_session_name(self, name: str) -> None: ...

    def set_label(self, entry_id: str, label: str | None) -> None: ...

    def active_tool_names(self) -> list[str]: ...

    def all_tools(self) -> list[AgentTool]: ...

    def tool_namespace(self, name: str) -> dict[str, Any] | None: ...

    def set_active_tools(self, names: Sequence[str]) -> None: ...

    def refresh_tools(self) -> None: ...

    def set_model_from_extension(self, model: Model) -> bool: ...

    def set_thinking_level(self, level: str, *, persist: bool = False) -> None: ...

    def available_commands_for_extensions(self) -> list[dict[str, Any]]: ...

    async def abort(self) -> None: ...

    async def wait_for_idle(self) -> None: ...

    def get_context_usage(self) -> Any: ...

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]: ...

    def system_prompt_options(self) -> dict[str, Any]: ...
