"""How MCP tools that are not declared reach the model, through our ``pi`` and Pi 1.6's, for the
same ``mcp.json`` and scripted provider: ``deferred`` servers through ``tool_search`` (turned on
by the configuration; a search declares the matches from the next call on), the ``mcp_servers``
section of the system prompt, ``codemode`` turned on by a ``codemode`` server (not with
``autoEnableCodemode: false``), and a Pi 1.6 session whose loaded tools are declared again when
resumed here. The tool descriptions, the section's first line and ``tool_search``'s result
sentence are in our words; the rest is compared as it is."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, REPO, Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.usefixtures("forked_mcp_servers")  # several stdio starts of the probe

SEARCH = [
    {"tool_calls": [{"id": "call_1", "name": "tool_search", "arguments": {"query": "add integers"}}]},
    {"tool_calls": [{"id": "call_2", "name": "mcp__probe__add", "arguments": {"a": 2, "b": 3}}]},
    {"text": "done"},
]
RESUMED = [*SEARCH, {"tool_calls": [{"id": "call_3", "name": "mcp__probe__add", "arguments": {"a": 1, "b": 1}}]}, {"text": "again"}]  # fmt: skip


def mcp_json(exposure: str, **top: Any) -> dict[str, Any]:
    server = {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_server"],
        "cwd": str(REPO),
        "exposure": exposure,
        "description": "Arithmetic and echo probes\nnot this line",
        "toolExposure": {"pid": "hidden", "long_*": "hidden"},
    }
    return {"mcpServers": {"probe": server, "off": {**server, "enabled": False}}, **top}


def _run(
    root: Path, program: str, script: list[dict[str, Any]], config: dict[str, Any], *args: str
) -> list[dict[str, Any]]:
    with ScriptedProvider(script) as provider:
        sandbox = (
            Sandbox.create(root, provider.base_url) if not root.exists() else _reuse(root, provider.base_url)
        )
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
        full = ("--model", OPENAI_MODEL, *args)
        done = run_pi(sandbox, *full, current=True) if program == "pi" else run_ours(sandbox, *full)
        assert done.returncode == 0, (program, done.stderr)
        return [request["body"] for request in provider.requests]


def _reuse(root: Path, base_url: str) -> Sandbox:
    from tests.support.scripted_provider import models_json

    sandbox = Sandbox(root, root / "home", root / "home" / ".pi" / "agent", root / "work")
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models_json(base_url)), encoding="utf-8")
    return sandbox


def _names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _section(body: dict[str, Any]) -> list[str]:
    """The ``mcp_servers`` section's server lines (its first line is in our words)."""
    prompt = body["messages"][0]["content"]
    start = prompt.index("<mcp_servers>\n")
    return prompt[start : prompt.index("</mcp_servers>")].splitlines()[2:]


def _results(body: dict[str, Any]) -> list[str]:
    """Tool results; ``tool_search``'s keeps only its tool lines (its sentence is ours)."""
    return [
        "\n".join(line for line in m["content"].splitlines() if line.startswith("- ")) or m["content"]
        for m in body["messages"]
        if m["role"] == "tool"
    ]


def test_deferred_tools_load_through_tool_search_as_in_pi_1_6(tmp_path: Path) -> None:
    """Deferred server: ``tool_search`` is turned on, the section lists the server with its
    description's first line, a search loads the matches (declared from the next request on, in
    Pi's order and declarations), and a loaded tool is called. Then each side resumes Pi 1.6's
    session: the loaded tools are declared again once their server connects."""
    bodies = {}
    for program in ("pi", "ours"):
        bodies[program] = _run(tmp_path / program, program, SEARCH, mcp_json("deferred"), "--session", str(tmp_path / f"{program}.jsonl"), "-p", "go")  # fmt: skip
    ours, pi = bodies["ours"], bodies["pi"]
    assert [_names(b) for b in ours] == [_names(b) for b in pi]
    assert _names(ours[0])[-1] == "tool_search" and _names(ours[1])[-2:] == [
        "mcp__probe__add",
        "mcp__probe__grow",
    ]
    search = next(t["function"] for t in ours[0]["tools"] if t["function"]["name"] == "tool_search")
    theirs = next(t["function"] for t in pi[0]["tools"] if t["function"]["name"] == "tool_search")
    assert list(search["parameters"]["properties"]) == list(theirs["parameters"]["properties"])
    assert search["parameters"]["required"] == theirs["parameters"]["required"] == ["query"]
    assert [t for t in ours[2]["tools"] if t["function"]["name"].startswith("mcp__")] == [
        t for t in pi[2]["tools"] if t["function"]["name"].startswith("mcp__")
    ]
    assert _section(ours[0]) == _section(pi[0]) == ["- mcp__probe (tool_search): Arithmetic and echo probes"]
    assert _results(ours[2]) == _results(pi[2])
    assert _results(ours[2])[1] == "5"

    # Pi 1.6's session, resumed by each side (a copy each). One ``direct`` tool makes the first
    # prompt wait for the server, so the tools the session loaded are there for its first request.
    config = mcp_json("deferred")
    config["mcpServers"]["probe"]["toolExposure"]["echo"] = "direct"
    resumed = {}
    for program in ("pi", "ours"):
        session = tmp_path / f"resume-{program}.jsonl"
        shutil.copy(tmp_path / "pi.jsonl", session)
        resumed[program] = _run(tmp_path / f"resume-{program}", program, RESUMED, config, "--session", str(session), "-p", "again")  # fmt: skip
    # Our built-in tools are described in our words, so resuming redeclares them after the MCP
    # tools: the order differs, the set and the MCP declarations do not.
    assert [sorted(_names(b)) for b in resumed["ours"]] == [sorted(_names(b)) for b in resumed["pi"]]
    first = [t for t in resumed["ours"][0]["tools"] if t["function"]["name"].startswith("mcp__")]
    assert sorted(t["function"]["name"] for t in first) == [
        "mcp__probe__add",
        "mcp__probe__echo",
        "mcp__probe__grow",
    ]
    assert sorted(first, key=str) == sorted(
        (t for t in resumed["pi"][0]["tools"] if t["function"]["name"].startswith("mcp__")), key=str
    )
    assert _results(resumed["ours"][-1]) == _results(resumed["pi"][-1])


CODE = """const r = await tools.mcp__probe__add({a: 2, b: 3});
const found = (await searchTools("add integers")).map((tool) => tool.name);
const space = await describeNamespace("probe");
return {sum: r.content[0].text, found, space};"""
CODEMODE = [{"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": CODE}}]}, {"text": "done"}]


def _codemode_case(tmp_path: Path, job: tuple[str, bool]) -> list[dict[str, Any]]:
    program, auto = job
    config = mcp_json("codemode") if auto else mcp_json("codemode", autoEnableCodemode=False)
    script = CODEMODE if auto else [{"text": "done"}]
    return _run(tmp_path / f"{program}-{auto}", program, script, config, "--no-session", "-p", "go")


def test_codemode_turns_on_for_a_codemode_server_as_in_pi_1_6(tmp_path: Path) -> None:
    """A ``codemode`` server turns ``codemode`` on without ``--tools`` (and a script calls its
    tool); with ``"autoEnableCodemode": false`` it stays off. The section says how the server
    is reached either way."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(program, auto) for auto in (True, False) for program in ("pi", "ours")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(jobs, pool.map(lambda job: _codemode_case(tmp_path, job), jobs), strict=True))
    for auto in (True, False):
        ours, pi = runs["ours", auto], runs["pi", auto]
        assert [_names(b) for b in ours] == [_names(b) for b in pi]
        assert _section(ours[0]) == _section(pi[0]) == ["- mcp__probe (codemode): Arithmetic and echo probes"]
    assert _names(runs["ours", True][0]) == ["read", "bash", "edit", "write", "codemode"]
    assert _names(runs["ours", False][0]) == ["read", "bash", "edit", "write"]
    result = [m["content"] for m in runs["ours", True][1]["messages"] if m["role"] == "tool"]
    expected = [m["content"] for m in runs["pi", True][1]["messages"] if m["role"] == "tool"]
    strip = re.compile(r"Wall time [\d.]+ seconds")
    assert [strip.sub("", text) for text in result] == [strip.sub("", text) for text in expected]
    assert '"sum":"5","found":["mcp__probe__add","mcp__probe__grow"' in result[0]
