"""Skills: folders of instructions the model loads when a task matches (Agent Skills format).

``load_skills`` reads them with Pi's validation, ``format_skills_for_prompt`` gives the
``<available_skills>`` section of the system prompt, ``expand_skill_command`` turns
``/skill:name args`` into the skill's instructions, ``skill_commands`` lists the commands
for completion.
"""

from pi_coding_agent.customize.skills._commands import SkillCommand, skill_commands
from pi_coding_agent.customize.skills._expand import (
    SKILL_COMMAND_PREFIX,
    SkillExpansionError,
    expand_skill_command,
    skill_block,
)
from pi_coding_agent.customize.skills._load import (
    MAX_DESCRIPTION_LENGTH,
    MAX_NAME_LENGTH,
    Skill,
    SkillSet,
    load_skill_file,
    load_skills,
    validate_description,
    validate_name,
)
from pi_coding_agent.customize.skills._prompt import format_skills_for_prompt, skill_read_tool

__all__ = [
    "MAX_DESCRIPTION_LENGTH",
    "MAX_NAME_LENGTH",
    "SKILL_COMMAND_PREFIX",
    "Skill",
    "SkillCommand",
    "SkillExpansionError",
    "SkillSet",
    "expand_skill_command",
    "format_skills_for_prompt",
    "load_skill_file",
    "load_skills",
    "skill_block",
    "skill_commands",
    "skill_read_tool",
    "validate_description",
    "validate_name",
]
