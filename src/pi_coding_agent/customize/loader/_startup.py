"""What the ``pi`` command loads at start-up, and the warnings it prints about it.

Kept apart from the CLI module so the run only calls ``load_startup_resources``.
Packages named in settings but not installed are installed first, as Pi does, unless
``PI_OFFLINE`` is set; a failure is a warning and the run goes on without them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pi_coding_agent.core.paths import resolve_path
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.customize.loader._load import LoadedResources, ResourceOptions, load_resources
from pi_coding_agent.customize.packages import InstallMissing, Scope, Source, is_local_path


def offline() -> bool:
    return os.environ.get("PI_OFFLINE", "").lower() in ("1", "true", "yes")


def _installer(cwd: str, agent_dir: Path, settings: Settings, warnings: list[str]) -> InstallMissing:
    def install(source: str, parsed: Source, scope: Scope) -> bool:
        from pi_coding_agent.customize.packages import PackageError, PackageManager

        print(f"Installing {source}...", file=sys.stderr)
        manager = PackageManager(cwd, agent_dir, project_trusted=settings.project_trusted)
        try:
            manager.install_parsed(source, parsed, scope)
        except PackageError as error:
            warnings.append(f"could not install {source}: {error}")
            return False
        return True

    return install


def load_startup_resources(
    *,
    cwd: str,
    session_cwd: str,
    agent_dir: Path,
    settings: Settings,
    skill_paths: Sequence[str] | None,
    prompt_template_paths: Sequence[str] | None,
    theme_paths: Sequence[str] | None,
    no_skills: bool,
    no_prompt_templates: bool,
    no_themes: bool,
    no_extensions: bool,
    extension_sources: Sequence[str] | None = None,
) -> tuple[LoadedResources, list[str]]:
    """The run's resources and the warnings to show (one line each)."""
    warnings: list[str] = []
    options = ResourceOptions(
        cwd=session_cwd,
        agent_dir=agent_dir,
        settings=settings,
        skill_paths=[resolve_path(p.strip(), cwd) for p in skill_paths or ()],
        prompt_template_paths=[resolve_path(p.strip(), cwd) for p in prompt_template_paths or ()],
        theme_paths=[resolve_path(p.strip(), cwd) for p in theme_paths or ()],
        no_skills=no_skills,
        no_prompt_templates=no_prompt_templates,
        no_themes=no_themes,
        no_extensions=no_extensions,
        extension_sources=[
            resolve_path(s.strip(), cwd) if is_local_path(s) else s for s in extension_sources or ()
        ],
        install_missing=None if offline() else _installer(session_cwd, agent_dir, settings, warnings),
    )
    loaded = load_resources(options)
    return loaded, warnings + [str(d) for d in loaded.diagnostics]
