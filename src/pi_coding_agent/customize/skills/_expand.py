"""``/skill:name [args]`` in a prompt: the skill's instructions take the command's place.

As in Pi: the name runs up to the first space; an unknown name leaves the text alone; the
file is read again at that moment and its body (frontmatter removed, trimmed) is wrapped
in ``<skill name=... location=...>``, with the skill's folder named for relative
references; the arguments (trimmed) follow after a blank line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pi_coding_agent.customize.resources import FrontmatterError, js_trim, read_text, strip_frontmatter
from pi_coding_agent.customize.skills._load import Skill

SKILL_COMMAND_PREFIX = "/skill:"


class SkillExpansionError(Exception):
    """The skill's file could not be read when its command was used."""

    def __init__(self, skill: Skill, reason: str) -> None:
        super().__init__(f"{skill.file_path}: {reason}")
        self.skill = skill


def skill_block(skill: Skill, body: str, args: str = "") -> str:
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block


def expand_skill_command(
    text: str, skills: Sequence[Skill], on_error: Callable[[SkillExpansionError], None] | None = None
) -> str:
    """``text`` with a leading skill command expanded; unchanged when there is none.

    A skill whose file cannot be read any more is reported to ``on_error`` and the text is
    left as typed.
    """
    if not text.startswith(SKILL_COMMAND_PREFIX):
        return text
    space = text.find(" ")
    name = text[len(SKILL_COMMAND_PREFIX) :] if space == -1 else text[len(SKILL_COMMAND_PREFIX) : space]
    args = "" if space == -1 else js_trim(text[space + 1 :])
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return text
    try:
        body = js_trim(strip_frontmatter(read_text(skill.file_path)))
    except (OSError, FrontmatterError) as error:
        if on_error is not None:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            on_error(SkillExpansionError(skill, reason))
        return text
    return skill_block(skill, body, args)
