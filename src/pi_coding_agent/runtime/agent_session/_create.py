"""Building one ``AgentSession`` from ``CreateAgentSessionOptions``, the way Pi 0.85's ``createAgentSession`` does
(``SessionAssembly`` in ``_assembly`` is what entry points call).

Model: an explicit one wins; else a resumed session's last model (when it still exists and
has credentials); else ``defaultProvider``/``defaultModel`` from settings (with
credentials); else the first available provider default. Thinking level: explicit; else a
resumed session's last ``thinking_level_change`` (or the settings default); else the
per-model setting, the default setting, ``medium``; always clamped to the model. A new
session records ``model_change`` + ``thinking_level_change`` first; a resumed one without a
thinking entry records one.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pi_agent import AgentTool, StreamFn
from pi_ai import (
    THINKING_LEVELS,
    AssistantMessageEventStream,
    Context,
    Model,
    SimpleStreamOptions,
    ThinkingBudgets,
    ThinkingLevel,
)
from pi_coding_agent.core.local_model import LOCAL_API, LOCAL_PROVIDER, is_local
from pi_coding_agent.core.messages import converter
from pi_coding_agent.core.model_registry import MissingCredentials, ModelCatalog, ScopedModel
from pi_coding_agent.core.paths import manual_dir
from pi_coding_agent.core.session import SessionManager, ThinkingLevelChangeEntry
from pi_coding_agent.core.settings import (
    DEFAULT_THINKING_LEVEL,
    NoTools,
    Settings,
    ToolSelection,
    is_tool_modifier,
    select_tools,
)
from pi_coding_agent.customize.extensions import ExtensionRunner
from pi_coding_agent.customize.prompt_templates import PromptTemplate
from pi_coding_agent.customize.skills import Skill
from pi_coding_agent.customize.system_prompt import (
    ContextFile,
    SystemPromptOptions,
    build_system_prompt_sections,
)
from pi_coding_agent.runtime.agent_session._hooks import AgentSetup, StreamLimit
from pi_coding_agent.runtime.agent_session._models_access import models_access
from pi_coding_agent.runtime.agent_session._parts import SlashCommand
from pi_coding_agent.runtime.agent_session._session import AgentSession
from pi_coding_agent.runtime.agent_session._test_run import after_change_tests
from pi_coding_agent.runtime.agent_session._tools import SpareTools
from pi_coding_agent.runtime.agent_session._write_guard import write_guard

if TYPE_CHECKING:
    from pi_agent import BeforeToolCallContext, BeforeToolCallResult
    from pi_ai import AbortSignal
    from pi_coding_agent.core.codemode import Exposure, ToolFacts
    from pi_coding_agent.core.mcp import McpManager
    from pi_coding_agent.runtime.agent_session._hooks import ToolGuard


@dataclass
class CreateAgentSessionOptions:
    cwd: str
    agent_dir: Path
    settings: Settings
    catalog: ModelCatalog
    session_manager: SessionManager
    model: Model | None = None
    thinking_level: str | None = None
    tools: Sequence[str] | None = None
    """``--tools``: an allowlist (names, ``*`` patterns: only these tools exist, and they start
    enabled), or only ``+name`` / ``-name`` entries changing the default selection."""
    exclude_tools: Sequence[str] | None = None
    """``--exclude-tools``: names or ``*`` patterns of tools that do not exist for the run."""
    no_tools: NoTools | None = None
    codemode: bool = True
    """Whether the ``codemode`` tool exists (Pi 1.6's built-in extension is loaded; the CLI turns
    it off for ``--no-extensions`` without ``-e builtin:codemode`` and for ``-builtin:codemode``)."""
    tool_search: bool = True
    """Whether the ``tool_search`` tool exists (Pi 1.6's built-in ``tool-search`` extension)."""
    """``--no-tools`` (``"all"``) or ``--no-builtin-tools`` (``"builtin"``: extension tools stay)."""
    custom_prompt: str | None = None
    append_prompts: Sequence[str] = ()
    context_files: Sequence[ContextFile] = ()
    scoped_models: Sequence[ScopedModel] = ()
    """``--models`` / ``enabledModels``: what ``cycle_model`` goes through."""
    skills: Sequence[Skill] = ()
    """Skills listed in the system prompt (those the model may invoke)."""
    expand_input: Callable[[str], str] | None = None
    """Turns a typed prompt into the text sent (``/skill:name``, ``/template`` expansion)."""
    prompt_templates: Sequence[PromptTemplate] = ()
    """Templates offered as ``/name`` commands (``AgentSession.available_commands``)."""
    extensions: ExtensionRunner | None = None
    """Loaded extensions, bound to the session (tools, hooks, commands)."""
    limit_stream: StreamLimit | None = None
    """Wraps every model call from outside (batch's per-provider rate limiter)."""
    mcp: McpManager | None = None
    """The run's MCP servers, started by the entry point (``None``: no MCP)."""
    builtin_mcp: bool = False
    """Pi 1.6's built-in MCP support is on for the run (``/mcp`` exists), with or without
    ``mcp.json`` files (without them ``mcp`` is ``None``: nothing to connect)."""


@dataclass
class CreateAgentSessionResult:
    session: AgentSession
    model_fallback_message: str | None
    unknown_tools: list[str]
    local_fallback: bool = False
    """The model is the embedded one because nothing else is configured (``pi`` says so)."""


def _initial_model(settings: Settings, catalog: ModelCatalog) -> Model | None:
    provider, model_id = settings.default_provider, settings.default_model
    if provider and model_id:
        found = catalog.find(provider, model_id)
        if found is not None and catalog.has_auth(found.provider):
            return found
    return catalog.default_model(local_fallback=settings.local_model_fallback)


def _stream_function(catalog: ModelCatalog, settings: Settings, cwd: str) -> StreamFn:
    """The agent's model call: credentials, headers and request limits from settings (and, for an
    in-process model, the aids of ``_local_aids``)."""
    from pi_ai import stream_simple

    provider_retry = settings.provider_retry
    attached: list[Any] = []  # the in-process model's NamedFiles, made on its first request
    response_timeout = settings.response_timeout_ms
    connect_timeout = settings.websocket_connect_timeout_ms

    def stream(model: Model, context: Context, options: SimpleStreamOptions) -> AssistantMessageEventStream:
        return catalog.with_fresh_auth(model, lambda: start(model, context, options), options.signal)

    def start(model: Model, context: Context, options: SimpleStreamOptions) -> AssistantMessageEventStream:
        try:
            auth = catalog.request_auth(model)
        except MissingCredentials as error:
            return _failed_stream(model, str(error), options)
        if auth.base_url:  # the credential names its own endpoint (GitHub Copilot's token)
            import msgspec

            model = msgspec.structs.replace(model, base_url=auth.base_url)
        headers: dict[str, str | None] = dict(options.headers or {})
        headers.update(auth.headers or {})
        idle_timeout = settings.http_idle_timeout_ms  # read per request: /settings changes it
        # httpIdleTimeoutMs 0 means "no limit"; Pi passes the largest 32-bit value then. The
        # request timeout bounds the wait for response headers only; the idle timeout bounds
        # that wait too and every silence in the body (Pi's undici dispatcher).
        timeout = options.timeout_ms or provider_retry.timeout_ms or idle_timeout or 2_147_483_647
        configured = dataclasses.replace(
            options,
            api_key=auth.api_key,
            headers=headers or None,
            env={**auth.env, **(options.env or {})} if auth.env else options.env,
            timeout_ms=timeout,
            idle_timeout_ms=options.idle_timeout_ms if options.idle_timeout_ms is not None else idle_timeout,
            response_timeout_ms=(
                options.response_timeout_ms if options.response_timeout_ms is not None else response_timeout
            ),
            websocket_connect_timeout_ms=(
                options.websocket_connect_timeout_ms
                if options.websocket_connect_timeout_ms is not None
                else connect_timeout
            ),
            max_retries=provider_retry.max_retries or options.max_retries,
        )
        if model.api == LOCAL_API:
            from pi_coding_agent.runtime.agent_session._local_aids import (
                NamedFiles,
                answer_check,
                edit_quotes,
                edit_undos,
                hidden_notes,
                with_argument_bounds,
                with_result_notes,
                without_pi_docs,
            )

            configured.extra = {
                **configured.extra, **edit_quotes(cwd), **edit_undos(), **hidden_notes(), **answer_check(context),
            }
            if not attached:
                attached.append(NamedFiles(cwd))
            context = attached[0](without_pi_docs(with_argument_bounds(with_result_notes(context))))
        return stream_simple(model, context, configured, env_auth=False)  # the catalog resolved them

    return stream


def _failed_stream(model: Model, reason: str, options: SimpleStreamOptions) -> AssistantMessageEventStream:
    from pi_ai import start_stream

    async def fail(_stream: AssistantMessageEventStream) -> None:
        raise RuntimeError(reason)

    return start_stream(model, fail, signal=options.signal)


def _tool_selection(options: CreateAgentSessionOptions) -> ToolSelection:
    """The run's tools from ``defaultTools`` and the flags; a bad ``tools`` list is a ``ValueError``."""
    from pi_coding_agent.core.settings import tool_list_error

    error = tool_list_error(options.tools) if options.tools is not None else None
    if error is not None:
        raise ValueError(f"Invalid tools option: {error}")
    return select_tools(options.settings.default_tools, options.tools, options.exclude_tools, options.no_tools)


def _builtin_tool_names(
    selection: ToolSelection, codemode: bool = True, tool_search: bool = True
) -> tuple[list[str], list[str], list[str]]:
    """(active built-in tool names, the other built-in tools the selection allows, names the
    selection asks for that are not built-in tools)."""
    from pi_coding_agent.core.tools import ALL_TOOL_NAMES

    # Pi 1.6's built-in codemode extension registers its tool inactive: one more built-in here.
    # And so does its tool-search extension.
    names = (*ALL_TOOL_NAMES, *(["codemode"] if codemode else []), *(["tool_search"] if tool_search else []))
    patterns = {entry for entry in selection.allowlist or () if "*" in entry}
    unknown = [name for name in selection.initial if name not in names and name not in patterns]
    active = selection.active(names)
    spare = [name for name in names if name not in active and selection.allowed(name)]
    return active, spare, unknown


def _default_tool_names(options: CreateAgentSessionOptions) -> list[str]:
    """The tools ``defaultTools`` contributes (with ``--tools +name``/``-name`` applied); none
    with a ``--tools`` allowlist or ``--no-tools`` / ``--no-builtin-tools`` (Pi 1.6's
    ``usesDefaultTools``). ``/reload`` turns on the names this newly gains."""
    from pi_coding_agent.core.settings import DEFAULT_TOOL_NAMES, apply_tool_modifiers

    modifiers = _tool_modifiers(options)
    if options.no_tools is not None or (options.tools is not None and not modifiers):
        return []
    configured = options.settings.default_tools
    return apply_tool_modifiers(list(DEFAULT_TOOL_NAMES if configured is None else configured), modifiers)


def _tool_modifiers(options: CreateAgentSessionOptions) -> list[str]:
    """The ``--tools`` entries that adjust the default tools (``+name`` / ``-name``)."""
    return [entry for entry in options.tools or () if is_tool_modifier(entry)]


def _create_tools(names: Sequence[str], options: CreateAgentSessionOptions, holder: list[AgentSession]) -> list[AgentTool]:
    """The built-in tools; ``holder`` will contain the session they belong to."""
    from pi_coding_agent.core.tools import ResizeProfile, ToolsOptions, create_tools

    settings = options.settings
    manager = options.session_manager

    def env() -> Mapping[str, str]:
        values = {"PI_SESSION_ID": manager.get_session_id()}
        session_file = manager.get_session_file()
        if session_file:
            values["PI_SESSION_FILE"] = session_file
        if holder:
            model = holder[0].model
            if model is not None:
                values["PI_PROVIDER"] = model.provider
                values["PI_MODEL"] = model.id
            values["PI_REASONING_LEVEL"] = holder[0].thinking_level
        return values

    def image_support() -> bool | None:
        model = holder[0].model if holder else None
        return None if model is None else "image" in model.input

    def image_profile() -> ResizeProfile:
        model = holder[0].model if holder else None
        images = model.input_limits.images if model is not None and model.input_limits is not None else None
        return ResizeProfile.of(images.resize if images is not None else None)

    if "codemode" in names or "tool_search" in names:
        others = [name for name in names if name not in ("codemode", "tool_search")]
        made = {tool.name: tool for tool in _create_tools(others, options, holder)} if others else {}
        if "codemode" in names:
            made["codemode"] = _codemode_tool(options, holder)
        if "tool_search" in names:
            made["tool_search"] = _tool_search_tool(holder)
        return [made[name] for name in dict.fromkeys(names) if name in made]
    tool_options = ToolsOptions(
        auto_resize_images=settings.image_auto_resize,
        image_support=image_support,
        image_profile=image_profile,
        command_prefix=settings.shell_command_prefix,
        shell_path=settings.shell_path,
        bin_dir=str(options.agent_dir / "bin"),
        session_env=env,
    )
    return create_tools(options.cwd, names, tool_options)


def _codemode_tool(options: CreateAgentSessionOptions, holder: list[AgentSession]) -> AgentTool:
    """``codemode``, calling the session's active tools; its ``store()`` values are the branch's
    ``codemode-store`` entries."""
    from pi_coding_agent.core.codemode import STORE_ENTRY_TYPE, CodemodeHost, CodemodeTool, read_store

    settings, manager = options.settings, options.session_manager
    def save(values: dict[str, Any], deleted: list[str]) -> None:
        manager.append_custom_entry(STORE_ENTRY_TYPE, {"set": values, "delete": deleted})

    host = CodemodeHost(
        callable_tools=lambda: holder[0].codemode_callable_tools() if holder else [],
        load_store=lambda: read_store(manager.get_branch()),
        save_store=save,
        mode=lambda: settings.codemode_mode,
        inline_budget=lambda: settings.codemode_inline_budget,
        models=models_access(options.catalog),
    )

    def mcp() -> McpManager | None:
        return holder[0].mcp if holder else options.mcp

    host = dataclasses.replace(host, facts=_tool_facts(mcp, holder))
    if options.mcp is not None or options.builtin_mcp:  # servers may also come later (attach_mcp)
        host = dataclasses.replace(host, prepare=_script_reach_wait(mcp))
    return CodemodeTool(host)


_DISCOVERY_GLOBALS = re.compile(r"\b(searchTools|describeNamespace|describeTool|ALL_TOOLS)\b")


def _script_reach_wait(current: Callable[[], McpManager | None]) -> Callable[[str], Awaitable[None]]:
    """Before a script runs, wait for the MCP servers it may call (as Pi 1.6): every server when
    it uses a discovery global, else the servers whose ``mcp__<server>`` one of its words holds.
    ``current``: the session's servers at that moment (none yet: nothing to wait for)."""

    async def wait(code: str) -> None:
        mcp = current()
        if mcp is not None:
            await mcp.wait_for_all(reach=None if _DISCOVERY_GLOBALS.search(code) else re.findall(r"\w+", code))

    return wait


def _reach_wait(guard: ToolGuard, holder: list[AgentSession]) -> ToolGuard:
    """``guard``, then the wait for the MCP servers an extension tool declaring ``reaches_tools``
    may reach (``AgentSession.wait_for_reached_servers``)."""

    async def check(context: BeforeToolCallContext, signal: AbortSignal | None) -> BeforeToolCallResult | None:
        blocked = await guard(context, signal)
        if blocked is None and holder:
            await holder[0].wait_for_reached_servers(context.tool_call.name, context.args)
        return blocked

    return check


def _tool_facts(current: Callable[[], McpManager | None], holder: list[AgentSession]) -> ToolFacts:
    """Tools' exposure and namespace for codemode: an MCP tool's configured exposure, and the
    session's namespaces (an extension tool's own ``namespace``; an MCP tool's ``mcp__<server>``,
    also named by the server's own name, with its ``description`` and instructions); other tools
    are ``direct`` without a namespace. ``current``: the session's servers when asked (the MCP
    modules load only once there are some)."""
    from pi_coding_agent.core.codemode import Namespace, ToolFacts

    def exposure(name: str) -> Exposure:
        mcp = current()
        info = mcp.tool_owner(name) if mcp is not None else None
        return "direct" if info is None else cast("Exposure", info.exposure)

    def namespace(name: str) -> Namespace | None:
        group = holder[0].tool_namespace(name) if holder else None
        if group is None:
            return None
        aliases = tuple(str(alias) for alias in group.get("aliases") or () if isinstance(alias, str))
        description, instructions = group.get("description"), group.get("instructions")
        return Namespace(
            str(group["name"]),
            aliases,
            description if isinstance(description, str) else None,
            instructions if isinstance(instructions, str) else None,
        )

    return ToolFacts(exposure=exposure, namespace=namespace)


def _tool_search_tool(holder: list[AgentSession]) -> AgentTool:
    """``tool_search``, loading the session's undeclared MCP tools into its active tools."""
    from pi_coding_agent.core.tool_search import ToolSearchHost, ToolSearchTool

    def activate(names: Sequence[str]) -> None:
        holder[0].set_active_tools([*holder[0].active_tool_names(), *names])

    async def wait() -> None:
        if holder and holder[0].mcp is not None:
            await holder[0].mcp.wait_for_all()

    host = ToolSearchHost(
        candidates=lambda: holder[0].tool_search_candidates() if holder else [],
        activate=activate,
        wait_for_servers=wait,
    )
    return ToolSearchTool(host)


def _prompt_sections(options: CreateAgentSessionOptions, tools: Sequence[AgentTool]) -> dict[str, str]:
    summaries: dict[str, str] = {}
    guidelines: list[str] = []
    for tool in tools:
        snippet = getattr(tool, "prompt_snippet", None)
        if isinstance(snippet, str) and snippet.strip():
            summaries[tool.name] = " ".join(snippet.split())
        guidelines.extend(str(line) for line in getattr(tool, "prompt_guidelines", ()) or ())
    return build_system_prompt_sections(
        SystemPromptOptions(
            cwd=options.cwd,
            tools=[tool.name for tool in tools],
            custom_prompt=options.custom_prompt,
            append=options.append_prompts,
            context_files=options.context_files,
            tool_summaries=summaries,
            guidelines=guidelines,
            skills=options.skills,
            manual=manual_dir(),
        )
    )


def build_session(options: CreateAgentSessionOptions) -> CreateAgentSessionResult:
    """The session, its agent and tools, with the model and thinking level chosen as above."""
    from pi_ai import clamp_thinking_level

    settings, catalog, manager = options.settings, options.catalog, options.session_manager
    existing = manager.build_session_context()
    has_existing = bool(existing.messages)
    has_thinking_entry = any(isinstance(entry, ThinkingLevelChangeEntry) for entry in manager.get_branch())

    model = options.model
    fallback: str | None = None
    if model is None and has_existing and existing.model is not None:
        # A field is None when the entry that last set the model lacked it (Pi: undefined).
        provider, model_id = existing.model.provider, existing.model.model_id
        restored = catalog.find(provider, model_id) if provider is not None and model_id is not None else None
        if restored is not None and catalog.has_auth(restored.provider):
            model = restored
        else:
            fallback = f"Could not restore model {provider or 'undefined'}/{model_id or 'undefined'}"
    local_fallback = False
    if model is None:
        model = _initial_model(settings, catalog)
        local_fallback = model is not None and is_local(model) and model.provider == LOCAL_PROVIDER and (
            settings.default_provider, settings.default_model
        ) != (model.provider, model.id)
        if fallback and model is not None:
            fallback += f". Using {model.provider}/{model.id}"

    level = _level(options.thinking_level)
    if level is None and has_existing:
        stored = existing.thinking_level if has_thinking_entry else settings.default_thinking_level
        level = _level(stored) or DEFAULT_THINKING_LEVEL
    if level is None and model is not None:
        level = _level(settings.model_thinking_level(model.provider, model.id))
    if level is None:
        level = _level(settings.default_thinking_level) or DEFAULT_THINKING_LEVEL
    level = clamp_thinking_level(model, level) if model is not None else "off"

    selection = _tool_selection(options)
    active_names, spare_names, unknown = _builtin_tool_names(selection, options.codemode, options.tool_search)
    holder: list[AgentSession] = []
    tools = _create_tools(active_names, options, holder)
    setup = AgentSetup(
        model=model,
        thinking_level=level,
        tools=tools,
        messages=existing.messages if has_existing else [],
        stream_fn=_stream_function(catalog, settings, options.cwd),
        convert_to_llm=converter(
            lambda: settings.block_images, lambda: bool(holder) and holder[0].system_messages_in_place()
        ),
        steering_mode=settings.steering_mode,
        follow_up_mode=settings.follow_up_mode,
        session_id=manager.get_session_id(),
        thinking_budgets=_budgets(settings.thinking_budgets),
        transport=settings.transport,
        max_retry_delay_ms=settings.provider_retry.max_retry_delay_ms,
        limit_stream=options.limit_stream,
        tool_guard=_reach_wait(write_guard(options.cwd), holder),
        tool_followup=after_change_tests(options.cwd),
        hidden_declarations=lambda: holder[0].hidden_declarations() if holder else (),
    )
    if has_existing:
        if not has_thinking_entry:
            manager.append_thinking_level_change(level)
    else:
        if model is not None:
            manager.append_model_change(model.provider, model.id)
        manager.append_thinking_level_change(level)
    session = AgentSession(
        agent_setup=setup,
        session_manager=manager,
        settings=settings,
        catalog=catalog,
        cwd=options.cwd,
        prompt_sections=lambda active: _prompt_sections(options, active),
        spare_tools=SpareTools(spare_names, lambda name: _create_tools([name], options, holder)[0]),
        bin_dir=str(options.agent_dir / "bin"),
        scoped_models=options.scoped_models,
        expand_input=options.expand_input,
        commands=resource_commands(options),
        default_tool_names=_default_tool_names(options),
        mcp=options.mcp,
    )
    holder.append(session)
    session.builtin_mcp = options.builtin_mcp or options.mcp is not None
    if options.mcp is not None:
        session.restrict_tools(selection)
    if options.extensions is not None:
        session.bind_extensions(options.extensions, selection)
    modifiers = _tool_modifiers(options)
    if has_existing and (options.tools is None or modifiers) and options.no_tools is None:
        session.restore_loadout_from_transcript(modifiers)
    session.activate_mcp_discovery()
    return CreateAgentSessionResult(session, fallback, unknown, local_fallback)


def resource_commands(options: CreateAgentSessionOptions) -> list[SlashCommand]:
    """Prompt templates, then every skill (extension commands come first, from the session)."""
    commands = [SlashCommand(t.name, t.description, "prompt", t.file_path, t.argument_hint) for t in options.prompt_templates]
    commands += [SlashCommand(f"skill:{s.name}", s.description, "skill", s.file_path) for s in options.skills]
    return commands


def _level(value: str | None) -> ThinkingLevel | None:
    """A known thinking level, or ``None`` (unknown names in settings or files are ignored)."""
    for level in THINKING_LEVELS:
        if level == value:
            return level
    return None


def _budgets(values: Mapping[str, int] | None) -> ThinkingBudgets | None:
    if not values:
        return None
    known = {level: values[level] for level in ("minimal", "low", "medium", "high") if level in values}
    return ThinkingBudgets(**known) if known else None
