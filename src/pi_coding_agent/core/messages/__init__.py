"""The coding agent's message roles and their conversion for the model.

Importing this package registers the roles ``bashExecution``, ``custom``, ``branchSummary``,
``compactionSummary`` and Pi 1.6's ``system`` with ``pi_agent``, so sessions and RPC payloads decode them into
the classes below.
"""

from pi_coding_agent.core.messages._convert import (
    IMAGE_BLOCKED_TEXT,
    convert_to_llm,
    converter,
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
    replace_images,
)
from pi_coding_agent.core.messages._roles import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomRoleMessage,
    bash_execution_to_text,
)
from pi_coding_agent.core.messages._system import (
    SystemMessage,
    current_system_message,
    current_tools,
    system_message_text,
    system_update,
)
from pi_coding_agent.core.messages._time import iso_to_ms, now_iso

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "IMAGE_BLOCKED_TEXT",
    "BashExecutionMessage",
    "BranchSummaryMessage",
    "CompactionSummaryMessage",
    "CustomRoleMessage",
    "SystemMessage",
    "bash_execution_to_text",
    "convert_to_llm",
    "converter",
    "create_branch_summary_message",
    "create_compaction_summary_message",
    "create_custom_message",
    "current_system_message",
    "current_tools",
    "iso_to_ms",
    "now_iso",
    "replace_images",
    "system_message_text",
    "system_update",
]
