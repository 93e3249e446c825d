"""Where the user's own prompt texts come from (flags or ``SYSTEM.md`` files).

``--system-prompt X`` and each ``--append-system-prompt X``: when ``X`` names an existing
file its content is used, otherwise ``X`` itself. Without the flag, ``.pi/SYSTEM.md`` of a
trusted project, else ``<agent dir>/SYSTEM.md`` (``APPEND_SYSTEM.md`` likewise).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_coding_agent.core.paths import CONFIG_DIR_NAME


def prompt_text(value: str, description: str) -> str:
    """The file's content when ``value`` is an existing path, else ``value``."""
    if os.path.exists(value):
        try:
            with open(value, encoding="utf-8-sig") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError) as error:
            print(f"Warning: Could not read {description} file {value}: {error}", file=sys.stderr)
    return value


def _discover(name: str, cwd: str | Path, agent_dir: str | Path, project_trusted: bool) -> str | None:
    project = os.path.join(cwd, CONFIG_DIR_NAME, name)
    if project_trusted and os.path.exists(project):
        return project
    user = os.path.join(agent_dir, name)
    return user if os.path.exists(user) else None


@dataclass(frozen=True)
class PromptSources:
    custom: str | None
    append: list[str]
    paths: list[str] = field(default_factory=list)
    """The files among the sources (the system prompt's, then the appended ones), absolute:
    what the interactive header lists under ``[Context]`` before the context files."""


def resolve_prompt_sources(
    *,
    cwd: str | Path,
    agent_dir: str | Path,
    project_trusted: bool,
    system_prompt: str | None,
    append_system_prompt: Sequence[str] | None,
) -> PromptSources:
    source = (
        system_prompt
        if system_prompt is not None
        else _discover("SYSTEM.md", cwd, agent_dir, project_trusted)
    )
    custom = prompt_text(source, "system prompt") if source else None
    if append_system_prompt:
        appends = list(append_system_prompt)
    else:
        found = _discover("APPEND_SYSTEM.md", cwd, agent_dir, project_trusted)
        appends = [found] if found else []
    files = [os.path.abspath(item) for item in (source, *appends) if item and os.path.exists(item)]
    return PromptSources(
        custom or None, [prompt_text(item, "append system prompt") for item in appends], files
    )
