"""Our tools against answers recorded from Pi 0.85's own tools (``tools/gen_pi_tool_outputs.py``).

Each case rebuilds the same directory, runs our tool with the same arguments, normalizes
the answer the same way and must equal Pi's. ``grep`` and ``find`` run twice: through
rg/fd and through the pure-Python fallback, against the same recorded answer.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_ai import AbortController, to_builtins
from pi_coding_agent.core.tools import ToolsOptions, create_tool
from pi_coding_agent.core.tools._external import ExternalTool, find_executable
from tests.pi_coding_agent.core.tools.pi_fixtures import build, normalize

OUTPUTS = Path(__file__).parent / "pi_outputs"
CASES = sorted(OUTPUTS.glob("*.json"))


def _params() -> list[Any]:
    params = []
    for path in CASES:
        data = json.loads(path.read_text("utf-8"))
        tool = data["case"]["tool"]
        backends = ["external", "python"] if tool in ("grep", "find") else ["builtin"]
        for backend in backends:
            params.append(pytest.param(path, backend, id=f"{path.stem}[{backend}]"))
    return params


def require_external(tool: str) -> None:
    """rg comes with the dev extra; fd is a Debian package (``fd-find``) that CI must install.

    Missing locally: skipped with the reason. Missing in CI (``CI`` set): a failure.
    """
    name: ExternalTool = "rg" if tool == "grep" else "fd"
    if find_executable(name) is not None:
        return
    package = "ripgrep (pip, dev extra)" if name == "rg" else "fd-find (apt-get install fd-find)"
    message = f"{name} is not installed: install {package} to test this path"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


async def _run(case: dict[str, Any], cwd: Path, backend: str) -> dict[str, Any]:
    options = ToolsOptions(
        search_backend="python" if backend == "python" else "external" if backend == "external" else "auto"
    )
    if "ctx" in case:
        accepts = "image" in case["ctx"]["model"]["input"]
        options.image_support = lambda: accepts
    tool = create_tool(case["tool"], str(cwd), options)
    args = tool.prepare_arguments(json.loads(json.dumps(case["args"])))
    controller = AbortController()
    if "abortAfterMs" in case:
        asyncio.get_running_loop().call_later(case["abortAfterMs"] / 1000, controller.abort)
    try:
        result = await tool.execute("call_1", args, controller.signal, None)
    except Exception as error:
        return {"error": str(error)}
    answer: dict[str, Any] = {"content": to_builtins(result.content)}
    if result.details is not None:
        answer["details"] = result.details
    return {"result": answer}


@pytest.mark.parametrize(("path", "backend"), _params())
async def test_matches_pi(path: Path, backend: str, tmp_path: Path) -> None:
    case, expected, root, cwd = _prepare(path, tmp_path)
    if backend == "external":
        require_external(case["tool"])
    ours = normalize(case, await _run(case, cwd, backend), root)
    assert ours == expected


def _prepare(path: Path, tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any], Path, Path]:
    data = json.loads(path.read_text("utf-8"))
    root = tmp_path.resolve()
    return data["case"], data["pi"], root, build(data["case"], root)


def test_every_tool_has_recorded_cases() -> None:
    tools = {json.loads(p.read_text("utf-8"))["case"]["tool"] for p in CASES}
    assert tools == {"read", "write", "edit", "bash", "grep", "find", "ls"}
