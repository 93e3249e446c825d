"""A TypeScript tool's ``prepareLoadout`` as a Python hook. The session calls hooks while it
puts tools on the agent, synchronously, and Node answers over the pipe, so the hook gives the
last answer at once and asks Node in the background when the loadout changed; a new answer
makes the session put its tools again. Before a run's request the session waits for the
questions in flight (``ExtensionRunner.settle``), so the request carries the current answer."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from pi_coding_agent.customize.extensions import ExtensionRunner, ToolLoadout

Ask = Callable[[dict[str, Any]], Awaitable[Any]]
"""Node's answer for a loadout in its JSON form (raises for a hook that threw)."""


def _tool_json(tool: Any) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def loadout_json(loadout: ToolLoadout) -> dict[str, Any]:
    """What Node rebuilds Pi's ``ToolLoadout`` from: the tool lists, and by tool name the
    exposures, namespaces and prompt guidelines its functions answer with."""
    names = [tool.name for tool in loadout.registered]
    namespaces = {name: group for name in names if (group := loadout.get_namespace(name)) is not None}
    guidelines = {name: list(lines) for name in names if (lines := loadout.get_prompt_guidelines(name))}
    return {
        "declared": [_tool_json(tool) for tool in loadout.declared],
        "callable": [_tool_json(tool) for tool in loadout.callable],
        "registered": [_tool_json(tool) for tool in loadout.registered],
        "exposures": {name: loadout.get_exposure(name) for name in names},
        "namespaces": namespaces,
        "guidelines": guidelines,
    }


class RemoteLoadout:
    """The hook of one TypeScript tool (see the module)."""

    def __init__(self, runner: ExtensionRunner, path: str, ask: Ask) -> None:
        self._runner = runner
        self._path = path
        self._ask = ask
        self._asked: str | None = None
        self._answer: Any = None

    def __call__(self, loadout: ToolLoadout) -> Any:
        payload = loadout_json(loadout)
        key = json.dumps(payload, sort_keys=True, default=str)
        if key != self._asked and self._runner.track(self._fetch(payload, key)):
            self._asked = key
        return self._answer

    async def _fetch(self, payload: dict[str, Any], key: str) -> None:
        try:
            answer = await self._ask(payload)
        except Exception as error:  # the hook threw in Node, or the host went away
            self._runner.report(self._path, "prepare_loadout", error)
            answer = None
        if key != self._asked or answer == self._answer:
            return
        self._answer = answer
        host = self._runner.host
        if host is not None:
            host.refresh_tools()
