"""Everything after argument parsing: settings, session, model, then the run mode.

The order follows Pi 0.85's ``main``: choose the mode, find the session (it decides the
working directory), resolve project trust and settings, credentials and models, the model
from ``--provider``/``--model``, build the session, read stdin and ``@file`` arguments,
report problems, run. Each problem that stops a run is one line on stderr, exit status 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pi_coding_agent.app.cli._args import ParsedArgs

if TYPE_CHECKING:
    from pi_ai import Model
    from pi_coding_agent.app.cli._inputs import InitialInput
    from pi_coding_agent.app.interactive import StartupResources
    from pi_coding_agent.core.model_registry import ModelCatalog, ScopedModel
    from pi_coding_agent.core.session import SessionManager
    from pi_coding_agent.core.settings import Settings
    from pi_coding_agent.customize.extensions import ExtensionRunner
    from pi_coding_agent.customize.loader import LoadedResources
    from pi_coding_agent.runtime.agent_session import (
        AgentSession,
        AgentSessionRuntime,
        CreatedSession,
        ResourceChoice,
        SessionAssembly,
    )

AppMode = Literal["interactive", "print", "json", "rpc"]

NO_MODELS_MESSAGE = (
    "No models available: set a provider API key (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY), "
    "store one in auth.json, add a provider with an apiKey to models.json, or use the embedded model "
    "(pi --provider local; the fallback to it is off because settings.json has \"localModelFallback\": false)."
)


class CliError(Exception):
    """A problem that ends the run before any model call; printed as ``Error: <message>``."""


@dataclass
class Diagnostics:
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def flush(self) -> None:
        for message in self.warnings:
            print(f"Warning: {message}", file=sys.stderr)
        self.warnings.clear()


def resolve_app_mode(parsed: ParsedArgs, stdin_is_tty: bool, stdout_is_tty: bool) -> AppMode:
    if parsed.mode == "rpc":
        return "rpc"
    if parsed.mode == "json":
        return "json"
    if parsed.print or not stdin_is_tty or not stdout_is_tty:
        return "print"
    return "interactive"


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def run(parsed: ParsedArgs) -> int:
    from pi_coding_agent.app.cli._extensions import close_loop

    try:
        return _run(parsed)
    except CliError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        close_loop()


def _check_unknown_flags(parsed: ParsedArgs) -> None:
    """Options neither pi nor a loaded extension defines (checked once extensions loaded)."""
    if parsed.unknown_flags:
        names = ", ".join(f"--{name}" for name in parsed.unknown_flags)
        plural = "s" if len(parsed.unknown_flags) > 1 else ""
        raise CliError(f"Unknown option{plural}: {names} (see pi --help)")


def _check_flags(parsed: ParsedArgs, mode: AppMode) -> None:
    if not parsed.extensions and parsed.no_extensions:
        _check_unknown_flags(parsed)
    if mode == "rpc" and parsed.file_args:
        raise CliError("@file arguments are not supported in RPC mode")
    session_flags = (
        ("--session", parsed.session),
        ("--continue", parsed.continue_session),
        ("--resume", parsed.resume),
    )
    if parsed.fork:
        _refuse_combination("--fork", (*session_flags, ("--no-session", parsed.no_session)))
    if parsed.session_id is not None:
        _refuse_combination("--session-id", session_flags)


def _refuse_combination(option: str, flags: tuple[tuple[str, object], ...]) -> None:
    """``CliError`` naming the given ``flags`` that were used together with ``option``."""
    conflicts = [flag for flag, used in flags if used]
    if conflicts:
        raise CliError(f"{option} cannot be combined with {', '.join(conflicts)}")


def _run(parsed: ParsedArgs) -> int:
    from pi_coding_agent.core.paths import agent_dir

    if parsed.export:
        return _export(parsed.export, parsed.messages[0] if parsed.messages else None)
    mode = resolve_app_mode(parsed, _isatty(sys.stdin), _isatty(sys.stdout))
    _check_flags(parsed, mode)
    cwd, home, diagnostics = os.getcwd(), Path(agent_dir()), Diagnostics()
    manager = _open_session(parsed, cwd, home, diagnostics, interactive=mode == "interactive")
    session_cwd = manager.get_cwd()
    settings, early = _settings_with_trust(parsed, cwd, session_cwd, home, diagnostics)
    catalog = _catalog(home, diagnostics)
    files, runner = _resources_and_extensions(
        parsed, cwd, session_cwd, home, settings, diagnostics=diagnostics, into=early,
        interactive=mode == "interactive",
    )  # fmt: skip
    if runner is not None:
        _register_providers(runner, catalog)
    if parsed.help:  # as in Pi, once the extensions loaded: their flags are listed
        return _help(runner, diagnostics)
    if parsed.list_models is not None:  # with the providers extensions registered
        return _list_models(parsed, catalog, diagnostics)
    assembly = _assembly(
        parsed, manager, home, settings=settings, catalog=catalog, files=files, runner=runner, diagnostics=diagnostics
    )
    created = assembly.build(manager)
    if runner is not None:
        runner.on_resources = assembly.add_discovered
    _report_created(created, runner, settings, diagnostics)
    session = created.session
    if mode == "rpc":
        diagnostics.flush()
        if session.model is None:
            raise CliError(NO_MODELS_MESSAGE)
        _prepare_local(session.model, announce=created.local_fallback)  # progress on stderr only
        return _run_rpc(assembly.runtime(session))
    initial = _initial_input(parsed, cwd, settings)
    diagnostics.flush()
    if session.model is not None:
        _prepare_local(session.model, announce=created.local_fallback)
    if mode == "interactive":
        return _run_interactive(assembly, session, home, initial=initial, parsed=parsed, cwd=cwd)
    if session.model is None:
        raise CliError(NO_MODELS_MESSAGE)
    return _run_print(assembly.runtime(session), "json" if mode == "json" else "text", initial)


def _open_session(
    parsed: ParsedArgs, cwd: str, home: Path, diagnostics: Diagnostics, *, interactive: bool
) -> SessionManager:
    """The session the flags name (or a new one), in the session folder the settings name;
    refused when its stored working directory is gone."""
    from pi_coding_agent.core.paths import resolve_path
    from pi_coding_agent.core.session import resolve_session_dir
    from pi_coding_agent.core.settings import Settings

    startup_settings = Settings.load(cwd, home)
    startup_settings.apply_http_proxy(os.environ)  # as Pi's CLI does at startup (global httpProxy)
    session_dir = resolve_session_dir(
        resolve_path(parsed.session_dir) if parsed.session_dir else None, startup_settings.session_dir
    )
    manager = _session_manager(parsed, cwd, session_dir, diagnostics, interactive=interactive)
    session_cwd = manager.get_cwd()
    if manager.get_session_file() and not os.path.isdir(session_cwd):
        raise CliError(
            f"Stored session working directory does not exist: {session_cwd} "
            f"(session file {manager.get_session_file()}); recreate that directory to resume the session"
        )
    return manager


def _help(runner: ExtensionRunner | None, diagnostics: Diagnostics) -> int:
    from pi_coding_agent.app.cli._help import help_text

    diagnostics.flush()
    print(help_text(runner.flags() if runner is not None else []), end="")
    return 0


def _assembly(
    parsed: ParsedArgs,
    manager: SessionManager,
    home: Path,
    *,
    settings: Settings,
    catalog: ModelCatalog,
    files: LoadedResources,
    runner: ExtensionRunner | None,
    diagnostics: Diagnostics,
) -> SessionAssembly:
    """The run's sessions as the flags describe them: model, scope, tools, prompts, resources."""
    from pi_coding_agent.runtime.agent_session import (
        SessionAssembly,
        SessionOptions,
        with_prompt_sources,
        with_resources,
    )

    model, thinking_from_model = _cli_model(parsed, catalog, diagnostics)
    patterns = parsed.models or settings.enabled_models
    scoped = _model_scope(patterns, catalog, diagnostics) if patterns else []
    if parsed.api_key:
        _set_api_key(parsed.api_key, model, scoped, settings, catalog)
    _name_session(parsed, manager)
    session_cwd = manager.get_cwd()
    resources = with_prompt_sources(
        files, [], _resource_choice(parsed), session_cwd=session_cwd, agent_dir=home, settings=settings
    )
    options = SessionOptions(
        cwd=session_cwd,
        agent_dir=home,
        settings=settings,
        catalog=catalog,
        session_manager=manager,
        model=model,
        thinking_level=parsed.thinking or thinking_from_model,
        tools=parsed.tools,
        exclude_tools=parsed.exclude_tools,
        no_tools=parsed.no_tools or parsed.no_builtin_tools,
        scoped_models=scoped,
        extensions=runner,
        no_extension_tools=parsed.no_tools,
    )
    return SessionAssembly(with_resources(options, resources, _warn), start_in_scope=True, resources=resources)


def _warn(problem: object) -> None:
    print(f"Warning: {problem}", file=sys.stderr)


def _set_api_key(
    key: str, model: Model | None, scoped: list[ScopedModel], settings: Settings, catalog: ModelCatalog
) -> None:
    """``--api-key``: the key of this run for the provider of the model it will start on."""
    from pi_coding_agent.runtime.agent_session import scoped_choice

    key_model = model or (scoped_choice(scoped, settings)[0] if scoped else None)
    if key_model is None:
        raise CliError("--api-key requires a model to be specified via --model, --provider/--model, or --models")
    catalog.credentials.set_runtime_key(key_model.provider, key)


def _name_session(parsed: ParsedArgs, manager: SessionManager) -> None:
    """``--name``. Pi records the name right after opening the session (before the model and
    thinking entries); doing it only now keeps a file untouched when the model cannot be resolved."""
    if parsed.name is None:
        return
    name = parsed.name.strip()
    if not name:
        raise CliError("--name requires a non-empty value")
    manager.append_session_info(name)


def _report_created(
    created: CreatedSession, runner: ExtensionRunner | None, settings: Settings, diagnostics: Diagnostics
) -> None:
    """Warnings about the session built: a model that could not be restored, unknown tools, settings issues."""
    if created.model_fallback_message:
        diagnostics.warn(created.model_fallback_message)
    extension_tools = {definition.name for definition, _ in runner.tools()} if runner is not None else set()
    for name in (n for n in created.unknown_tools if n not in extension_tools):
        diagnostics.warn(f'Unknown tool "{name}" ignored (built-in tools: read, bash, edit, write, grep, find, ls)')
    for issue in settings.issues:
        diagnostics.warn(str(issue))


def _initial_input(parsed: ParsedArgs, cwd: str, settings: Settings) -> InitialInput:
    """The first message: the arguments, piped stdin and ``@file`` arguments."""
    from pi_coding_agent.app.cli._inputs import (
        InputError,
        build_initial_input,
        process_file_arguments,
        read_piped_stdin,
    )

    stdin_text = read_piped_stdin()
    try:
        files = (
            process_file_arguments(parsed.file_args, cwd, auto_resize=settings.image_auto_resize)
            if parsed.file_args
            else None
        )
    except InputError as error:
        raise CliError(str(error)) from None
    return build_initial_input(parsed.messages, stdin_text, files)


def _reloader(
    assembly: SessionAssembly, parsed: ParsedArgs, cwd: str, home: Path, listing: StartupResources
) -> Callable[[], list[str]]:
    """``/reload``: settings, skills, prompt templates, themes and context files read again
    for the sessions the assembly builds from then on; the header's listing follows. The
    function returns the warnings found."""
    from pi_coding_agent.core.settings import Settings
    from pi_coding_agent.runtime.agent_session import load_run_resources

    session_cwd = assembly.options.cwd
    trusted = assembly.options.settings.project_trusted

    def reload() -> list[str]:
        fresh = Settings.load(session_cwd, home, project_trusted=trusted)
        resources = load_run_resources(
            _resource_choice(parsed), cwd=cwd, session_cwd=session_cwd, agent_dir=home, settings=fresh
        )
        assembly.reload(fresh, resources)
        listing.replace_with(_startup_listing(resources.loaded, parsed, cwd, resources.context_paths))
        listed = _listed_problems(resources.loaded)
        return [*(w for w in resources.warnings if w not in listed), *(str(issue) for issue in fresh.issues)]

    return reload


def _prepare_local(model: Model, *, announce: bool) -> None:
    """An in-process model: say so when it is the fallback, and set it up on first use."""
    from pi_coding_agent.core.local_model import SetupError, StderrProgress, is_local, prepare_local_model

    if not is_local(model):
        return
    if announce:
        print(
            f"pi: no provider is configured, using the embedded model {model.provider}/{model.id} "
            '(offline; add a key or models.json provider, or set "localModelFallback": false, to change this)',
            file=sys.stderr,
        )
    try:
        prepare_local_model(model, StderrProgress())
    except SetupError as error:
        raise CliError(f"cannot set up {model.provider}/{model.id}: {error}") from None


def _resource_choice(parsed: ParsedArgs) -> ResourceChoice:
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


def _listed_problems(resources: LoadedResources) -> set[str]:
    """The skill, template and theme problems a terminal's header lists ([Skill conflicts]...,
    as Pi's does), so they are not also printed as warnings there."""
    found = (*resources.skills.diagnostics, *resources.prompt_templates.diagnostics, *resources.theme_diagnostics)
    return {str(problem) for problem in found}


def _startup_listing(
    resources: LoadedResources, parsed: ParsedArgs, cwd: str, context_paths: list[str]
) -> StartupResources:
    """What the interactive header lists about this run's context files, skills, templates and themes."""
    from pi_coding_agent.app.interactive import StartupResources, resource_origins
    from pi_coding_agent.core.paths import resolve_path

    skills, templates = resources.skills, resources.prompt_templates
    resolved, cli = resources.resolved, resources.cli
    origins = resource_origins(
        [*(s.file_path for s in skills.skills), *(t.file_path for t in templates.templates), *resources.theme_paths],
        [*resolved.skills, *resolved.prompts, *resolved.themes, *cli.skills, *cli.prompts, *cli.themes],
        [resolve_path(p.strip(), cwd) for p in (*(parsed.skills or ()), *(parsed.prompt_templates or ()), *(parsed.themes or ()))],
    )
    return StartupResources(context_paths, origins, skills.diagnostics, templates.diagnostics, resources.theme_diagnostics)


def _run_interactive(
    assembly: SessionAssembly, session: AgentSession, home: Path, *, initial: InitialInput, parsed: ParsedArgs, cwd: str
) -> int:
    from pi_coding_agent import __version__
    from pi_coding_agent.app.cli._extensions import run_async
    from pi_coding_agent.app.interactive import run_interactive_mode

    resources = assembly.resources
    assert resources is not None  # the CLI's assembly always has them
    listing = _startup_listing(resources.loaded, parsed, cwd, resources.context_paths)
    return run_async(
        run_interactive_mode(
            assembly.runtime(session),
            agent_dir=home,
            version=__version__,
            initial_message=initial.message,
            initial_images=initial.images,
            theme_name=parsed.use_theme,
            theme_paths=resources.loaded.theme_paths,
            tui_mode="fullscreen" if parsed.tui_mode == "fullscreen" else "regular" if parsed.tui_mode else None,
            reload_resources=_reloader(assembly, parsed, cwd, home, listing),
            verbose=parsed.verbose,
            startup_resources=listing,
        )
    )


def _run_print(runtime: AgentSessionRuntime, mode: Literal["text", "json"], initial: InitialInput) -> int:
    import asyncio
    import signal

    from pi_coding_agent.app.print_mode import run_print_mode

    exit_code: list[int] = []

    async def main() -> int:
        loop = asyncio.get_running_loop()

        def stop(code: int) -> None:
            # Abort everything in flight: the model call, tools (their process groups are
            # killed), a retry backoff, user commands. The prompt then ends as aborted.
            if not exit_code:
                exit_code.append(code)
                session = runtime.session
                session.abort_retry()
                session.abort_bash()
                session.agent.abort()

        for signum, code in ((signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)):
            loop.add_signal_handler(signum, stop, code)
        runner = runtime.session.extensions
        if runner is not None:
            from pi_coding_agent.app.cli._extensions import print_errors_to_stderr, start_extensions
            from pi_coding_agent.customize.extensions.ui import NoExtensionUI

            print_errors_to_stderr(runner)
            runtime.bind_ui(NoExtensionUI(), "json" if mode == "json" else "print")
            await start_extensions(runner)
        try:
            status = await run_print_mode(
                runtime.session,
                mode=mode,
                initial_message=initial.message,
                initial_images=initial.images,
                messages=initial.rest,
                stopped=lambda: bool(exit_code),
                runtime=runtime,
            )
        finally:
            await runtime.dispose()
        return exit_code[0] if exit_code else status

    from pi_coding_agent.app.cli._extensions import run_async

    return run_async(main())


def _run_rpc(runtime: AgentSessionRuntime) -> int:

    from pi_coding_agent.app.cli._extensions import run_async
    from pi_coding_agent.app.rpc import run_rpc_mode

    return run_async(run_rpc_mode(runtime))


def _export(session_path: str, output_path: str | None) -> int:
    """``pi --export SESSION.jsonl [OUT.html]``: write the HTML page, say where."""
    from pi_coding_agent.core.export import ExportError, export_file

    try:
        written = export_file(session_path, output_path)
    except ExportError as error:
        raise CliError(str(error)) from None
    print(f"Exported to: {written}")
    return 0


# ---------------------------------------------------------------------- pieces


def _settings_with_trust(
    parsed: ParsedArgs, cwd: str, session_cwd: str, home: Path, diagnostics: Diagnostics
) -> tuple[Settings, ExtensionRunner | None]:
    """The run's settings. When a project needs a trust decision and no ``-a``/``-na`` gave
    one, the global and ``-e`` extensions load first and their ``project_trust`` handlers
    may decide (Pi's order); project extensions load later, once trusted."""
    from pi_coding_agent.core.settings import Settings, needs_project_trust

    if parsed.project_trust_override is not None or (parsed.no_extensions and not parsed.extensions):
        return _runtime_settings(parsed, session_cwd, home, diagnostics), None
    if not needs_project_trust(session_cwd):
        return _runtime_settings(parsed, session_cwd, home, diagnostics), None
    from pi_coding_agent.app.cli._extensions import extension_trust

    untrusted = Settings.load(session_cwd, home, project_trusted=False)
    _, early = _resources_and_extensions(
        parsed, cwd, session_cwd, home, untrusted, diagnostics=Diagnostics(), into=None, check=False
    )
    decision = extension_trust(early, session_cwd, str(home)) if early is not None else None
    if decision is None:
        return _runtime_settings(parsed, session_cwd, home, diagnostics), early
    return (Settings.load(session_cwd, home, project_trusted=True) if decision else untrusted), early


def _resources_and_extensions(
    parsed: ParsedArgs,
    cwd: str,
    session_cwd: str,
    home: Path,
    settings: Settings,
    *,
    diagnostics: Diagnostics,
    into: ExtensionRunner | None,
    check: bool = True,
    interactive: bool = False,
) -> tuple[LoadedResources, ExtensionRunner | None]:
    """Skills, templates, themes and extension files; the extensions loaded (their flags
    read) into ``into`` (the extensions that decided on trust) or a new runner."""
    from pi_coding_agent.app.cli._extensions import load_cli_extensions, refuse_failed_extensions
    from pi_coding_agent.runtime.agent_session import load_resource_files

    resources, resource_warnings = load_resource_files(
        _resource_choice(parsed), cwd=cwd, session_cwd=session_cwd, agent_dir=home, settings=settings
    )
    shown = _listed_problems(resources)
    for warning in resource_warnings:
        if not (interactive and warning in shown):
            diagnostics.warn(warning)
    runner, failed = load_cli_extensions([r.path for r in resources.extensions], session_cwd, parsed, into)
    if failed:
        diagnostics.flush()
        refuse_failed_extensions(failed)
    if check:
        _check_unknown_flags(parsed)
    if runner is not None:
        runner.project_trusted = settings.project_trusted
        for resource in resources.extensions:
            origin = resource.origin
            path = os.path.abspath(resource.path)
            key = os.path.dirname(path) if os.path.basename(path) == "__init__.py" else path
            runner.sources[key] = (origin.source, origin.scope, origin.base_dir)
    return resources, runner


def _register_providers(runner: ExtensionRunner, catalog: ModelCatalog) -> None:
    """Providers the extensions registered during setup join the catalog before models are chosen."""
    for name, config in runner.pending_providers:
        try:
            catalog.register_provider(name, config)
        except ValueError as error:
            print(f"Warning: {error}", file=sys.stderr)
    runner.pending_providers.clear()


def _list_models(parsed: ParsedArgs, catalog: ModelCatalog, diagnostics: Diagnostics) -> int:
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


def _catalog(home: Path, diagnostics: Diagnostics) -> ModelCatalog:
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


def _runtime_settings(parsed: ParsedArgs, cwd: str, home: Path, diagnostics: Diagnostics) -> Settings:
    from pi_coding_agent.runtime.agent_session import trusted_settings

    settings, warning = trusted_settings(cwd, home, trust_override=parsed.project_trust_override)
    if warning is not None:
        diagnostics.warn(warning)
    return settings


def _cli_model(parsed: ParsedArgs, catalog: ModelCatalog, diagnostics: Diagnostics) -> tuple[Model | None, str | None]:
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


def _model_scope(patterns: list[str], catalog: ModelCatalog, diagnostics: Diagnostics) -> list[ScopedModel]:
    """``--models``/``enabledModels``: the models ``cycle_model`` goes through."""
    from pi_coding_agent.core.model_registry import resolve_model_scope

    scoped, warnings = resolve_model_scope(patterns, catalog.available())
    for warning in warnings:
        diagnostics.warn(warning)
    return scoped


def _session_manager(
    parsed: ParsedArgs, cwd: str, session_dir: str | None, diagnostics: Diagnostics, *, interactive: bool = False
) -> SessionManager:
    from pi_coding_agent.core.session import (
        InvalidSessionError,
        InvalidSessionIdError,
        SessionError,
        SessionManager,
    )

    try:
        if parsed.no_session or parsed.help or parsed.list_models is not None:  # nothing to store (Pi's rule)
            return SessionManager.in_memory(cwd, session_id=parsed.session_id)
        if parsed.fork:
            if parsed.session_id and _exact_local_session(parsed.session_id, cwd, session_dir):
                raise CliError(f"Session already exists with id '{parsed.session_id}'")
            source = _find_session(parsed.fork, cwd, session_dir)
            return SessionManager.fork_from(source[0], cwd, session_dir, session_id=parsed.session_id)
        if parsed.session:
            path, other_cwd = _find_session(parsed.session, cwd, session_dir)
            if other_cwd is not None:
                raise CliError(
                    f"session '{parsed.session}' belongs to another project ({other_cwd}); "
                    f"use --fork {parsed.session} to continue it here"
                )
            return _open(path, session_dir)
        if parsed.resume:
            if not interactive:
                raise CliError("--resume needs a terminal to pick a session in; use --continue or --session <id>")
            return _pick_session(cwd, session_dir)
        if parsed.continue_session:
            return SessionManager.continue_recent(cwd, session_dir)
        if parsed.session_id:
            existing = _exact_local_session(parsed.session_id, cwd, session_dir)
            if existing:
                return _open(existing, session_dir)
            diagnostics.warn(
                f"No project session found with id '{parsed.session_id}'; creating a new session with that id."
            )
        return SessionManager.create(cwd, session_dir, session_id=parsed.session_id)
    except InvalidSessionIdError as error:
        raise CliError(str(error)) from None
    except InvalidSessionError as error:
        raise CliError(
            f"{error} (its first line is not a session header; pass another file, or leave out --session "
            "to start a new session)"
        ) from None
    except (SessionError, OSError) as error:
        raise CliError(_describe(error)) from None


def _pick_session(cwd: str, session_dir: str | None) -> SessionManager:
    """``pi -r``: the session picker (this folder, Tab for every project); exit 0 when dismissed."""
    import asyncio

    from pi_coding_agent.app.interactive import pick_session
    from pi_coding_agent.core.paths import agent_dir
    from pi_coding_agent.core.session import SessionManager

    path = asyncio.run(
        pick_session(
            lambda: SessionManager.list(cwd, session_dir), lambda: SessionManager.list_all(session_dir), Path(agent_dir())
        )
    )
    if path is None:
        print("\x1b[2mNo session selected\x1b[22m")
        raise SystemExit(0)
    return _open(path, session_dir)


def _describe(error: Exception) -> str:
    if isinstance(error, OSError) and error.filename:
        return f"cannot read {error.filename}: {error.strerror or error} (check that the file exists and is readable)"
    return str(error)


def _open(path: str, session_dir: str | None) -> SessionManager:
    from pi_coding_agent.core.session import SessionManager

    if os.path.exists(path) and not os.access(path, os.R_OK):
        raise CliError(f"cannot read session file {path}: permission denied (check the file's permissions)")
    return SessionManager.open(path, session_dir)


def _exact_local_session(session_id: str, cwd: str, session_dir: str | None) -> str | None:
    from pi_coding_agent.core.session import list_sessions

    for info in list_sessions(cwd, session_dir):
        if info.id == session_id:
            return str(info.path)
    return None


def _find_session(argument: str, cwd: str, session_dir: str | None) -> tuple[str, str | None]:
    """(path, cwd of another project or None) for a ``--session``/``--fork`` value."""
    from pi_coding_agent.core.paths import resolve_path
    from pi_coding_agent.core.session import list_all_sessions, list_sessions

    if "/" in argument or "\\" in argument or argument.endswith(".jsonl"):
        return resolve_path(argument, cwd), None
    local = list_sessions(cwd, session_dir)
    match = next((s for s in local if s.id == argument), None) or next(
        (s for s in local if s.id.startswith(argument)), None
    )
    if match is not None:
        return str(match.path), None
    everywhere = list_all_sessions(session_dir)
    match = next((s for s in everywhere if s.id == argument), None) or next(
        (s for s in everywhere if s.id.startswith(argument)), None
    )
    if match is not None:
        return str(match.path), str(match.cwd)
    raise CliError(f"No session found matching '{argument}' (pi --session takes a file path or a session id prefix)")
