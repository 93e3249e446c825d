"""The coding agent's own message roles, registered with the agent layer on import.

Field order is the JSON key order Pi writes. Optional keys that Pi sometimes writes as
``null`` (``exitCode`` of a run that never exited, for instance) use ``UNSET`` for
"absent" so a message read from disk encodes back to the same keys.

Each role is bound to its projection for the model here; ``convert_to_llm`` applies them.
Like pi-ai's messages they are read as Pi reads them (``lenient_decoding``): a run without
``cancelled`` or ``truncated``, a custom message without ``display``, is still that message.
"""

from __future__ import annotations

from typing import Any, ClassVar

from msgspec import UNSET, UnsetType

from pi_agent import CustomMessage, register_role
from pi_ai import ImageContent, TextContent, UserMessage

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"
"""No leading newline, unlike the compaction suffix: Pi's texts are asymmetric."""

OWNER = "pi_coding_agent"


class BashExecutionMessage(CustomMessage, tag="bashExecution", kw_only=True):
    """A command the user ran with ``!`` (or ``!!``: ``exclude_from_context``)."""

    lenient_decoding: ClassVar[bool] = True

    command: str
    output: str
    exit_code: int | UnsetType | None = UNSET
    """``UNSET`` (key absent) when the run was cancelled before it exited."""
    cancelled: bool
    truncated: bool
    full_output_path: str | UnsetType | None = UNSET
    timestamp: int
    exclude_from_context: bool | UnsetType | None = UNSET
    """True for ``!!`` runs: stored and shown, never sent to the model."""


class CustomRoleMessage(CustomMessage, tag="custom", kw_only=True):
    """A message an extension injected (Pi's ``CustomMessage``, role ``custom``).

    ``display`` only controls the UI: hidden messages still reach the model.
    """

    lenient_decoding: ClassVar[bool] = True

    custom_type: str
    content: str | list[TextContent | ImageContent]
    display: bool
    details: Any | UnsetType = UNSET
    timestamp: int


class BranchSummaryMessage(CustomMessage, tag="branchSummary", kw_only=True):
    """Synthesized from a ``branch_summary`` entry when the context is built."""

    lenient_decoding: ClassVar[bool] = True

    summary: str
    from_id: str | None
    timestamp: int


class CompactionSummaryMessage(CustomMessage, tag="compactionSummary", kw_only=True):
    """Synthesized from a ``compaction`` entry when the context is built."""

    lenient_decoding: ClassVar[bool] = True

    summary: str
    tokens_before: int
    timestamp: int


def bash_execution_to_text(message: BashExecutionMessage) -> str:
    """The text the model reads for a user bash run (Pi's ``bashExecutionToText``)."""
    text = f"Ran `{message.command}`\n"
    text += f"```\n{message.output}\n```" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif isinstance(message.exit_code, int) and message.exit_code != 0:
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def _user_text(text: str, timestamp: int) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def _bash_to_llm(message: BashExecutionMessage) -> UserMessage | None:
    if message.exclude_from_context:
        return None
    return _user_text(bash_execution_to_text(message), message.timestamp)


def _custom_to_llm(message: CustomRoleMessage) -> UserMessage:
    content = message.content
    blocks: list[TextContent | ImageContent] = (
        [TextContent(text=content)] if isinstance(content, str) else list(content)
    )
    return UserMessage(content=blocks, timestamp=message.timestamp)


def _branch_summary_to_llm(message: BranchSummaryMessage) -> UserMessage:
    return _user_text(BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX, message.timestamp)


def _compaction_summary_to_llm(message: CompactionSummaryMessage) -> UserMessage:
    return _user_text(
        COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX, message.timestamp
    )


register_role(BashExecutionMessage, owner=OWNER, to_llm=_bash_to_llm)
register_role(CustomRoleMessage, owner=OWNER, to_llm=_custom_to_llm)
register_role(BranchSummaryMessage, owner=OWNER, to_llm=_branch_summary_to_llm)
register_role(CompactionSummaryMessage, owner=OWNER, to_llm=_compaction_summary_to_llm)
