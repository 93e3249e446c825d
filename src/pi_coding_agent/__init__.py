"""pi_coding_agent: the coding agent product (sessions, tools, run modes, the ``pi`` CLI).

The root offers what Pi's ``@earendil-works/pi-coding-agent`` index exports, in snake_case,
for the parts built here (``docs/sdk.md`` lists the mapping and what is not built). Names are
loaded on first access (PEP 562): ``import pi_coding_agent`` loads this module alone, so
``pi --version`` pays nothing for them, and ``from pi_coding_agent import SessionManager``
loads the session package and what it needs, nothing else.
"""

from __future__ import annotations

__version__ = "0.1.0"
PI_COMPAT_VERSION = "1.6.0"
"""The Pi release whose files and wire protocol this implementation follows; ``pi --version``
prints it, so clients that require a minimum Pi version accept this one."""
VERSION = __version__

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing would cost ``pi --version``
if TYPE_CHECKING:
    from typing import Any

    from pi_coding_agent.app.cli import Args as Args
    from pi_coding_agent.app.cli import main as main
    from pi_coding_agent.app.cli import parse_args as parse_args
    from pi_coding_agent.app.print_mode import run_print_mode as run_print_mode
    from pi_coding_agent.app.rpc import RpcClient as RpcClient
    from pi_coding_agent.app.rpc import run_rpc_mode as run_rpc_mode
    from pi_coding_agent.core.compaction import CompactionResult as CompactionResult
    from pi_coding_agent.core.compaction import CutPointResult as CutPointResult
    from pi_coding_agent.core.compaction import FileOperations as FileOperations
    from pi_coding_agent.core.compaction import calculate_context_tokens as calculate_context_tokens
    from pi_coding_agent.core.compaction import (
        collect_entries_for_branch_summary as collect_entries_for_branch_summary,
    )
    from pi_coding_agent.core.compaction import compact as compact
    from pi_coding_agent.core.compaction import estimate_tokens as estimate_tokens
    from pi_coding_agent.core.compaction import find_cut_point as find_cut_point
    from pi_coding_agent.core.compaction import generate_branch_summary as generate_branch_summary
    from pi_coding_agent.core.compaction import prepare_branch_entries as prepare_branch_entries
    from pi_coding_agent.core.compaction import serialize_conversation as serialize_conversation
    from pi_coding_agent.core.compaction import should_compact as should_compact
    from pi_coding_agent.core.messages import convert_to_llm as convert_to_llm

    # ModelCatalog and Settings: the equivalents of Pi's ModelRegistry and SettingsManager,
    # whose APIs differ (docs/sdk.md).
    from pi_coding_agent.core.model_registry import ModelCatalog as ModelCatalog
    from pi_coding_agent.core.model_registry import ResolveCliModelResult as ResolveCliModelResult
    from pi_coding_agent.core.model_registry import ScopedModel as ScopedModel
    from pi_coding_agent.core.model_registry import resolve_cli_model as resolve_cli_model
    from pi_coding_agent.core.paths import CONFIG_DIR_NAME as CONFIG_DIR_NAME
    from pi_coding_agent.core.paths import get_agent_dir as get_agent_dir
    from pi_coding_agent.core.session import CURRENT_SESSION_VERSION as CURRENT_SESSION_VERSION
    from pi_coding_agent.core.session import BranchSummaryEntry as BranchSummaryEntry
    from pi_coding_agent.core.session import CompactionEntry as CompactionEntry
    from pi_coding_agent.core.session import CustomEntry as CustomEntry
    from pi_coding_agent.core.session import CustomMessageEntry as CustomMessageEntry
    from pi_coding_agent.core.session import ModelChangeEntry as ModelChangeEntry
    from pi_coding_agent.core.session import SessionContext as SessionContext
    from pi_coding_agent.core.session import SessionEntry as SessionEntry
    from pi_coding_agent.core.session import SessionHeader as SessionHeader
    from pi_coding_agent.core.session import SessionInfo as SessionInfo
    from pi_coding_agent.core.session import SessionInfoEntry as SessionInfoEntry
    from pi_coding_agent.core.session import SessionManager as SessionManager
    from pi_coding_agent.core.session import SessionMessageEntry as SessionMessageEntry
    from pi_coding_agent.core.session import SessionTreeNode as SessionTreeNode
    from pi_coding_agent.core.session import ThinkingLevelChangeEntry as ThinkingLevelChangeEntry
    from pi_coding_agent.core.session import build_context_entries as build_context_entries
    from pi_coding_agent.core.session import build_session_context as build_session_context
    from pi_coding_agent.core.session import migrate_session_entries as migrate_session_entries
    from pi_coding_agent.core.session import (
        session_entry_to_context_messages as session_entry_to_context_messages,
    )
    from pi_coding_agent.core.settings import CompactionSettings as CompactionSettings
    from pi_coding_agent.core.settings import RetrySettings as RetrySettings
    from pi_coding_agent.core.settings import Settings as Settings
    from pi_coding_agent.core.tools import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from pi_coding_agent.core.tools import DEFAULT_MAX_LINES as DEFAULT_MAX_LINES
    from pi_coding_agent.core.tools import BashOperations as BashOperations
    from pi_coding_agent.core.tools import ToolsOptions as ToolsOptions
    from pi_coding_agent.core.tools import TruncationResult as TruncationResult
    from pi_coding_agent.core.tools import (
        detect_supported_image_mime_type_from_file as detect_supported_image_mime_type_from_file,
    )
    from pi_coding_agent.core.tools import format_size as format_size
    from pi_coding_agent.core.tools import truncate_head as truncate_head
    from pi_coding_agent.core.tools import truncate_line as truncate_line
    from pi_coding_agent.core.tools import truncate_tail as truncate_tail
    from pi_coding_agent.customize.packages import PackageManager as PackageManager
    from pi_coding_agent.customize.packages import ResolvedResource as ResolvedResource
    from pi_coding_agent.customize.prompt_templates import PromptTemplate as PromptTemplate
    from pi_coding_agent.customize.resources import ResourceDiagnostic as ResourceDiagnostic
    from pi_coding_agent.customize.resources import parse_frontmatter as parse_frontmatter
    from pi_coding_agent.customize.resources import strip_frontmatter as strip_frontmatter
    from pi_coding_agent.customize.skills import Skill as Skill
    from pi_coding_agent.customize.skills import format_skills_for_prompt as format_skills_for_prompt
    from pi_coding_agent.customize.skills import load_skills as load_skills
    from pi_coding_agent.customize.system_prompt import (
        load_project_context_files as load_project_context_files,
    )
    from pi_coding_agent.customize.themes import Theme as Theme
    from pi_coding_agent.runtime.agent_session import AgentSession as AgentSession
    from pi_coding_agent.runtime.agent_session import AgentSessionEvent as AgentSessionEvent
    from pi_coding_agent.runtime.agent_session import AgentSessionEventListener as AgentSessionEventListener
    from pi_coding_agent.runtime.agent_session import AgentSessionRuntime as AgentSessionRuntime
    from pi_coding_agent.runtime.agent_session import AgentSettledEvent as AgentSettledEvent
    from pi_coding_agent.runtime.agent_session import ContextUsage as ContextUsage
    from pi_coding_agent.runtime.agent_session import CreateAgentSessionOptions as CreateAgentSessionOptions
    from pi_coding_agent.runtime.agent_session import CreateAgentSessionResult as CreateAgentSessionResult
    from pi_coding_agent.runtime.agent_session import ModelCycleResult as ModelCycleResult
    from pi_coding_agent.runtime.agent_session import SessionInfoChangedEvent as SessionInfoChangedEvent
    from pi_coding_agent.runtime.agent_session import SessionStats as SessionStats
    from pi_coding_agent.runtime.agent_session import create_agent_session as create_agent_session
    from pi_tui import DynamicBorder as DynamicBorder
    from pi_tui import TuiMode as TuiMode


def __getattr__(name: str) -> Any:
    """Load an exported name on first use (pi_ai's loader, imported only then)."""
    _install_loader()
    return __getattr__(name)


def __dir__() -> list[str]:
    _install_loader()
    return __dir__()


def _install_loader() -> None:
    """Put pi_ai's loader in place of ``__getattr__`` and ``__dir__``, so it reads the
    declarations above once."""
    global __getattr__, __dir__
    from pi_ai import lazy_attributes

    __getattr__, __dir__ = lazy_attributes(globals())
