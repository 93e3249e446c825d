"""What a run is set up from, read from the flags: trust and settings, the model catalog,
resources and extensions (with their flags), the model and the scoped models."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pi_coding_agent.app.cli._args import Args
from pi_coding_agent.app.cli._early_host import apply_host_library, stop_unused_early_host
from pi_coding_agent.app.cli._problems import CliError, Diagnostics

if TYPE_CHECKING:
    from pi_ai import Model
    from pi_coding_agent.core.model_registry import ModelCatalog, ScopedModel
    from pi_coding_agent.core.settings import Settings, TrustAsker, TrustChoice
    from pi_coding_agent.customize.extensions import ExtensionError, ExtensionRunner
    from pi_coding_agent.customize.loader import LoadedResources
    from pi_coding_agent.customize.packages import ResolvedResource
    from pi_coding_agent.runtime.agent_session import ResourceChoice


def check_unknown_flags(parsed: Args) -> None:
    """Options neither pi nor a loaded extension defines (checked once extensions loaded)."""
    if parsed.unknown_flags:
        names = ", ".join(f"--{name}" for name in parsed.unknown_flags)
        plural = "s" if len(parsed.unknown_flags) > 1 else ""
        raise CliError(f"Unknown option{plural}: {names} (see pi --help)")


def print_help(runner: ExtensionRunner | None, diagnostics: Diagnostics) -> int:
    from pi_coding_agent.app.cli._help import help_text

    diagnostics.flush()
    print(help_text(runner.flags() if runner is not None else []), end="")
    return 0


def settings_with_trust(
    parsed: Args, cwd: str, session_cwd: str, home: Path, diagnostics: Diagnostics, *, ask: TrustAsker | None
) -> tuple[Settings, ExtensionRunner | None]:
    """The run's settings. When a project needs a trust decision and no ``-a``/``-na`` gave
    one, the global and ``-e`` extensions load first and their ``project_trust`` handlers
    may decide (Pi's order); then a saved decision, ``defaultProjectTrust``, or ``ask`` (the
    startup prompt of the terminal UI). Project extensions load later, once trusted."""
    from pi_coding_agent.core.settings import Settings, needs_project_trust

    if parsed.project_trust_override is not None or (parsed.no_extensions and not parsed.extensions):
        return _runtime_settings(parsed, session_cwd, home, diagnostics, ask), None
    if not needs_project_trust(session_cwd):
        return _runtime_settings(parsed, session_cwd, home, diagnostics, ask), None
    from pi_coding_agent.app.cli._extensions import extension_trust

    untrusted = Settings.load(session_cwd, home, project_trusted=False)
    _, early = resources_and_extensions(
        parsed, cwd, session_cwd, home, untrusted, diagnostics=Diagnostics(), into=None, check=False
    )
    decision = extension_trust(early, session_cwd, str(home)) if early is not None else None
    if decision is None:
        return _runtime_settings(parsed, session_cwd, home, diagnostics, ask), early
    return (Settings.load(session_cwd, home, project_trusted=True) if decision else untrusted), early


def startup_trust_prompt(home: Path) -> TrustAsker:
    """The terminal UI's "Trust project folder?" question, asked before the run starts (Pi's
    startup selector); Escape answers "not trusted" for this run, saving nothing."""

    def ask(title: str, choices: Sequence[TrustChoice]) -> TrustChoice | None:
        from pi_coding_agent.app import interactive
        from pi_coding_agent.app.cli._extensions import run_async

        label = run_async(interactive.startup_select(title, [choice.label for choice in choices], home))
        return next((choice for choice in choices if choice.label == label), None)

    return ask


def resources_and_extensions(
    parsed: Args,
    cwd: str,
    session_cwd: str,
    home: Path,
    settings: Settings,
    *,
    diagnostics: Diagnostics,
    into: ExtensionRunner | None,
    check: bool = True,
) -> tuple[LoadedResources, ExtensionRunner | None]:
    """Skills, templates, themes and extension files; the extensions loaded (their flags
    read) into ``into`` (the extensions that decided on trust) or a new runner."""
    from pi_coding_agent.app.cli._extensions import load_cli_extensions, refuse_failed_extensions
    from pi_coding_agent.runtime.agent_session import load_resource_files

    resources, resource_warnings = load_resource_files(
        resource_choice(parsed), cwd=cwd, session_cwd=session_cwd, agent_dir=home, settings=settings
    )
    from pi_coding_agent.core.startup_timing import mark

    mark("resources found")
    tui_only = listed_problems(resources)  # Pi reports these in its TUI's header, never on stderr
    for warning in resource_warnings:
        if warning not in tui_only:
            diagnostics.warn(warning)
    npm_command = settings.get("npmCommand")
    if resources.extensions:  # (their loading imports the TypeScript host's module anyway)
        apply_host_library()
    runner, failed = load_cli_extensions(
        [r.path for r in resources.extensions], session_cwd, parsed, into, warn=diagnostics.warn,
        npm_command=[str(part) for part in npm_command] if isinstance(npm_command, list) and npm_command else None,
    )  # fmt: skip
    stop_unused_early_host()
    package_warnings = _host_package_warnings(resources.extensions)
    for manifest, message in package_warnings:
        diagnostics.warn(f'Extension package "{manifest}": {message}')
    failed += _builtin_extensions(resources.builtin_extensions, diagnostics)
    if failed:
        diagnostics.flush()
        refuse_failed_extensions(failed)
    if check:
        check_unknown_flags(parsed)
    if runner is not None:
        runner.project_trusted = settings.project_trusted
        runner.package_warnings = package_warnings
        for resource in resources.extensions:
            origin = resource.origin
            path = os.path.abspath(resource.path)
            key = os.path.dirname(path) if os.path.basename(path) == "__init__.py" else path
            runner.sources[key] = (origin.source, origin.scope, origin.base_dir)
    return resources, runner


def _host_package_warnings(extensions: Sequence[ResolvedResource]) -> list[tuple[str, str]]:
    """Pi 1.6's start-up warning for each package of the run's extensions whose ``dependencies``
    name a package Pi provides (``typebox``, Pi's own): ``(package.json path, message)``."""
    roots = [
        r.origin.base_dir for r in extensions
        if r.origin.origin == "package" and r.origin.base_dir is not None and os.path.isdir(r.origin.base_dir)
    ]  # fmt: skip
    if not roots:
        return []
    from pi_coding_agent.customize.ts_extensions import host_dependency_warnings

    return host_dependency_warnings(roots)


def _builtin_extensions(sources: list[str], diagnostics: Diagnostics) -> list[ExtensionError]:
    """``-e builtin:<name>``: ``codemode``, ``tool-search`` and ``mcp`` are ours; another name Pi 1.6 knows is
    accepted with a warning (not implemented here), any other fails to load as in Pi (``Unknown
    built-in extension``)."""
    from pi_coding_agent.customize.extensions import ExtensionError
    from pi_coding_agent.customize.loader import BUILTIN_PREFIX, PI_BUILTIN_EXTENSIONS

    failed: list[ExtensionError] = []
    for source in dict.fromkeys(sources):
        if source in ("builtin:codemode", "builtin:tool-search", f"{BUILTIN_PREFIX}mcp"):
            continue  # implemented: codemode (core/codemode), tool_search (core/tool_search), MCP (core/mcp)
        if source[len(BUILTIN_PREFIX) :] in PI_BUILTIN_EXTENSIONS:
            diagnostics.warn(f"Pi 1.6's built-in extension {source} is not implemented in Pi for Python; ignored")
        else:
            failed.append(ExtensionError(source, "load", f"Unknown built-in extension: {source}"))
    return failed


def register_providers(runner: ExtensionRunner, catalog: ModelCatalog) -> None:
    """Providers the extensions registered during setup join the catalog before models are chosen."""
    for name, config in runner.pending_providers:
        try:
            catalog.register_provider(name, config)
        except ValueError as error:
            print(f"Warning: {error}", file=sys.stderr)
    runner.pending_providers.clear()


def list_models(parsed: Args, catalog: ModelCatalog, diagnostics: Diagnostics) -> int:
    from pi_coding_agent.core.local_model import is_local
    from pi_coding_agent.core.model_registry import matching_models, model_table

    diagnostics.flush()
    available = catalog.available()
    search = parsed.list_models if isinstance(parsed.list_models, str) else None
    if not matching_models(available, search) and all(is_local(model) for model in available):
        print(_no_models_listed())  # Pi's answer when no provider has credentials
        return 0
    for line in model_table(available, search):
        print(line)
    return 0


def _no_models_listed() -> str:
    """Pi's words for an empty ``--list-models``; where Pi names its own ``providers.md`` and
    ``models.md``, ours names this project's pages on signing in and on ``models.json``."""
    docs = Path(__file__).resolve().parents[4] / "docs"
    return (
        "No models available. Use /login to log into a provider via OAuth or API key. See:\n"
        f"  {docs / 'auth.md'}\n  {docs / 'providers' / 'models.md'}"
    )


def load_catalog(home: Path, diagnostics: Diagnostics) -> ModelCatalog:
    from pi_coding_agent.core.auth import AuthStorage
    from pi_coding_agent.core.model_registry import ModelCatalog

    auth = AuthStorage.load(home / "auth.json")
    if auth.notice:
        diagnostics.warn(auth.notice)
    if auth.issue:
        diagnostics.warn(f"{auth.issue}; stored credentials are ignored for this run")
    catalog = ModelCatalog.load(home, auth)
    if catalog.error:
        diagnostics.warn("errors loading models.json: " + " ".join(catalog.error.split()))
    return catalog


def _runtime_settings(
    parsed: Args, cwd: str, home: Path, diagnostics: Diagnostics, ask: TrustAsker | None
) -> Settings:
    from pi_coding_agent.runtime.agent_session import trusted_settings

    settings, warning = trusted_settings(cwd, home, trust_override=parsed.project_trust_override, ask=ask)
    if warning is not None:
        diagnostics.warn(warning)
    return settings


def cli_model(
    parsed: Args, catalog: ModelCatalog, diagnostics: Diagnostics
) -> tuple[Model | None, str | None]:
    from pi_coding_agent.core.model_registry import resolve_cli_model

    if not parsed.model:
        if parsed.provider == "local":  # ours: the embedded model needs no --model
            return catalog.find("local", _default_local_id()), None
        if parsed.provider:
            diagnostics.warn("--provider has no effect without --model")
        return None, None
    resolution = resolve_cli_model(
        provider=parsed.provider,
        model=parsed.model,
        thinking=parsed.thinking,
        models=catalog.all_models(),
        has_auth=catalog.has_auth,
    )
    if resolution.warning:
        diagnostics.warn(resolution.warning)
    if resolution.error:
        diagnostics.flush()
        raise CliError(resolution.error)
    thinking = None if parsed.thinking else resolution.thinking_level
    return resolution.model, thinking


def _default_local_id() -> str:
    from pi_coding_agent.core.local_model import default_local_model

    return default_local_model().id


def model_scope(patterns: list[str], catalog: ModelCatalog, diagnostics: Diagnostics) -> list[ScopedModel]:
    """``--models``/``enabledModels``: the models ``cycle_model`` goes through."""
    from pi_coding_agent.core.model_registry import resolve_model_scope

    scoped, warnings = resolve_model_scope(patterns, catalog.available())
    for warning in warnings:
        diagnostics.warn(warning)
    return scoped


def resource_choice(parsed: Args) -> ResourceChoice:
    """The resources and prompt sources the flags select."""
    from pi_coding_agent.runtime.agent_session import ResourceChoice

    return ResourceChoice(
        skill_paths=parsed.skills,
        prompt_template_paths=parsed.prompt_templates,
        theme_paths=parsed.themes,
        extension_sources=parsed.extensions,
        no_skills=parsed.no_skills,
        no_prompt_templates=parsed.no_prompt_templates,
        no_themes=parsed.no_themes,
        no_extensions=parsed.no_extensions,
        system_prompt=parsed.system_prompt,
        append_system_prompt=parsed.append_system_prompt,
        no_context_files=parsed.no_context_files,
    )


def listed_problems(resources: LoadedResources) -> set[str]:
    """The skill, template and theme problems a terminal's header lists ([Skill conflicts]...,
    as Pi's does), so they are not also printed as warnings there."""
    found = (
        *resources.skills.diagnostics,
        *resources.prompt_templates.diagnostics,
        *resources.theme_diagnostics,
    )
    return {str(problem) for problem in found}
