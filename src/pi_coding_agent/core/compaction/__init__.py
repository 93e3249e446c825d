"""Compaction: replacing the older part of a long branch by a model-written summary.

Branch summaries (``generate_branch_summary``) use the same machinery for the branch the
user navigates away from in the session tree.
"""

from pi_ai import ContextEstimate, calculate_context_tokens
from pi_coding_agent.core.compaction._branch import (
    BranchEntries,
    BranchSummary,
    PreparedBranch,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    prepare_branch_entries,
)
from pi_coding_agent.core.compaction._prepare import (
    CompactionPreparation,
    CutPointResult,
    FileOperations,
    find_cut_point,
    format_file_operations,
    prepare_compaction,
)
from pi_coding_agent.core.compaction._summarize import (
    CompactionResult,
    SummarizationError,
    SummaryRequest,
    compact,
    serialize_conversation,
)
from pi_coding_agent.core.compaction._tokens import (
    estimate_context_tokens,
    estimate_projected_context_tokens,
    estimate_tokens,
    should_compact,
)
from pi_coding_agent.core.compaction._window import fit_summary_prompt, fit_to_window

__all__ = [
    "BranchEntries",
    "BranchSummary",
    "CompactionPreparation",
    "CompactionResult",
    "ContextEstimate",
    "CutPointResult",
    "FileOperations",
    "PreparedBranch",
    "SummarizationError",
    "SummaryRequest",
    "calculate_context_tokens",
    "collect_entries_for_branch_summary",
    "compact",
    "estimate_context_tokens",
    "estimate_projected_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "fit_summary_prompt",
    "fit_to_window",
    "format_file_operations",
    "generate_branch_summary",
    "prepare_branch_entries",
    "prepare_compaction",
    "serialize_conversation",
    "should_compact",
]
