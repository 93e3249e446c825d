"""Runs the scenario of ``scenario.py`` with our ``RpcClient``, producing the log ``pi_driver.mjs`` does.

Method names are turned from Pi's camelCase into ours; where our client returns a plain
value and Pi's an object (``exportHtml`` gives ``{path}``, ``cycleThinkingLevel`` gives
``{level}``), the result is recorded in Pi's shape so the two logs compare directly.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from pi_coding_agent.app.rpc import RpcClient, RpcError

_PI_SHAPES = {
    "exportHtml": lambda value: {"path": value},
    "cycleThinkingLevel": lambda value: None if value is None else {"level": value},
}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _resolve(value: Any, named: dict[str, Any]) -> Any:
    if isinstance(value, list):
        return [_resolve(item, named) for item in value]
    if isinstance(value, dict) and "$ref" in value:
        name, *path = value["$ref"]
        found = named[name]
        for key in path:
            found = found[key]
        return found
    return value


async def _outcome(call: Any) -> dict[str, Any]:
    try:
        return {"result": await call}
    except RpcError as error:
        return {"error": error.message}


async def run_scenario(client: RpcClient, steps: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``{"stream": every line the agent wrote, in order, "results": what each call returned}``."""
    stream: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    arrived = asyncio.Event()

    def record(message: dict[str, Any]) -> None:
        stream.append(message)
        arrived.set()

    client.on_message(record)
    named: dict[str, Any] = {}
    running: dict[str, asyncio.Task[dict[str, Any]]] = {}
    mark = 0

    async def wait_for(kind: str, since: int) -> None:
        async with asyncio.timeout(30):
            while not any(item.get("type") == kind for item in stream[since:]):
                arrived.clear()
                await arrived.wait()

    for index, step in enumerate(steps):
        if "call" in step:
            mark = len(stream)
            method = getattr(client, snake(step["call"]))
            call = method(*_resolve(step.get("args", []), named))
            if step.get("async"):
                running[step["as"]] = asyncio.ensure_future(_outcome(call))
                await asyncio.sleep(0)
                continue
            done = await _outcome(call)
            if "result" in done and step["call"] in _PI_SHAPES:
                done["result"] = _PI_SHAPES[step["call"]](done["result"])
            if "as" in step:
                named[step["as"]] = done.get("result")
            results.append({"step": index, "call": step["call"], **done})
        elif "await" in step:
            done = await running[step["await"]]
            results.append({"step": index, "call": step["await"], **done})
        elif "send" in step:
            mark = len(stream)
            response = await client.send(step["send"])
            results.append({"step": index, "send": step["send"]["type"], "response": response})
        elif "raw" in step:
            mark = len(stream)
            await client.write_raw(step["raw"])
            await wait_for("response", mark)
            results.append({"step": index, "raw": True})
        elif "waitFor" in step:
            await wait_for(step["waitFor"], mark)
    return {"stream": stream, "results": results}
