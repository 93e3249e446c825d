"""Prompt templates: Markdown files that ``/name args`` expands into a full prompt."""

from pi_coding_agent.customize.prompt_templates._commands import TemplateCommand, template_commands
from pi_coding_agent.customize.prompt_templates._expand import (
    expand_prompt_template,
    parse_command_args,
    substitute_args,
)
from pi_coding_agent.customize.prompt_templates._load import (
    PromptTemplate,
    PromptTemplateSet,
    load_prompt_templates,
    load_template_file,
)

__all__ = [
    "PromptTemplate",
    "PromptTemplateSet",
    "TemplateCommand",
    "expand_prompt_template",
    "load_prompt_templates",
    "load_template_file",
    "parse_command_args",
    "substitute_args",
    "template_commands",
]
