"""Shared pieces of resource loading (skills, prompt templates, themes, extensions, packages).

Frontmatter as Pi reads it, folder walks in Pi's order with ignore files, manifests
(``[tool.pi]`` in ``pyproject.toml`` or Pi's ``package.json``), resource filters, and the
diagnostics reported about all of them.
"""

from pi_coding_agent.customize.resources._collect import (
    EXTENSION_SUFFIXES,
    SkillWalkMode,
    collect_extension_files,
    collect_files,
    collect_skill_files,
    collect_top_files,
    expand_manifest_glob,
    extension_entry_points,
)
from pi_coding_agent.customize.resources._diagnostics import (
    Collision,
    DiagnosticKind,
    ResourceDiagnostic,
    ResourceKind,
)
from pi_coding_agent.customize.resources._errors import FrontmatterError
from pi_coding_agent.customize.resources._frontmatter import (
    Frontmatter,
    parse_frontmatter,
    split_frontmatter,
    strip_frontmatter,
)
from pi_coding_agent.customize.resources._manifest import (
    RESOURCE_TYPES,
    Manifest,
    ResourceType,
    read_manifest,
)
from pi_coding_agent.customize.resources._patterns import (
    apply_patterns,
    delta_patterns,
    enabled_by_overrides,
    glob_match,
    has_glob,
    is_override,
    is_pattern,
    strip_override,
)
from pi_coding_agent.customize.resources._text import JS_WHITESPACE_SET, js_trim, read_text

__all__ = [
    "EXTENSION_SUFFIXES",
    "JS_WHITESPACE_SET",
    "RESOURCE_TYPES",
    "Collision",
    "DiagnosticKind",
    "Frontmatter",
    "FrontmatterError",
    "Manifest",
    "ResourceDiagnostic",
    "ResourceKind",
    "ResourceType",
    "SkillWalkMode",
    "apply_patterns",
    "collect_extension_files",
    "collect_files",
    "collect_skill_files",
    "collect_top_files",
    "delta_patterns",
    "enabled_by_overrides",
    "expand_manifest_glob",
    "extension_entry_points",
    "glob_match",
    "has_glob",
    "is_override",
    "is_pattern",
    "js_trim",
    "parse_frontmatter",
    "read_manifest",
    "read_text",
    "split_frontmatter",
    "strip_frontmatter",
    "strip_override",
]
