"""Loading prompt templates: ``<name>.md`` files whose body becomes the prompt for ``/name``.

As in Pi: the name is the file name without ``.md``; ``description`` comes from the
frontmatter, else the first non-empty body line (cut to 60 characters, ``...`` appended);
``argument-hint`` is kept for completion. A folder is read one level deep. Two templates
with one name: the first wins, the other is a collision. Pi drops a template whose
frontmatter is not valid YAML without a word; here that is a warning (the template is
still dropped).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_coding_agent.core.paths import resolve_path
from pi_coding_agent.customize.resources import (
    Collision,
    FrontmatterError,
    ResourceDiagnostic,
    collect_top_files,
    parse_frontmatter,
    read_text,
)

DESCRIPTION_LINE_LIMIT = 60


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    description: str
    content: str
    file_path: str
    argument_hint: str | None = None


@dataclass
class PromptTemplateSet:
    templates: list[PromptTemplate] = field(default_factory=list)
    diagnostics: list[ResourceDiagnostic] = field(default_factory=list)

    def find(self, name: str) -> PromptTemplate | None:
        return next((template for template in self.templates if template.name == name), None)


def _description(fields: dict[str, object], body: str) -> str:
    declared = fields.get("description")
    if declared and isinstance(declared, str):
        return declared
    first = next((line for line in body.split("\n") if line.strip()), None)
    if first is None:
        return ""
    # Pi cuts at 60 UTF-16 code units; for text without astral characters that is 60 characters.
    return first[:DESCRIPTION_LINE_LIMIT] + ("..." if len(first) > DESCRIPTION_LINE_LIMIT else "")


def load_template_file(path: str) -> tuple[PromptTemplate | None, ResourceDiagnostic | None]:
    try:
        parsed = parse_frontmatter(read_text(path))
    except OSError as error:
        return None, ResourceDiagnostic("warning", f"cannot read the file: {error.strerror or error}", path)
    except FrontmatterError as error:
        return None, ResourceDiagnostic("warning", str(error), path)
    name = os.path.basename(path).removesuffix(".md")
    hint = parsed.fields.get("argument-hint")
    template = PromptTemplate(
        name=name,
        description=_description(parsed.fields, parsed.body),
        content=parsed.body,
        file_path=path,
        argument_hint=hint if isinstance(hint, str) and hint else None,
    )
    return template, None


def load_prompt_templates(paths: Sequence[str], cwd: str) -> PromptTemplateSet:
    """The templates of ``paths`` (``.md`` files or folders, relative to ``cwd``), in order.

    Paths that do not exist are skipped here (the caller reports the ones the user named).
    """
    loaded: list[PromptTemplate] = []
    diagnostics: list[ResourceDiagnostic] = []
    for raw in paths:
        path = resolve_path(raw.strip(), cwd)
        files = (
            collect_top_files(path, ".md")
            if os.path.isdir(path)
            else [path]
            if path.endswith(".md") and os.path.isfile(path)
            else []
        )
        for file in files:
            template, problem = load_template_file(file)
            if problem is not None:
                diagnostics.append(problem)
            if template is not None:
                loaded.append(template)
    return _deduplicated(loaded, diagnostics)


def _deduplicated(
    templates: Sequence[PromptTemplate], diagnostics: list[ResourceDiagnostic]
) -> PromptTemplateSet:
    kept: dict[str, PromptTemplate] = {}
    collisions: list[ResourceDiagnostic] = []
    for template in templates:
        existing = kept.get(template.name)
        if existing is None:
            kept[template.name] = template
            continue
        collision = Collision("prompt", template.name, existing.file_path, template.file_path)
        collisions.append(
            ResourceDiagnostic(
                "collision", f'name "/{template.name}" collision', template.file_path, collision
            )
        )
    return PromptTemplateSet(list(kept.values()), diagnostics + collisions)
