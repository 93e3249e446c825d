"""What the startup header lists beyond the session's commands and extensions (Pi's
``showLoadedResources``): the context files (``[Context]``), where each skill and prompt
template came from (for ``[Skills]``/``[Prompts]`` grouped by scope), and the skill and
prompt diagnostics (``[Skill conflicts]``, ``[Prompt conflicts]``) and missing theme paths, which in a terminal
are shown there instead of as warnings before the UI starts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pi_coding_agent.app.interactive._extension_sources import Source, home_short, labelled_path, source_of

if TYPE_CHECKING:
    from collections.abc import Iterable

    from pi_coding_agent.customize.packages import ResolvedResource
    from pi_coding_agent.customize.resources import ResourceDiagnostic
    from pi_coding_agent.customize.themes import Theme


@dataclass
class StartupResources:
    context_paths: list[str] = field(default_factory=list)
    """The system prompt file, the appended ones, then the context files (``AGENTS.md``), absolute."""
    origins: dict[str, Source] = field(default_factory=dict)
    """Each loaded skill and prompt template file: ``(source, scope, base folder)``."""
    skill_diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    prompt_diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    theme_diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    """Theme paths that do not exist (the collisions are found as the UI loads its themes)."""

    def replace_with(self, other: StartupResources) -> None:
        """Take ``other``'s listing in place (``/reload``), for the header that holds this one."""
        self.context_paths, self.origins = other.context_paths, other.origins
        self.skill_diagnostics, self.prompt_diagnostics = other.skill_diagnostics, other.prompt_diagnostics
        self.theme_diagnostics = other.theme_diagnostics


def resource_origins(
    files: Iterable[str], resolved: Iterable[ResolvedResource], cli_paths: Iterable[str]
) -> dict[str, Source]:
    """Each loaded file's origin: that of the resolved entry (file or folder) it came from,
    ``cli``/``temporary`` for a ``--skill``/``--prompt-template`` path."""
    found: dict[str, Source] = {os.path.abspath(p): ("cli", "temporary", None) for p in cli_paths}
    for resource in resolved:
        origin = resource.origin
        found[os.path.abspath(resource.path)] = (origin.source, origin.scope, origin.base_dir)
    origins = {}
    for path in files:
        info = source_of(path, found)
        if info is not None:
            origins[path] = info
    return origins


def context_label(path: str, cwd: str) -> str:
    """Relative to the working folder when inside it, else the path (``~`` for home)."""
    cwd = os.path.abspath(cwd)
    absolute = os.path.abspath(os.path.join(cwd, path))
    if absolute == cwd or absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        return os.path.relpath(absolute, cwd)
    return home_short(absolute)


def diagnostic_lines(
    diagnostics: list[ResourceDiagnostic], sources: dict[str, Source], theme: Theme
) -> list[str]:
    """Collisions grouped by name (the file kept, then each one skipped), then the other
    problems (the file, then the message), as Pi lists them under a ``[... conflicts]`` heading."""
    collisions: dict[str, list[ResourceDiagnostic]] = {}
    others: list[ResourceDiagnostic] = []
    for diagnostic in diagnostics:
        if diagnostic.kind == "collision" and diagnostic.collision is not None:
            collisions.setdefault(diagnostic.collision.name, []).append(diagnostic)
        else:
            others.append(diagnostic)
    lines: list[str] = []
    for name, group in collisions.items():
        winner = group[0].collision.winner_path  # type: ignore[union-attr]
        lines.append(theme.fg("warning", f'  "{name}" collision:'))
        lines.append(theme.fg("dim", f"    {theme.fg('success', '✓')} {labelled_path(winner, sources)}"))
        for item in group:
            loser = labelled_path(item.collision.loser_path, sources)  # type: ignore[union-attr]
            lines.append(theme.fg("dim", f"    {theme.fg('warning', '✗')} {loser} (skipped)"))
    for item in others:
        color = "error" if item.kind == "error" else "warning"
        if item.path:
            lines.append(theme.fg(color, f"  {labelled_path(item.path, sources)}"))
            lines.append(theme.fg(color, f"    {item.message}"))
        else:
            lines.append(theme.fg(color, f"  {item.message}"))
    return lines
