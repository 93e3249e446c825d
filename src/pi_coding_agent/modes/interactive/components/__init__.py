"""What the transcript is made of: messages, tool runs, user commands, summaries, footer."""

from pi_coding_agent.modes.interactive.components._footer import Footer
from pi_coding_agent.modes.interactive.components._images import image_protocol, set_cell_size
from pi_coding_agent.modes.interactive.components._messages import (
    AssistantMessageView,
    BashExecutionView,
    SummaryCard,
    UserMessageView,
    notice,
)
from pi_coding_agent.modes.interactive.components._tools import ToolExecutionView

__all__ = [
    "AssistantMessageView",
    "BashExecutionView",
    "Footer",
    "SummaryCard",
    "ToolExecutionView",
    "UserMessageView",
    "image_protocol",
    "notice",
    "set_cell_size",
]
