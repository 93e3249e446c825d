"""The session's tools and the system prompt built from them, recorded as Pi 1.6 records them.

Built-in tools come first, then extension tools (an extension tool named like a built-in
replaces it). The run's ``ToolSelection`` (``--tools``, ``--exclude-tools``, ``--no-tools``)
decides which extension tools start enabled; the active ones are put on the agent and the
system prompt's sections are rebuilt from them.

The transcript carries the prompt and tools the model has (Pi 1.6's ``system`` messages). At the
start of each run, ``system_update`` diffs our sections and tool declarations against what the
context replays to; the difference is the run's first message (``None``: nothing changed), and
the request carries the replayed prompt and tools in the transcript's order. A resumed branch
(or one navigated to) that declares tools gets its active tools back from them (see
docs/pi-1.6/sessions.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_agent import Agent, AgentMessage, AgentTool
from pi_coding_agent.core.messages import (
    SystemMessage,
    current_system_message,
    current_tools,
    system_message_text,
    system_update,
)
from pi_coding_agent.core.settings import ToolSelection, apply_tool_modifiers
from pi_coding_agent.customize.extensions import ExtensionRunner, ExtensionTool, ToolLoadout

SectionsBuilder = Callable[[Sequence[AgentTool]], dict[str, str]]
"""The system prompt's named sections for the given active tools."""


@dataclass(frozen=True)
class SpareTools:
    """The built-in tools the run may have but does not start with, made when first needed: a
    resumed transcript naming them, ``/reload`` turning on tools ``defaultTools`` newly names,
    ``get_all_tools()`` (importing them would cost every start tens of ms)."""

    names: Sequence[str]
    make: Callable[[str], AgentTool]


def tool_declaration(tool: AgentTool) -> dict[str, Any]:
    """What a system message records of a tool (pi-ai's ``toToolDeclaration``)."""
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


class SessionTools:
    def __init__(
        self,
        agent: Agent,
        sections: SectionsBuilder,
        extensions: Callable[[], ExtensionRunner | None],
        spare: SpareTools | None = None,
        *,
        mcp_tools: Callable[[], Sequence[AgentTool]] | None = None,
        mcp_loadable: Callable[[], Sequence[AgentTool]] | None = None,
        mcp_listed: Callable[[], Sequence[AgentTool]] | None = None,
    ) -> None:
        self._agent = agent
        self._mcp_listed = mcp_listed
        """Every tool of the connected MCP servers, whatever its exposure (``listed_tools``)."""
        self._mcp_tools = mcp_tools
        """The ``direct`` tools of the MCP servers connected by now (they come after extension tools)."""
        self._mcp_loadable = mcp_loadable
        """The MCP tools that are declared only once named active (``tool_search`` loaded them,
        or a resumed branch declares them): ``codemode`` and ``deferred`` ones."""
        self._pending: list[str] = []
        """Tools a restored transcript declares that do not exist yet (MCP tools of servers still
        connecting): activated when they appear, as Pi 1.6 does."""
        self.changed = False
        """The active tools were set since the session last looked (``take_changed``)."""
        self.extra_sections: dict[str, str] = {}
        """Sections after ours (the ``mcp_servers`` one), as the last prompt start left them."""
        self._builtin: dict[str, AgentTool | None] = {tool.name: tool for tool in agent.state.tools}
        """Every built-in tool the run may have (Pi 1.6 registers the inactive ones too), by name;
        ``None``: a spare one not made yet."""
        for name in spare.names if spare is not None else ():
            self._builtin.setdefault(name, None)
        self._make_spare = spare.make if spare is not None else None
        self._sections = sections
        self._extensions = extensions
        self._selection: ToolSelection | None = None
        self._active = [tool.name for tool in agent.state.tools]
        self._known = set(self._active)
        self.prompt_sections: dict[str, str] = {}
        """The sections of our prompt for the active tools."""
        self.base_system_prompt = ""
        """Our prompt as text, before ``before_agent_start`` handlers change it for a run."""
        self._callable: list[AgentTool] = []
        self.namespace_of: Callable[[str], dict[str, Any] | None] = self.extension_namespace
        """A tool's group by name (the session adds MCP servers'), for ``prepare_loadout`` hooks."""
        self.hidden: frozenset[str] = frozenset()
        """Active tools whose declarations requests leave out (``prepare_loadout`` hooks,
        codemode's ``only`` mode): the transcript declares them, as Pi 1.6's does."""
        self._declared: list[AgentTool] = []
        self._built = False
        """Set once the session is built (the extensions are there to ask)."""
        self._put_on_agent(list(agent.state.tools))
        self._built = True

    def restrict(self, selection: ToolSelection | None) -> None:
        """The run's tool selection, for the extension tools to come. The tools registered by
        now start in the selection's order (``--tools probe,read``: the extension tool first)."""
        self._selection = selection
        if selection is not None:
            active = set(self._active)
            registered = [name for name in self._known_names() if name in active or name not in self._builtin]
            hidden = {name for name, exposure in self._extension_exposures().items() if exposure == "hidden"}
            self._active = [name for name in selection.active(registered) if name not in hidden]

    def _allowed(self, name: str) -> bool:
        return self._selection is None or self._selection.allowed(name)

    def _builtin_tool(self, name: str) -> AgentTool | None:
        tool = self._builtin.get(name)
        if tool is None and name in self._builtin and self._make_spare is not None:
            tool = self._builtin[name] = self._make_spare(name)
        return tool

    def _tools_named(self, names: Sequence[str]) -> dict[str, AgentTool]:
        """The tools of these names that exist (an extension tool replaces a built-in one)."""
        tools: dict[str, AgentTool] = {}
        wanted = set(names)
        for name in self._builtin:
            tool = self._builtin_tool(name) if name in wanted else None
            if tool is not None:
                tools[name] = tool
        runner = self._extensions()
        if runner is not None:
            for definition, path in runner.tools():
                if definition.name in wanted:
                    tools[definition.name] = ExtensionTool(definition, path, runner)
        for tool in self._mcp_tools() if self._mcp_tools is not None else ():
            if tool.name in wanted and tool.name not in tools:
                tools[tool.name] = tool
        for tool in self._mcp_loadable() if self._mcp_loadable is not None else ():
            if tool.name in wanted and tool.name not in tools:
                tools[tool.name] = tool
        return tools

    def use_mcp(
        self,
        tools: Callable[[], Sequence[AgentTool]],
        loadable: Callable[[], Sequence[AgentTool]],
        listed: Callable[[], Sequence[AgentTool]] | None = None,
    ) -> None:
        """MCP servers that came after the session was built: their ``direct`` tools, the ones
        that are declared only once active and all of them, as the constructor's ``mcp_*``."""
        self._mcp_tools, self._mcp_loadable, self._mcp_listed = tools, loadable, listed

    def _loadable_names(self) -> list[str]:
        return [tool.name for tool in self._mcp_loadable()] if self._mcp_loadable is not None else []

    def _extension_exposures(self) -> dict[str, str]:
        runner = self._extensions()
        return {definition.name: definition.exposure for definition, _ in runner.tools()} if runner is not None else {}

    def _joins_active(self, name: str) -> bool:
        """Whether an extension tool becomes active on its own: ``direct`` and ``model-only``
        ones unless ``default_active`` is false (Pi 1.6); MCP tools always."""
        runner = self._extensions()
        for definition, _ in runner.tools() if runner is not None else ():
            if definition.name == name:
                return definition.starts_active()
        return True

    def indirect_extension_tools(self) -> list[AgentTool]:
        """Extension tools with ``codemode`` or ``deferred`` exposure, active or not: callable
        from ``codemode`` scripts, found by ``tool_search``."""
        runner = self._extensions()
        if runner is None:
            return []
        return [
            ExtensionTool(definition, path, runner)
            for definition, path in runner.tools()
            if definition.exposure in ("codemode", "deferred") and self._allowed(definition.name)
        ]

    def _extension_names(self) -> list[str]:
        """Extension tools, then MCP tools: the tools that join while the session runs."""
        runner = self._extensions()
        names = [definition.name for definition, _ in runner.tools()] if runner is not None else []
        return names + [tool.name for tool in self._mcp_tools()] if self._mcp_tools is not None else names

    def _known_names(self) -> list[str]:
        """Built-in tool names, then extension tool names, in registration order."""
        return list(dict.fromkeys([*self._builtin, *self._extension_names()]))

    def all_tools(self) -> list[AgentTool]:
        return list(self._tools_named(self._known_names()).values())

    def listed_tools(self) -> list[AgentTool]:
        """What ``get_all_tools()`` lists, as Pi 1.6's ``getAllTools()``: built-in and extension
        tools, then every MCP tool whatever its exposure (Pi's MCP support registers them all)."""
        if self._mcp_listed is None:
            return self.all_tools()
        runner = self._extensions()
        own = [definition.name for definition, _ in runner.tools()] if runner is not None else []
        tools = self._tools_named(list(dict.fromkeys([*self._builtin, *own])))
        for tool in self._mcp_listed():
            tools.setdefault(tool.name, tool)
        return list(tools.values())

    def active_tool_names(self) -> list[str]:
        return list(self._active)

    def set_active_tools(self, names: Sequence[str]) -> None:
        known = {*self._known_names(), *self._loadable_names()}
        hidden = {name for name, exposure in self._extension_exposures().items() if exposure == "hidden"}
        self._active = [name for name in dict.fromkeys(names) if name in known and name not in hidden]
        self.changed = True
        self.refresh()

    def has_tool(self, name: str) -> bool:
        """Whether the run has a tool of this name (active or not)."""
        return name in self._known_names()

    def take_changed(self) -> bool:
        changed, self.changed = self.changed, False
        return changed

    def activate_after_reload(self, names: Sequence[str]) -> None:
        """``names``, then every extension tool the run allows, even one turned off before."""
        self.set_active_tools(
            [*names, *(name for name in self._extension_names() if self._allowed(name) and self._joins_active(name))]
        )

    def restore_from_transcript(self, messages: Sequence[AgentMessage], modifiers: Sequence[str] = ()) -> None:
        """Activate the tools the branch's ``system`` messages declare, if any (Pi 1.6 restores
        the loadout on resume and navigation): the declared tools we have, then extension tools
        the branch never mentions, with ``modifiers`` (``+name`` / ``-name``) applied on top.
        ``messages``: the branch's context."""
        declared = [message for message in messages if isinstance(message, SystemMessage)]
        if not declared:
            return
        mentioned = {
            str(tool.get("name")) for message in declared for tool in (*(message.tools_added or ()), *(message.tools_removed or ()))
        }
        newcomers = [
            name
            for name in self._extension_names()
            if name not in mentioned and name not in self._builtin and self._joins_active(name)
        ]
        names = [str(tool.get("name")) for tool in current_tools(declared)] + [n for n in newcomers if self._allowed(n)]
        names = [name for name in apply_tool_modifiers(names, modifiers) if self._allowed(name)]
        known = {*self._known_names(), *self._loadable_names()}
        self._pending = [name for name in names if name not in known]
        self.set_active_tools(names)

    def refresh(self) -> None:
        """Put the active tools on the agent and rebuild the prompt's sections from them; extension
        tools not seen before join the active ones when allowed."""
        for name in self._extension_names():
            if name not in self._known and self._allowed(name) and name not in self._active and self._joins_active(name):
                self._active.append(name)
        if self._pending:
            present = {*self._known_names(), *self._loadable_names()}
            self._active += [name for name in self._pending if name in present and name not in self._active]
            self._pending = [name for name in self._pending if name not in present]
        self._known = set(self._known_names())
        tools = self._tools_named(self._active)
        self._put_on_agent([tools[name] for name in self._active if name in tools])

    def callable_tools(self) -> list[AgentTool]:
        """The active tools as they are (before codemode's loadout rewords or hides them) but
        ``model-only`` ones, and the inactive ``codemode``/``deferred`` extension tools, in
        registration order: what ``codemode`` scripts may call."""
        active = [tool for tool in self._callable if getattr(tool, "exposure", "direct") != "model-only"]
        names = {tool.name for tool in active}
        tools = active + [tool for tool in self.indirect_extension_tools() if tool.name not in names]
        order = {name: index for index, name in enumerate(self._known_names())}
        return sorted(tools, key=lambda tool: order.get(tool.name, len(order)))  # registration order, as Pi 1.6

    def extension_namespace(self, name: str) -> dict[str, Any] | None:
        """An extension tool's own ``namespace`` when it is a dict with a string ``name``."""
        runner = self._extensions()
        for definition, _ in runner.tools() if runner is not None else ():
            if definition.name == name:
                group = definition.namespace
                return dict(group) if isinstance(group, dict) and isinstance(group.get("name"), str) else None
        return None

    def reaching(self, name: str) -> tuple[Callable[[dict[str, Any]], Any], str] | None:
        """An extension tool's ``reaches_tools`` and its extension's path, when it declares one."""
        runner = self._extensions()
        for definition, path in runner.tools() if runner is not None else ():
            if definition.name == name:
                return (definition.reaches_tools, path) if definition.reaches_tools is not None else None
        return None

    def declares_reach(self, name: str) -> bool:
        """Whether the run's tool of this name says which tools it reaches (Pi 1.6 turns
        ``codemode``/``tool_search`` on for MCP servers only then: an extension's replacement
        without ``reaches_tools`` is left off)."""
        tool = self._tools_named([name]).get(name)
        return tool is not None and callable(getattr(tool, "reaches_tools", None))

    def _loadout(self, active: list[AgentTool], callable_tools: list[AgentTool]) -> ToolLoadout:
        """What ``prepare_loadout`` hooks see: the MCP tools not declared count as callable and registered."""
        loadable = list(self._mcp_loadable()) if self._mcp_loadable is not None else []
        names = {tool.name for tool in callable_tools}
        registered = self.all_tools()
        known = {tool.name for tool in registered}
        every = {tool.name: tool for tool in [*registered, *loadable]}

        def guidelines(name: str) -> list[str]:
            return list(getattr(every.get(name), "prompt_guidelines", ()) or ())

        return ToolLoadout(
            declared=tuple(active),
            callable=(*callable_tools, *(tool for tool in loadable if tool.name not in names)),
            registered=(*registered, *(tool for tool in loadable if tool.name not in known)),
            get_exposure=lambda name: _exposure(every.get(name)),
            get_namespace=self.namespace_of,
            get_prompt_guidelines=guidelines,
        )

    def _hook_changes(self, active: list[AgentTool], callable_tools: list[AgentTool]) -> tuple[dict[str, str], set[str]]:
        """What the ``prepare_loadout`` hooks of active extension tools change (Pi 1.6): new
        descriptions by tool name, and the declarations requests leave out. The hooks see the
        active tools as they are. A failing hook is reported as an extension error and changes
        nothing."""
        descriptions: dict[str, str] = {}
        hidden: set[str] = set()
        hooks = [tool for tool in active if callable(getattr(tool, "loadout_hook", None))]
        if not hooks:
            return descriptions, hidden
        loadout = self._loadout(active, callable_tools)
        runner = self._extensions()
        for tool in hooks:
            try:
                changes = tool.loadout_hook(loadout)  # type: ignore[attr-defined]
                found, left_out = _loadout_changes(changes)
            except Exception as error:  # an extension's hook must not break the session
                if runner is not None:
                    runner.report(getattr(tool, "extension_path", tool.name), "prepare_loadout", error)
                continue
            descriptions.update(found)
            hidden.update(left_out)
        return descriptions, hidden

    def _put_on_agent(self, active: list[AgentTool]) -> None:
        """The active tools with the descriptions the loadout hooks give them are what the
        transcript declares (``_declared``); the agent gets them without the hidden ones, and the
        prompt's sections leave those out too (Pi 1.6)."""
        self._callable = list(active)
        callable_tools = self.callable_tools() if self._built else active
        declared, hidden = _codemode_loadout(active, callable_tools)
        descriptions, more_hidden = self._hook_changes(active, callable_tools)
        declared = [tool if tool.name not in descriptions else _redescribed(tool, descriptions[tool.name]) for tool in declared]
        self.hidden = frozenset(hidden | more_hidden)
        self._declared = declared
        shown = [tool for tool in declared if tool.name not in self.hidden]
        self._agent.state.tools = shown
        self.prompt_sections = {**self._sections(shown), **self.extra_sections}
        self.base_system_prompt = "\n\n".join(text for text in self.prompt_sections.values() if text)
        self._agent.state.system_prompt = self.base_system_prompt

    def system_update(self, messages: Sequence[AgentMessage]) -> SystemMessage | None:
        """The system message that brings the context's prompt and tools to ours (``None``: they
        are ours already)."""
        tools = [tool_declaration(tool) for tool in self._declared]
        return system_update(messages, self.prompt_sections, tools, int(time.time() * 1000))

    def use_transcript(self, messages: Sequence[AgentMessage]) -> None:
        """Give the agent the prompt and tools the messages replay to, in their order (what Pi
        1.6 sends to APIs without mid-conversation system messages)."""
        state = current_system_message(messages)
        if state is None:
            return
        self._agent.state.system_prompt = system_message_text(state)
        order = {str(tool.get("name")): index for index, tool in enumerate(state.tools_added or ())}
        self._agent.state.tools = sorted(self._agent.state.tools, key=lambda tool: order.get(tool.name, len(order)))

    def system_prompt_options(self, cwd: str) -> dict[str, Any]:
        """What ``before_agent_start`` handlers get to rebuild the system prompt with."""
        tools = self._agent.state.tools
        return {
            "cwd": cwd,
            "selected_tools": self.active_tool_names(),
            "tool_snippets": {
                tool.name: getattr(tool, "prompt_snippet", None) for tool in tools if getattr(tool, "prompt_snippet", None)
            },
            "prompt_guidelines": [line for tool in tools for line in getattr(tool, "prompt_guidelines", ()) or ()],
        }


def _codemode_loadout(active: list[AgentTool], callable_tools: list[AgentTool]) -> tuple[list[AgentTool], set[str]]:
    """The active tools as declared while ``codemode`` is active (its ``prepare_loadout``): new
    descriptions for some tools, and in ``only`` mode the tools scripts call are hidden from the
    requests (they stay active, declared in the transcript, and callable from scripts)."""
    codemode = next((tool for tool in active if tool.name == "codemode" and hasattr(tool, "prepare_loadout")), None)
    if codemode is None:
        return active, set()
    loadout = codemode.prepare_loadout(active, callable_tools)
    declared: list[AgentTool] = []
    for tool in active:
        text = loadout.descriptions.get(tool.name)
        declared.append(tool if text is None or tool is codemode else _redescribed(tool, text))
    return declared, set(loadout.hidden)


def _exposure(tool: AgentTool | None) -> str:
    """A tool's exposure: its own, an MCP tool's configured one, else ``direct``."""
    own = getattr(tool, "exposure", None)
    if isinstance(own, str):
        return own
    configured = getattr(getattr(tool, "info", None), "exposure", None)
    return configured if isinstance(configured, str) else "direct"


def _loadout_changes(changes: Any) -> tuple[dict[str, str], list[str]]:
    """A hook's answer: ``None``, or a dict with ``descriptions`` (name to text) and
    ``hidden_declarations`` (``hiddenDeclarations`` also read); anything else is an error."""
    if changes is None:
        return {}, []
    if not isinstance(changes, dict):
        raise TypeError(f"prepare_loadout returned {type(changes).__name__}, not a dict or None")
    descriptions = changes.get("descriptions") or {}
    hidden = changes.get("hidden_declarations", changes.get("hiddenDeclarations")) or []
    if not isinstance(descriptions, dict) or not all(isinstance(v, str) for v in descriptions.values()):
        raise TypeError("prepare_loadout: descriptions must map tool names to strings")
    if not isinstance(hidden, (list, tuple)) or not all(isinstance(name, str) for name in hidden):
        raise TypeError("prepare_loadout: hidden_declarations must be a list of tool names")
    return {str(k): v for k, v in descriptions.items()}, list(hidden)


def _redescribed(tool: AgentTool, description: str) -> AgentTool:
    """A shallow copy of ``tool`` with another description (its state is shared)."""
    import copy

    clone = copy.copy(tool)
    try:
        clone.description = description
    except AttributeError:  # a computed description: keep the tool as it is
        return tool
    return clone
