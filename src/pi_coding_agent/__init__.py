"""pi_coding_agent: the coding agent product (sessions, tools, run modes, the ``pi`` CLI).

The root offers what Pi's ``@earendil-works/pi-coding-agent`` index exports, in snake_case,
for the parts built here (``docs/sdk.md`` lists the mapping and what is not built). Names are
loaded on first access (PEP 562): ``import pi_coding_agent`` loads this module alone, so
``pi --version`` pays nothing for them, and ``from pi_coding_agent import SessionManager``
loads the session package and what it needs, nothing else.
"""

from __future__ import annotations

__version__ = "0.1.0"
PI_COMPAT_VERSION = "0.85.0"
"""The Pi release whose files and wire protocol this implementation follows."""
VERSION = __version__

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing would cost ``pi --version``
if TYPE_CHECKING:
    from typing import Any

    from pi_coding_agent.app.cli import Args, main, parse_args
    from pi_coding_agent.app.print_mode import run_print_mode
    from pi_coding_agent.app.rpc import RpcClient, run_rpc_mode
    from pi_coding_agent.core.compaction import (
        CompactionResult,
        CutPointResult,
        FileOperations,
        calculate_context_tokens,
        collect_entries_for_branch_summary,
        compact,
        estimate_tokens,
        find_cut_point,
        generate_branch_summary,
        prepare_branch_entries,
        serialize_conversation,
        should_compact,
    )
    from pi_coding_agent.core.messages import convert_to_llm
    from pi_coding_agent.core.model_registry import (
        ModelCatalog,
        ResolveCliModelResult,
        ScopedModel,
        resolve_cli_model,
    )
    from pi_coding_agent.core.paths import CONFIG_DIR_NAME, get_agent_dir
    from pi_coding_agent.core.session import (
        CURRENT_SESSION_VERSION,
        BranchSummaryEntry,
        CompactionEntry,
        CustomEntry,
        CustomMessageEntry,
        ModelChangeEntry,
        SessionContext,
        SessionEntry,
        SessionHeader,
        SessionInfo,
        SessionInfoEntry,
        SessionManager,
        SessionMessageEntry,
        SessionTreeNode,
        ThinkingLevelChangeEntry,
        build_context_entries,
        build_session_context,
        migrate_session_entries,
        session_entry_to_context_messages,
    )
    from pi_coding_agent.core.settings import CompactionSettings, RetrySettings, Settings
    from pi_coding_agent.core.tools import (
        DEFAULT_MAX_BYTES,
        DEFAULT_MAX_LINES,
        BashOperations,
        ToolsOptions,
        TruncationResult,
        detect_supported_image_mime_type_from_file,
        format_size,
        truncate_head,
        truncate_line,
        truncate_tail,
    )
    from pi_coding_agent.customize.packages import PackageManager, ResolvedResource
    from pi_coding_agent.customize.prompt_templates import PromptTemplate
    from pi_coding_agent.customize.resources import ResourceDiagnostic, parse_frontmatter, strip_frontmatter
    from pi_coding_agent.customize.skills import Skill, format_skills_for_prompt, load_skills
    from pi_coding_agent.customize.system_prompt import load_project_context_files
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import (
        AgentSession,
        AgentSessionEvent,
        AgentSessionEventListener,
        AgentSessionRuntime,
        AgentSettledEvent,
        ContextUsage,
        CreateAgentSessionOptions,
        CreateAgentSessionResult,
        ModelCycleResult,
        SessionInfoChangedEvent,
        SessionStats,
        create_agent_session,
    )
    from pi_tui import DynamicBorder, TuiMode

_EXPORTS: dict[str, str] = {
    # Pi's names; "module:attribute" where this implementation names the same thing otherwise.
    "CONFIG_DIR_NAME": "pi_coding_agent.core.paths",
    "get_agent_dir": "pi_coding_agent.core.paths",
    "Args": "pi_coding_agent.app.cli",
    "parse_args": "pi_coding_agent.app.cli",
    "main": "pi_coding_agent.app.cli",
    "AgentSession": "pi_coding_agent.runtime.agent_session",
    "AgentSessionRuntime": "pi_coding_agent.runtime.agent_session",
    "ContextUsage": "pi_coding_agent.runtime.agent_session",
    "ModelCycleResult": "pi_coding_agent.runtime.agent_session",
    "SessionInfoChangedEvent": "pi_coding_agent.runtime.agent_session",
    "SessionStats": "pi_coding_agent.runtime.agent_session",
    "AgentSettledEvent": "pi_coding_agent.runtime.agent_session",
    "AgentSessionEvent": "pi_coding_agent.runtime.agent_session",
    "AgentSessionEventListener": "pi_coding_agent.runtime.agent_session",
    "CreateAgentSessionOptions": "pi_coding_agent.runtime.agent_session",
    "CreateAgentSessionResult": "pi_coding_agent.runtime.agent_session",
    "create_agent_session": "pi_coding_agent.runtime.agent_session",
    "CompactionResult": "pi_coding_agent.core.compaction",
    "CutPointResult": "pi_coding_agent.core.compaction",
    "FileOperations": "pi_coding_agent.core.compaction",
    "calculate_context_tokens": "pi_coding_agent.core.compaction",
    "collect_entries_for_branch_summary": "pi_coding_agent.core.compaction",
    "generate_branch_summary": "pi_coding_agent.core.compaction",
    "prepare_branch_entries": "pi_coding_agent.core.compaction",
    "compact": "pi_coding_agent.core.compaction",
    "estimate_tokens": "pi_coding_agent.core.compaction",
    "find_cut_point": "pi_coding_agent.core.compaction",
    "serialize_conversation": "pi_coding_agent.core.compaction",
    "should_compact": "pi_coding_agent.core.compaction",
    "convert_to_llm": "pi_coding_agent.core.messages",
    "ResolveCliModelResult": "pi_coding_agent.core.model_registry",
    "ScopedModel": "pi_coding_agent.core.model_registry",
    "resolve_cli_model": "pi_coding_agent.core.model_registry",
    "load_project_context_files": "pi_coding_agent.customize.system_prompt",
    "BranchSummaryEntry": "pi_coding_agent.core.session",
    "CURRENT_SESSION_VERSION": "pi_coding_agent.core.session",
    "CompactionEntry": "pi_coding_agent.core.session",
    "CustomEntry": "pi_coding_agent.core.session",
    "CustomMessageEntry": "pi_coding_agent.core.session",
    "ModelChangeEntry": "pi_coding_agent.core.session",
    "SessionContext": "pi_coding_agent.core.session",
    "SessionEntry": "pi_coding_agent.core.session",
    "SessionHeader": "pi_coding_agent.core.session",
    "SessionInfo": "pi_coding_agent.core.session",
    "SessionInfoEntry": "pi_coding_agent.core.session",
    "SessionManager": "pi_coding_agent.core.session",
    "SessionMessageEntry": "pi_coding_agent.core.session",
    "SessionTreeNode": "pi_coding_agent.core.session",
    "ThinkingLevelChangeEntry": "pi_coding_agent.core.session",
    "build_context_entries": "pi_coding_agent.core.session",
    "build_session_context": "pi_coding_agent.core.session",
    "migrate_session_entries": "pi_coding_agent.core.session",
    "session_entry_to_context_messages": "pi_coding_agent.core.session",
    "CompactionSettings": "pi_coding_agent.core.settings",
    "RetrySettings": "pi_coding_agent.core.settings",
    "BashOperations": "pi_coding_agent.core.tools",
    "DEFAULT_MAX_BYTES": "pi_coding_agent.core.tools",
    "DEFAULT_MAX_LINES": "pi_coding_agent.core.tools",
    "ToolsOptions": "pi_coding_agent.core.tools",
    "TruncationResult": "pi_coding_agent.core.tools",
    "format_size": "pi_coding_agent.core.tools",
    "truncate_head": "pi_coding_agent.core.tools",
    "truncate_line": "pi_coding_agent.core.tools",
    "truncate_tail": "pi_coding_agent.core.tools",
    "detect_supported_image_mime_type_from_file": "pi_coding_agent.core.tools",
    "run_print_mode": "pi_coding_agent.app.print_mode",
    "RpcClient": "pi_coding_agent.app.rpc",
    "run_rpc_mode": "pi_coding_agent.app.rpc",
    "Skill": "pi_coding_agent.customize.skills",
    "format_skills_for_prompt": "pi_coding_agent.customize.skills",
    "load_skills": "pi_coding_agent.customize.skills",
    "PromptTemplate": "pi_coding_agent.customize.prompt_templates",
    "ResourceDiagnostic": "pi_coding_agent.customize.resources",
    "parse_frontmatter": "pi_coding_agent.customize.resources",
    "strip_frontmatter": "pi_coding_agent.customize.resources",
    "PackageManager": "pi_coding_agent.customize.packages",
    "ResolvedResource": "pi_coding_agent.customize.packages",
    "Theme": "pi_coding_agent.customize.themes",
    "DynamicBorder": "pi_tui",
    "TuiMode": "pi_tui",
    # The equivalents of Pi's ``ModelRegistry`` and ``SettingsManager``, whose APIs differ.
    "ModelCatalog": "pi_coding_agent.core.model_registry",
    "Settings": "pi_coding_agent.core.settings",
}


def __getattr__(name: str) -> Any:
    """Load an exported name on first use (the loader itself only then: it imports pi_ai)."""
    from pi_ai import lazy_attributes

    get, _ = lazy_attributes(globals(), _EXPORTS)
    return get(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "CONFIG_DIR_NAME",
    "CURRENT_SESSION_VERSION",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "PI_COMPAT_VERSION",
    "VERSION",
    "AgentSession",
    "AgentSessionEvent",
    "AgentSessionEventListener",
    "AgentSessionRuntime",
    "AgentSettledEvent",
    "Args",
    "BashOperations",
    "BranchSummaryEntry",
    "CompactionEntry",
    "CompactionResult",
    "CompactionSettings",
    "ContextUsage",
    "CreateAgentSessionOptions",
    "CreateAgentSessionResult",
    "CustomEntry",
    "CustomMessageEntry",
    "CutPointResult",
    "DynamicBorder",
    "FileOperations",
    "ModelCatalog",
    "ModelChangeEntry",
    "ModelCycleResult",
    "PackageManager",
    "PromptTemplate",
    "ResolveCliModelResult",
    "ResolvedResource",
    "ResourceDiagnostic",
    "RetrySettings",
    "RpcClient",
    "ScopedModel",
    "SessionContext",
    "SessionEntry",
    "SessionHeader",
    "SessionInfo",
    "SessionInfoChangedEvent",
    "SessionInfoEntry",
    "SessionManager",
    "SessionMessageEntry",
    "SessionStats",
    "SessionTreeNode",
    "Settings",
    "Skill",
    "Theme",
    "ThinkingLevelChangeEntry",
    "ToolsOptions",
    "TruncationResult",
    "TuiMode",
    "build_context_entries",
    "build_session_context",
    "calculate_context_tokens",
    "collect_entries_for_branch_summary",
    "compact",
    "convert_to_llm",
    "create_agent_session",
    "detect_supported_image_mime_type_from_file",
    "estimate_tokens",
    "find_cut_point",
    "format_size",
    "format_skills_for_prompt",
    "generate_branch_summary",
    "get_agent_dir",
    "load_project_context_files",
    "load_skills",
    "main",
    "migrate_session_entries",
    "parse_args",
    "parse_frontmatter",
    "prepare_branch_entries",
    "resolve_cli_model",
    "run_print_mode",
    "run_rpc_mode",
    "serialize_conversation",
    "session_entry_to_context_messages",
    "should_compact",
    "strip_frontmatter",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
