"""The ``<available_skills>`` section of the system prompt (Pi's text, byte for byte)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pi_coding_agent.customize.skills._load import Skill


def _escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def skill_read_tool(tools: Sequence[str]) -> Literal["read", "bash"] | None:
    """The tool the model can load a skill's file with (``read``, else ``bash``), if any."""
    if "read" in tools:
        return "read"
    if "bash" in tools:
        return "bash"
    return None


def format_skills_for_prompt(skills: Sequence[Skill], read_tool: Literal["read", "bash"] = "read") -> str:
    """The section appended to the system prompt; ``""`` when no skill may be invoked by the model."""
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    how = (
        "Use the read tool to load a skill's file when the task matches its description."
        if read_tool == "read"
        else "Use bash to load a skill's file when the task matches its description."
    )
    lines = [
        "\n\nThe following skills provide specialized instructions for specific tasks.",
        how,
        "When a skill file references a relative path, resolve it against the skill directory "
        "(parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{_escape_xml(skill.name)}</name>",
            f"    <description>{_escape_xml(skill.description)}</description>",
            f"    <location>{_escape_xml(skill.file_path)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)
