"""The session's tools and the system prompt built from them.

Built-in tools come first, then extension tools (an extension tool named like a built-in
replaces it). The run's ``ToolSelection`` (``--tools``, ``--exclude-tools``, ``--no-tools``)
decides which extension tools start enabled; the active ones are put on the agent and the system prompt is rebuilt
from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pi_agent import Agent, AgentTool
from pi_coding_agent.core.settings import ToolSelection
from pi_coding_agent.customize.extensions import ExtensionRunner, ExtensionTool

SystemPromptBuilder = Callable[[Sequence[AgentTool]], str]


class SessionTools:
    def __init__(
        self,
        agent: Agent,
        system_prompt: str,
        rebuild_system_prompt: SystemPromptBuilder | None,
        extensions: Callable[[], ExtensionRunner | None],
    ) -> None:
        self._agent = agent
        self._builtin = list(agent.state.tools)
        self._rebuild = rebuild_system_prompt
        self._extensions = extensions
        self.base_system_prompt = system_prompt
        """The system prompt before ``before_agent_start`` handlers change it for a run."""
        self._selection: ToolSelection | None = None
        self._active = [tool.name for tool in self._builtin]
        self._known = set(self._active)
        agent.state.system_prompt = system_prompt

    def restrict(self, selection: ToolSelection | None) -> None:
        """The run's tool selection, for the extension tools to come."""
        self._selection = selection

    def _allowed(self, name: str) -> bool:
        return self._selection is None or self._selection.allowed(name)

    def all_tools(self) -> list[AgentTool]:
        tools: dict[str, AgentTool] = {tool.name: tool for tool in self._builtin}
        runner = self._extensions()
        if runner is not None:
            for definition, path in runner.tools():
                tools[definition.name] = ExtensionTool(definition, path, runner)
        return list(tools.values())

    def active_tool_names(self) -> list[str]:
        return list(self._active)

    def set_active_tools(self, names: Sequence[str]) -> None:
        known = {tool.name for tool in self.all_tools()}
        self._active = [name for name in dict.fromkeys(names) if name in known]
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
        tools = {tool.name: tool for tool in self.all_tools()}
        self._known = set(tools)
        active = [tools[name] for name in self._active if name in tools]
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
