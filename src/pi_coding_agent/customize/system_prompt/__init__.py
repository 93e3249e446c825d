"""The system prompt of the coding agent and the files that feed it."""

from pi_coding_agent.customize.system_prompt._build import (
    TOOL_SUMMARIES,
    SystemPromptOptions,
    build_system_prompt,
    build_system_prompt_sections,
)
from pi_coding_agent.customize.system_prompt._context_files import (
    CONTEXT_FILE_NAMES,
    ContextFile,
    context_file_in,
    load_project_context_files,
)
from pi_coding_agent.customize.system_prompt._sources import (
    PromptSources,
    prompt_text,
    resolve_prompt_sources,
)

__all__ = [
    "CONTEXT_FILE_NAMES",
    "TOOL_SUMMARIES",
    "ContextFile",
    "PromptSources",
    "SystemPromptOptions",
    "build_system_prompt",
    "build_system_prompt_sections",
    "context_file_in",
    "load_project_context_files",
    "prompt_text",
    "resolve_prompt_sources",
]
