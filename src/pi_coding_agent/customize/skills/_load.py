"""Loading skills (``SKILL.md`` folders and skill ``.md`` files) with Pi's validation.

A ``SKILL.md`` is always meant as a skill: a read or YAML error, or a missing description,
is a warning and the skill is not loaded. Another ``.md`` file is a skill only when its
frontmatter has a non-empty ``description``; otherwise it is passed over silently. Names
and descriptions that break the Agent Skills rules are warnings; the skill still loads.
The name defaults to the folder's name. Two skills with one name: the first wins, the
other is reported as a collision; the same file reached twice (a link) is loaded once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_ai.js_json import utf16_len
from pi_coding_agent.core.paths import resolve_path
from pi_coding_agent.customize.resources import (
    Collision,
    FrontmatterError,
    ResourceDiagnostic,
    collect_skill_files,
    js_trim,
    parse_frontmatter,
    read_text,
)

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
_NAME = re.compile(r"[a-z0-9-]+")


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    file_path: str
    base_dir: str
    """The skill's folder: what relative paths in its file are relative to."""
    disable_model_invocation: bool = False
    """Kept out of the system prompt; only ``/skill:name`` brings it in."""


@dataclass
class SkillSet:
    skills: list[Skill] = field(default_factory=list)
    diagnostics: list[ResourceDiagnostic] = field(default_factory=list)

    def find(self, name: str) -> Skill | None:
        return next((skill for skill in self.skills if skill.name == name), None)


def validate_name(name: str) -> list[str]:
    errors: list[str] = []
    if utf16_len(name) > MAX_NAME_LENGTH:
        errors.append(f"name exceeds {MAX_NAME_LENGTH} characters ({utf16_len(name)})")
    if not _NAME.fullmatch(name):
        errors.append("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        errors.append("name must not start or end with a hyphen")
    if "--" in name:
        errors.append("name must not contain consecutive hyphens")
    return errors


def validate_description(description: object) -> list[str]:
    if not isinstance(description, str) or js_trim(description) == "":
        return ["description is required"]
    if utf16_len(description) > MAX_DESCRIPTION_LENGTH:
        return [f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({utf16_len(description)})"]
    return []


def load_skill_file(path: str) -> tuple[Skill | None, list[ResourceDiagnostic]]:
    declared = os.path.basename(path) == "SKILL.md"
    try:
        content = read_text(path)
    except OSError as error:
        return None, [ResourceDiagnostic("warning", f"cannot read the file: {error.strerror or error}", path)]
    try:
        fields = parse_frontmatter(content).fields
    except FrontmatterError as error:
        return None, ([ResourceDiagnostic("warning", str(error), path)] if declared else [])
    description = fields.get("description")
    has_description = isinstance(description, str) and js_trim(description) != ""
    if not declared and not has_description:
        return None, []
    folder = os.path.dirname(path)
    declared_name = fields.get("name")
    name = declared_name if isinstance(declared_name, str) and declared_name else os.path.basename(folder)
    messages = validate_description(description) + validate_name(name)
    diagnostics = [ResourceDiagnostic("warning", message, path) for message in messages]
    if not has_description:
        return None, diagnostics
    assert isinstance(description, str)
    skill = Skill(name, description, path, folder, fields.get("disable-model-invocation") is True)
    return skill, diagnostics


class _Collector:
    def __init__(self) -> None:
        self.by_name: dict[str, Skill] = {}
        self.real_paths: set[str] = set()
        self.diagnostics: list[ResourceDiagnostic] = []
        self.collisions: list[ResourceDiagnostic] = []

    def add(self, skill: Skill) -> None:
        real = os.path.realpath(skill.file_path)
        if real in self.real_paths:
            return
        existing = self.by_name.get(skill.name)
        if existing is not None:
            collision = Collision("skill", skill.name, existing.file_path, skill.file_path)
            self.collisions.append(
                ResourceDiagnostic("collision", f'name "{skill.name}" collision', skill.file_path, collision)
            )
            return
        self.by_name[skill.name] = skill
        self.real_paths.add(real)

    def add_file(self, path: str) -> None:
        skill, diagnostics = load_skill_file(path)
        self.diagnostics.extend(diagnostics)
        if skill is not None:
            self.add(skill)


def load_skills(paths: Sequence[str], cwd: str) -> SkillSet:
    """The skills of ``paths`` (files or folders, relative to ``cwd``), in order."""
    collector = _Collector()
    for raw in paths:
        path = resolve_path(raw.strip(), cwd)
        if not os.path.exists(path):
            collector.diagnostics.append(ResourceDiagnostic("warning", "skill path does not exist", path))
        elif os.path.isdir(path):
            for file in collect_skill_files(path, "pi"):
                collector.add_file(file)
        elif os.path.isfile(path) and path.endswith(".md"):
            collector.add_file(path)
        else:
            collector.diagnostics.append(
                ResourceDiagnostic("warning", "skill path is not a markdown file", path)
            )
    return SkillSet(list(collector.by_name.values()), collector.diagnostics + collector.collisions)
