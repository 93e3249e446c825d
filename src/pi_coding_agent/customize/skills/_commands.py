"""Skills as slash commands, for completion in the interactive editor and RPC ``get_commands``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_coding_agent.customize.skills._load import Skill


@dataclass(frozen=True)
class SkillCommand:
    name: str
    """``skill:<name>`` (typed as ``/skill:<name>``)."""
    description: str
    file_path: str


def skill_commands(skills: Sequence[Skill], *, enabled: bool = True) -> list[SkillCommand]:
    """One command per skill, in load order; none when ``enableSkillCommands`` is off."""
    if not enabled:
        return []
    return [SkillCommand(f"skill:{skill.name}", skill.description, skill.file_path) for skill in skills]
