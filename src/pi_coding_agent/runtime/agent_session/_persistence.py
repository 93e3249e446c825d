"""What of a settled message goes into the session file (at its ``message_end``)."""

from __future__ import annotations

from pi_agent import AgentMessage
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_coding_agent.core.session import SessionManager


def persist_message(manager: SessionManager, message: AgentMessage) -> None:
    """Append ``message``: a custom role as a ``custom_message`` entry; user, assistant and
    tool results and Pi 1.6's system messages as ``message`` entries; other roles (bash executions, summaries) were
    recorded when they were made."""
    if isinstance(message, CustomRoleMessage):
        manager.append_custom_message_entry(message.custom_type, message.content, message.display, message.details)
    elif message.role in ("user", "assistant", "toolResult", "system"):
        manager.append_message(message)
