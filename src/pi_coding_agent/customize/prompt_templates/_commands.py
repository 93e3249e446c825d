"""Prompt templates as slash commands, for completion in the editor and RPC ``get_commands``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_coding_agent.customize.prompt_templates._load import PromptTemplate


@dataclass(frozen=True)
class TemplateCommand:
    name: str
    description: str
    argument_hint: str | None
    file_path: str


def template_commands(templates: Sequence[PromptTemplate]) -> list[TemplateCommand]:
    return [TemplateCommand(t.name, t.description, t.argument_hint, t.file_path) for t in templates]
