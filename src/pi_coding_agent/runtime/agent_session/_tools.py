"""The session's tools and the system prompt built from them.

Built-in tools come first, then extension tools (an extension tool named like a built-in
replaces it). The run's ``ToolSelection`` (``--tools``, ``--exclude-tools``, ``--no-tools``)
decides which extension tools start enabled; the active ones are put on the agent and the system prompt is rebuilt
from them.

A branch written by Pi 1.6 declares its prompt and tools in ``system`` messages. Resumed (or
navigated to), it keeps them: the replayed prompt is sent as is, and the active tools are the
declared ones we have, each sent with its recorded declaration (``DeclaredTool``), until the
session changes its tools itself (see docs/pi-1.6/sessions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pi_agent import Agent, AgentMessage, AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal
from pi_coding_agent.core.messages import current_system_message, system_message_text
from pi_coding_agent.core.settings import ToolSelection
from pi_coding_agent.customize.extensions import ExtensionRunner, ExtensionTool

SystemPromptBuilder = Callable[[Sequence[AgentTool]], str]
BuiltinToolFactory = Callable[[str], AgentTool]
"""Creates the built-in tool of a name; inactive built-in tools are created when first needed."""


class DeclaredTool(AgentTool):
    """One of our tools sent to the model as a session's transcript declared it."""

    def __init__(self, tool: AgentTool, declaration: dict[str, Any]) -> None:
        self.inner = tool
        self.name = tool.name
        self.label = getattr(tool, "label", tool.name)
        description = declaration.get("description")
        parameters = declaration.get("parameters")
        self.description = description if isinstance(description, str) else tool.description
        self.parameters = parameters if isinstance(parameters, dict) else tool.parameters
        self.execution_mode = tool.execution_mode
        self.replay = tool.replay

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def prepare_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.inner.prepare_arguments(arguments)

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        return await self.inner.execute(tool_call_id, params, signal, on_update)


class SessionTools:
    def __init__(
        self,
        agent: Agent,
        system_prompt: str,
        rebuild_system_prompt: SystemPromptBuilder | None,
        extensions: Callable[[], ExtensionRunner | None],
        *,
        builtin_names: Sequence[str] = (),
        create_builtin: BuiltinToolFactory | None = None,
    ) -> None:
        self._agent = agent
        self._builtin: dict[str, AgentTool | None] = {tool.name: tool for tool in agent.state.tools}
        """Every built-in tool the run may have (Pi 1.6 registers the inactive ones too), by name;
        ``None``: not created yet."""
        for name in builtin_names:
            self._builtin.setdefault(name, None)
        self._create_builtin = create_builtin
        self._rebuild = rebuild_system_prompt
        self._extensions = extensions
        self.base_system_prompt = system_prompt
        """The system prompt before ``before_agent_start`` handlers change it for a run."""
        self._selection: ToolSelection | None = None
        self._active = [tool.name for tool in agent.state.tools]
        self._known = set(self._active)
        self._declared: dict[str, dict[str, Any]] | None = None
        """Tool declarations and prompt a resumed Pi 1.6 branch recorded (``None``: ours)."""
        self._declared_prompt = ""
        agent.state.system_prompt = system_prompt

    def restrict(self, selection: ToolSelection | None) -> None:
        """The run's tool selection, for the extension tools to come. The tools registered by
        now start in the selection's order (``--tools probe,read``: the extension tool first)."""
        self._selection = selection
        if selection is not None:
            active = set(self._active)
            registered = [name for name in self._known_names() if name in active or name not in self._builtin]
            self._active = selection.active(registered)

    def _allowed(self, name: str) -> bool:
        return self._selection is None or self._selection.allowed(name)

    def _builtin_tool(self, name: str) -> AgentTool | None:
        tool = self._builtin.get(name)
        if tool is None and name in self._builtin and self._create_builtin is not None:
            tool = self._builtin[name] = self._create_builtin(name)
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
        return tools

    def _known_names(self) -> list[str]:
        """Built-in tool names, then extension tool names, in registration order."""
        runner = self._extensions()
        extension_names = [definition.name for definition, _ in runner.tools()] if runner is not None else []
        return list(dict.fromkeys([*self._builtin, *extension_names]))

    def all_tools(self) -> list[AgentTool]:
        return list(self._tools_named(self._known_names()).values())

    def active_tool_names(self) -> list[str]:
        return list(self._active)

    def set_active_tools(self, names: Sequence[str]) -> None:
        known = set(self._known_names())
        self._active = [name for name in dict.fromkeys(names) if name in known]
        self._declared = None
        self.refresh()

    def activate_after_reload(self, names: Sequence[str]) -> None:
        """``names``, then every extension tool the run allows, even one turned off before."""
        runner = self._extensions()
        extension_names = [definition.name for definition, _ in runner.tools()] if runner is not None else []
        self.set_active_tools([*names, *(name for name in extension_names if self._allowed(name))])

    def restore_from_transcript(self, messages: Sequence[AgentMessage]) -> None:
        """Take the prompt and tools the context's ``system`` messages declare, if any (Pi 1.6
        restores the branch's loadout on resume and navigation); otherwise keep ours."""
        state = current_system_message(messages)
        if state is None:
            if self._declared is not None:
                self._declared = None
                self.refresh()
            return
        known = set(self._known_names())
        declared = {str(tool["name"]): tool for tool in state.tools_added or () if tool.get("name") in known}
        self._known = known
        self._active = list(declared)
        self._declared = declared
        self._declared_prompt = system_message_text(state)
        self.refresh()

    def refresh(self) -> None:
        """Put the active tools on the agent and rebuild the system prompt from them; extension
        tools not seen before join the active ones when allowed."""
        runner = self._extensions()
        if runner is not None:
            for definition, _ in runner.tools():
                name = definition.name
                if name not in self._known and self._allowed(name) and name not in self._active:
                    self._active.append(name)
        self._known = set(self._known_names())
        tools = self._tools_named(self._active)
        active = [tools[name] for name in self._active if name in tools]
        declared = self._declared
        if declared is not None:
            self._agent.state.tools = [
                DeclaredTool(tool, declared[tool.name]) if tool.name in declared else tool for tool in active
            ]
            self.base_system_prompt = self._declared_prompt
            self._agent.state.system_prompt = self.base_system_prompt
            return
        self._agent.state.tools = active
        if self._rebuild is not None:
            self.base_system_prompt = self._rebuild(active)
            self._agent.state.system_prompt = self.base_system_prompt

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
