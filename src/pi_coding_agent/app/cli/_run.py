"""Everything after argument parsing: settings, session, model, then the run mode.

The order follows Pi 0.85's ``main``: choose the mode, find the session (``_session_file``;
it decides the working directory), resolve project trust and settings, credentials and
models, resources and extensions (``_setup``), the model from ``--provider``/``--model``,
build the session (the runtime floor's ``SessionAssembly``), read stdin and ``@file``
arguments, report problems, run. Each problem that stops a run is one line on stderr
(``_problems``), exit status 1.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pi_coding_agent.app.cli._args import Args
from pi_coding_agent.app.cli._early_host import host_for_mode, start_early_host_if_likely
from pi_coding_agent.app.cli._problems import CliError, Diagnostics, problem_line
from pi_coding_agent.app.cli._session_file import open_session
from pi_coding_agent.app.cli._setup import (
    check_unknown_flags,
    cli_model,
    list_models,
    listed_problems,
    load_catalog,
    model_scope,
    print_help,
    register_providers,
    resource_choice,
    resources_and_extensions,
    settings_with_trust,
    startup_trust_prompt,
)

if TYPE_CHECKING:
    from pi_ai import Model
    from pi_coding_agent.app.cli._inputs import InitialInput
    from pi_coding_agent.app.interactive import StartupResources
    from pi_coding_agent.core.mcp import McpManager
    from pi_coding_agent.core.model_registry import ModelCatalog, ScopedModel
    from pi_coding_agent.core.session import SessionManager
    from pi_coding_agent.core.settings import Settings
    from pi_coding_agent.customize.extensions import ExtensionRunner
    from pi_coding_agent.customize.loader import LoadedResources
    from pi_coding_agent.runtime.agent_session import (
        AgentSession,
        AgentSessionRuntime,
        CreateAgentSessionResult,
        SessionAssembly,
    )

AppMode = Literal["interactive", "print", "json", "rpc"]


NO_MODELS_MESSAGE = (
    "No models available: set a provider API key (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY), "
    "store one in auth.json, add a provider with an apiKey to models.json, or use the embedded model "
    '(pi --provider local; the fallback to it is off because settings.json has "localModelFallback": false).'
)


def resolve_app_mode(parsed: Args, stdin_is_tty: bool, stdout_is_tty: bool) -> AppMode:
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


def run(parsed: Args) -> int:
    from pi_coding_agent.app.cli._extensions import close_loop

    try:
        return _run(parsed)
    except CliError as error:
        problem_line(f"Error: {error}")
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        _stop_mcp()
        close_loop()


_MCP: list[McpManager] = []
"""The run's MCP servers once started (stopped when the run ends)."""


def _start_mcp(parsed: Args, session_cwd: str, home: Path, settings: Settings) -> McpManager | None:
    """Connect the servers of ``mcp.json`` in the background (not with ``--no-mcp``); the MCP
    modules load only when a file exists."""
    from pi_coding_agent.core.paths import CONFIG_DIR_NAME

    if not builtin_mcp_enabled(parsed, settings):
        return None
    project = settings.project_trusted and os.path.exists(os.path.join(session_cwd, CONFIG_DIR_NAME, "mcp.json"))
    if not project and not os.path.exists(home / "mcp.json"):
        return None
    from pi_coding_agent import PI_COMPAT_VERSION
    from pi_coding_agent.core.mcp import McpManager, load_mcp_config

    config = load_mcp_config(home, session_cwd, project_trusted=settings.project_trusted)
    mcp = McpManager(config, session_cwd, PI_COMPAT_VERSION, str(home / "mcp.log"), str(home))
    _MCP.append(mcp)
    mcp.start()
    return mcp


def _with_registered(
    runner: ExtensionRunner,
    mcp: McpManager | None,
    home: Path,
    session_cwd: str,
    *,
    built: list[AgentSession],
    assemblies: list[SessionAssembly],
) -> McpManager | None:
    """The servers extensions registered join the run's (a manager is made for them when no
    ``mcp.json`` exists, at the first registration when that comes after start-up); later
    changes reach the session built first, the session current then (one ``/new`` made, whose
    ``session_start`` registered the run's first server) and the sessions to come."""
    from pi_coding_agent.app.cli._mcp_registered import connect_registered, registered_manager_factory

    def after_change(manager: McpManager) -> None:
        if manager not in _MCP:
            _MCP.append(manager)
        for assembly in assemblies:
            if assembly.options.mcp is None:
                assembly.options = dataclasses.replace(assembly.options, mcp=manager)
        from pi_coding_agent.runtime.agent_session import AgentSession

        current = runner.host  # a session built since (``/new``, a resumed one): its ``session_start`` registered it
        sessions = [*built, *([current] if isinstance(current, AgentSession) and current not in built else [])]
        for session in sessions:
            session.attach_mcp(manager)
            session.activate_mcp_discovery()

    manager = connect_registered(runner, mcp, registered_manager_factory(home, session_cwd), after_change)
    if manager is not None and manager not in _MCP:
        _MCP.append(manager)
    return manager


def _mcp_replaced(runner: ExtensionRunner | None) -> bool:
    """An extension registered ``/mcp``: as in Pi 1.6 it replaces the built-in MCP support, so
    the servers started early (while extensions loaded) are stopped again and no MCP tool or
    built-in ``/mcp`` exists."""
    return runner is not None and any(command.name == "mcp" for command in runner.commands())


def builtin_mcp_enabled(parsed: Args, settings: Settings) -> bool:
    """Whether the run has MCP, as Pi 1.6 decides for its built-in ``mcp`` extension: not with
    ``--no-mcp``; with ``-e builtin:mcp``; not with ``--no-extensions``; else as the
    ``extensions`` settings say (``-builtin:mcp`` turns it off, ``+builtin:mcp`` on again; the
    project file's entries after the user's)."""
    if parsed.no_mcp:
        return False
    if BUILTIN_MCP in (parsed.extensions or []):
        return True
    if parsed.no_extensions:
        return False
    enabled = True
    for layer in (settings.global_settings, settings.project_settings):
        entries = layer.get("extensions")
        for entry in entries if isinstance(entries, list) else []:
            if entry == f"-{BUILTIN_MCP}":
                enabled = False
            elif entry in (BUILTIN_MCP, f"+{BUILTIN_MCP}"):
                enabled = True
    return enabled


BUILTIN_MCP = "builtin:mcp"


def _stop_mcp() -> None:
    while _MCP:
        _MCP.pop().close()


def _check_flags(parsed: Args, mode: AppMode) -> None:
    if not parsed.extensions and parsed.no_extensions:
        check_unknown_flags(parsed)
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


def _run(parsed: Args) -> int:
    from pi_coding_agent.core.paths import get_agent_dir
    from pi_coding_agent.core.startup_timing import mark

    mark("cli modules imported")

    if parsed.export:
        return _export(parsed.export, parsed.messages[0] if parsed.messages else None)
    mode = resolve_app_mode(parsed, _isatty(sys.stdin), _isatty(sys.stdout))
    _check_flags(parsed, mode)
    cwd, home, diagnostics = os.getcwd(), Path(get_agent_dir()), Diagnostics()
    manager = open_session(parsed, cwd, home, diagnostics, interactive=mode == "interactive")
    session_cwd = manager.get_cwd()
    host_for_mode(terminal_ui=mode == "interactive")
    start_early_host_if_likely(parsed, session_cwd, home)
    asks = mode == "interactive" and not parsed.help and parsed.list_models is None
    settings, early = settings_with_trust(
        parsed, cwd, session_cwd, home, diagnostics, ask=startup_trust_prompt(home) if asks else None
    )
    mcp = _start_mcp(parsed, session_cwd, home, settings)
    catalog = load_catalog(home, diagnostics)
    mark("settings and models read")
    files, runner = resources_and_extensions(
        parsed, cwd, session_cwd, home, settings, diagnostics=diagnostics, into=early
    )
    if runner is not None:
        register_providers(runner, catalog)
    builtin_mcp = builtin_mcp_enabled(parsed, settings) and not _mcp_replaced(runner)
    if not builtin_mcp and mcp is not None:
        _stop_mcp()
        mcp = None
    built: list[AgentSession] = []
    assemblies: list[SessionAssembly] = []
    if builtin_mcp and runner is not None:
        mcp = _with_registered(runner, mcp, home, session_cwd, built=built, assemblies=assemblies)
    if parsed.help:  # as in Pi, once the extensions loaded: their flags are listed
        return print_help(runner, diagnostics)
    if parsed.list_models is not None:  # with the providers extensions registered
        return list_models(parsed, catalog, diagnostics)
    assembly = _assembly(
        parsed,
        manager,
        home,
        settings=settings,
        catalog=catalog,
        files=files,
        runner=runner,
        diagnostics=diagnostics,
        mcp=mcp,
        builtin_mcp=builtin_mcp,
    )
    assemblies.append(assembly)
    mark("extensions loaded")
    created = assembly.build(manager)
    mark("session built")
    if runner is not None:
        runner.on_resources = assembly.add_discovered
    _report_created(created, runner, settings, diagnostics)
    session = created.session
    built.append(session)
    if runner is not None:
        runner.report_unhandled_mcp_servers()
    if mode == "rpc":
        diagnostics.flush()
        if session.model is None:
            raise CliError(NO_MODELS_MESSAGE)
        _prepare_local(session.model, announce=created.local_fallback)  # progress on stderr only
        runtime = assembly.runtime(session)
        load = _project_loader(assembly, parsed, cwd, home, None)
        _follow_directories(runtime, assembly, parsed, home, load)
        if runner is not None:
            runner.on_reload = _runtime_reload(runtime, _current_folder(assembly, load))
        return _run_rpc(runtime)
    initial = _initial_input(parsed, cwd, settings)
    diagnostics.flush()
    if session.model is not None:
        _prepare_local(session.model, announce=created.local_fallback)
    if mode == "interactive":
        return _run_interactive(assembly, session, home, initial=initial, parsed=parsed, cwd=cwd)
    if session.model is None:
        raise CliError(NO_MODELS_MESSAGE)
    return _run_print(assembly.runtime(session), "json" if mode == "json" else "text", initial)


def _assembly(
    parsed: Args,
    manager: SessionManager,
    home: Path,
    *,
    settings: Settings,
    catalog: ModelCatalog,
    files: LoadedResources,
    runner: ExtensionRunner | None,
    diagnostics: Diagnostics,
    mcp: McpManager | None = None,
    builtin_mcp: bool = False,
) -> SessionAssembly:
    """The run's sessions as the flags describe them: model, scope, tools, prompts, resources."""
    from pi_coding_agent.runtime.agent_session import (
        CreateAgentSessionOptions,
        SessionAssembly,
        with_prompt_sources,
        with_resources,
    )

    model, thinking_from_model = cli_model(parsed, catalog, diagnostics)
    patterns = parsed.models or settings.enabled_models
    scoped = model_scope(patterns, catalog, diagnostics) if patterns else []
    if parsed.api_key:
        _set_api_key(parsed.api_key, model, scoped, settings, catalog)
    _name_session(parsed, manager)
    session_cwd = manager.get_cwd()
    resources = with_prompt_sources(
        files, [], resource_choice(parsed), session_cwd=session_cwd, agent_dir=home, settings=settings
    )
    options = CreateAgentSessionOptions(
        cwd=session_cwd,
        agent_dir=home,
        settings=settings,
        catalog=catalog,
        session_manager=manager,
        model=model,
        thinking_level=parsed.thinking or thinking_from_model,
        tools=parsed.tools,
        exclude_tools=parsed.exclude_tools,
        no_tools="all" if parsed.no_tools else "builtin" if parsed.no_builtin_tools else None,
        codemode=_builtin_loaded(parsed, settings, "codemode"),
        tool_search=_builtin_loaded(parsed, settings, "tool-search"),
        scoped_models=scoped,
        extensions=runner,
        mcp=mcp,
        builtin_mcp=builtin_mcp,
    )
    return SessionAssembly(
        with_resources(options, resources, _warn), start_in_scope=True, resources=resources
    )


def _builtin_loaded(parsed: Args, settings: Settings, name: str) -> bool:
    """Pi 1.6 loads its built-in ``codemode`` and ``tool-search`` extensions unless
    ``--no-extensions`` (without ``-e builtin:<name>``) or ``-builtin:<name>`` in ``extensions``
    says otherwise."""
    if f"builtin:{name}" in (parsed.extensions or ()):
        return True
    return not parsed.no_extensions and settings.builtin_extension_enabled(name)


def _warn(problem: object) -> None:
    problem_line(f"Warning: {problem}")


def _set_api_key(
    key: str, model: Model | None, scoped: list[ScopedModel], settings: Settings, catalog: ModelCatalog
) -> None:
    """``--api-key``: the key of this run for the provider of the model it will start on."""
    from pi_coding_agent.runtime.agent_session import scoped_choice

    key_model = model or (scoped_choice(scoped, settings)[0] if scoped else None)
    if key_model is None:
        raise CliError(
            "--api-key requires a model to be specified via --model, --provider/--model, or --models"
        )
    catalog.credentials.set_runtime_key(key_model.provider, key)


def _name_session(parsed: Args, manager: SessionManager) -> None:
    """``--name``. Pi records the name right after opening the session (before the model and
    thinking entries); doing it only now keeps a file untouched when the model cannot be resolved."""
    if parsed.name is None:
        return
    name = parsed.name.strip()
    if not name:
        raise CliError("--name requires a non-empty value")
    manager.append_session_info(name)


def _report_created(
    created: CreateAgentSessionResult,
    runner: ExtensionRunner | None,
    settings: Settings,
    diagnostics: Diagnostics,
) -> None:
    """Warnings about the session built: a model that could not be restored, unknown tools, settings issues."""
    if created.model_fallback_message:
        diagnostics.warn(created.model_fallback_message)
    extension_tools = {definition.name for definition, _ in runner.tools()} if runner is not None else set()
    for name in (n for n in created.unknown_tools if n not in extension_tools):
        diagnostics.warn(_unknown_tool_warning(name))
    for issue in settings.issues:
        diagnostics.warn(str(issue))


PI_ONLY_TOOLS = frozenset(("powershell",))
"""Tools Pi 1.6 has that this implementation does not (``docs/pi-1.6/settings-and-cli.md``)."""


def _unknown_tool_warning(name: str) -> str:
    if name == "codemode":  # it exists unless its built-in extension is off
        return 'Tool "codemode" ignored: the built-in codemode extension is turned off (--no-extensions or -builtin:codemode)'
    if name == "tool_search":
        return 'Tool "tool_search" ignored: the built-in tool-search extension is turned off (--no-extensions or -builtin:tool-search)'
    if name in PI_ONLY_TOOLS:
        return f'Tool "{name}" is not available in Pi for Python (Pi 1.6 has it); ignored'
    return f'Unknown tool "{name}" ignored (built-in tools: read, bash, edit, write, grep, find, ls)'


def _initial_input(parsed: Args, cwd: str, settings: Settings) -> InitialInput:
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


def _runtime_reload(
    runtime: AgentSessionRuntime, reload_resources: Callable[[], list[str]]
) -> Callable[[], Awaitable[None]]:
    """``ctx.reload()`` outside the terminal UI: settings and resources read again, then the
    session rebuilt (Pi 1.6's ``session.reload()``); warnings are not shown there."""

    async def reload() -> None:
        reload_resources()
        await runtime.reload()

    return reload


def _project_loader(
    assembly: SessionAssembly, parsed: Args, cwd: str, home: Path, listing: StartupResources | None
) -> Callable[[str, bool], list[str]]:
    """Settings, skills, prompt templates, themes and context files of a folder (its ``.pi``
    ones when ``trusted``) read again for the sessions the assembly builds from then on; the
    header's ``listing`` follows. The function returns the warnings found."""
    from pi_coding_agent.core.settings import Settings
    from pi_coding_agent.runtime.agent_session import load_run_resources

    def load(session_cwd: str, trusted: bool) -> list[str]:
        fresh = Settings.load(session_cwd, home, project_trusted=trusted)
        resources = load_run_resources(
            resource_choice(parsed), cwd=cwd, session_cwd=session_cwd, agent_dir=home, settings=fresh
        )
        assembly.reload(fresh, resources, session_cwd)
        if listing is not None:
            listing.replace_with(_startup_listing(resources.loaded, parsed, cwd, resources.context_paths))
        listed = listed_problems(resources.loaded)
        return [*(w for w in resources.warnings if w not in listed), *(str(issue) for issue in fresh.issues)]

    return load


def _current_folder(
    assembly: SessionAssembly, load: Callable[[str, bool], list[str]]
) -> Callable[[], list[str]]:
    """``load`` for the current session's folder with the trust already decided for it (a reload
    keeps the run's trust decision)."""
    return lambda: load(assembly.options.cwd, assembly.options.settings.project_trusted)


def _follow_directories(
    runtime: AgentSessionRuntime,
    assembly: SessionAssembly,
    parsed: Args,
    home: Path,
    load: Callable[[str, bool], list[str]],
) -> None:
    """Sessions moved to another folder get that folder's trust, settings and resources (``_directories``)."""
    from pi_coding_agent.app.cli._directories import RunTrust, follow_directories
    from pi_coding_agent.core.settings import needs_project_trust

    settings = assembly.options.settings
    trust = RunTrust(home, parsed.project_trust_override, settings)
    if parsed.project_trust_override is None and needs_project_trust(assembly.options.cwd):
        trust.decided[assembly.options.cwd] = settings.project_trusted  # decided at startup
    follow_directories(runtime, assembly, trust, load)


def _prepare_local(model: Model, *, announce: bool) -> None:
    """An in-process model: say so when it is the fallback, and set it up on first use."""
    from pi_coding_agent.core.local_model import SetupError, StderrProgress, is_local, prepare_local_model

    if not is_local(model):
        return
    if announce:
        print(
            # One line that fits 80 columns; how to change it is in docs/providers/local.md.
            f"pi: no provider configured: embedded model {model.provider}/{model.id} (offline)",
            file=sys.stderr,
        )
    try:
        prepare_local_model(model, StderrProgress())
    except SetupError as error:
        raise CliError(f"cannot set up {model.provider}/{model.id}: {error}") from None
    except KeyboardInterrupt:
        print("\npi: setup interrupted; the next run resumes it (downloaded parts are kept)", file=sys.stderr)
        raise


def _startup_listing(
    resources: LoadedResources, parsed: Args, cwd: str, context_paths: list[str]
) -> StartupResources:
    """What the interactive header lists about this run's context files, skills, templates and themes."""
    from pi_coding_agent.app.interactive import StartupResources, resource_origins
    from pi_coding_agent.core.paths import resolve_path

    skills, templates = resources.skills, resources.prompt_templates
    resolved, cli = resources.resolved, resources.cli
    origins = resource_origins(
        [
            *(s.file_path for s in skills.skills),
            *(t.file_path for t in templates.templates),
            *resources.theme_paths,
        ],
        [*resolved.skills, *resolved.prompts, *resolved.themes, *cli.skills, *cli.prompts, *cli.themes],
        [
            resolve_path(p.strip(), cwd)
            for p in (*(parsed.skills or ()), *(parsed.prompt_templates or ()), *(parsed.themes or ()))
        ],
    )
    return StartupResources(
        context_paths, origins, skills.diagnostics, templates.diagnostics, resources.theme_diagnostics
    )


def _run_interactive(
    assembly: SessionAssembly,
    session: AgentSession,
    home: Path,
    *,
    initial: InitialInput,
    parsed: Args,
    cwd: str,
) -> int:
    from pi_coding_agent import __version__
    from pi_coding_agent.app.cli._extensions import run_async
    from pi_coding_agent.app.interactive import run_interactive_mode

    resources = assembly.resources
    assert resources is not None  # the CLI's assembly always has them
    listing = _startup_listing(resources.loaded, parsed, cwd, resources.context_paths)
    load = _project_loader(assembly, parsed, cwd, home, listing)
    runtime = assembly.runtime(session)
    _follow_directories(runtime, assembly, parsed, home, load)
    options = assembly.options
    return run_async(
        run_interactive_mode(
            runtime,
            agent_dir=home,
            version=__version__,
            initial_message=initial.message,
            initial_images=initial.images,
            theme_name=parsed.use_theme,
            theme_paths=resources.loaded.theme_paths,
            tui_mode="fullscreen"
            if parsed.tui_mode == "fullscreen"
            else "regular"
            if parsed.tui_mode
            else None,
            reload_resources=_current_folder(assembly, load),
            trust_on_reload=_trust_on_reload(parsed, options.cwd),
            verbose=parsed.verbose,
            startup_resources=listing,
        )
    )


def _trust_on_reload(parsed: Args, session_cwd: str) -> str | None:
    """The folder whose trust ``/reload`` saves once ``.pi`` resources appear there during the
    run (Pi's ``autoTrustOnReloadCwd``): the session's, when it needed no trust decision at
    start and none was given on the command line."""
    from pi_coding_agent.core.settings import needs_project_trust

    if parsed.project_trust_override is not None or needs_project_trust(session_cwd):
        return None
    return session_cwd


def _run_print(runtime: AgentSessionRuntime, mode: Literal["text", "json"], initial: InitialInput) -> int:
    import asyncio
    import signal

    from pi_coding_agent.app.print_mode import run_print_mode

    exit_code: list[int] = []

    from pi_coding_agent.core.startup_timing import mark

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
            mark("session_start sent")
            await start_extensions(runner)
        mark("print mode starts the prompt")
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
    from pi_coding_agent.customize.themes import export_palette_for_setting

    # As Pi 1.6's: the system theme (light or dark by COLORFGBG), not the theme setting.
    palette = export_palette_for_setting()
    try:
        written = export_file(session_path, output_path, palette=palette)
    except ExportError as error:
        raise CliError(str(error)) from None
    print(f"Exported to: {written}")
    return 0
