"""What the transcript is made of: messages, tool runs, user commands, summaries, footer."""

from pi_coding_agent.app.interactive.components._custom import (
    CustomEntryView,
    CustomMessageView,
    ExtensionToolView,
)
from pi_coding_agent.app.interactive.components._footer import Footer, format_tokens
from pi_coding_agent.app.interactive.components._images import configure_images, image_protocol, set_cell_size
from pi_coding_agent.app.interactive.components._messages import (
    AssistantMessageView,
    BashExecutionView,
    MarkdownTransform,
    SummaryCard,
    UserMessageView,
    notice,
)
from pi_coding_agent.app.interactive.components._tools import ToolExecutionView

__all__ = [
    "AssistantMessageView",
    "BashExecutionView",
    "CustomEntryView",
    "CustomMessageView",
    "ExtensionToolView",
    "Footer",
    "MarkdownTransform",
    "SummaryCard",
    "ToolExecutionView",
    "UserMessageView",
    "configure_images",
    "format_tokens",
    "image_protocol",
    "notice",
    "set_cell_size",
]
