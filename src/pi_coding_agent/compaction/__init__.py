"""Compaction: replacing the older part of a long branch by a model-written summary."""

from pi_ai import ContextEstimate, calculate_context_tokens
from pi_coding_agent.compaction._prepare import (
    CompactionPreparation,
    CutPoint,
    FileOps,
    find_cut_point,
    format_file_operations,
    prepare_compaction,
)
from pi_coding_agent.compaction._summarize import (
    CompactionResult,
    SummarizationError,
    SummaryRequest,
    compact,
    serialize_conversation,
)
from pi_coding_agent.compaction._tokens import estimate_context_tokens, estimate_tokens, should_compact

__all__ = [
    "CompactionPreparation",
    "CompactionResult",
    "ContextEstimate",
    "CutPoint",
    "FileOps",
    "SummarizationError",
    "SummaryRequest",
    "calculate_context_tokens",
    "compact",
    "estimate_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "format_file_operations",
    "prepare_compaction",
    "serialize_conversation",
    "should_compact",
]
