"""MCP tools through both command lines: the same ``mcp.json`` (an SDK-built server on stdio,
``direct`` exposure with one tool ``hidden``) and the same scripted provider, run through our
``pi`` and Pi 1.6's. The tools offered in the first request and the tool results the model gets
back (text, an image, an ``isError`` result) must be the same."""

from __future__ import annotations

import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, REPO, Sandbox, run_ours, run_pi
from tests.support.mcp_reference import time_server
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.usefixtures("forked_mcp_servers")  # several stdio starts of the probe

SCRIPT = [
    {
        "tool_calls": [
            {"id": "call_1", "name": "mcp__probe__add", "arguments": {"a": 2, "b": 40}},
            {"id": "call_2", "name": "mcp__probe__picture", "arguments": {}},
            {"id": "call_3", "name": "mcp__probe__fail", "arguments": {"reason": "on purpose"}},
            {"id": "call_4", "name": "mcp__probe__dash_name", "arguments": {}},
            {"id": "call_5", "name": "mcp__probe__chatty", "arguments": {"text": "hi"}},
        ]
    },
    {"text": "done"},
]


def mcp_json(exposure: str = "direct") -> dict[str, Any]:
    return {
        "mcpServers": {
            "probe": {
                "command": sys.executable,
                "args": ["-m", "tests.support.mcp_server"],
                "cwd": str(REPO),
                "exposure": exposure,
                "toolExposure": {"pid": "hidden", "long_*": "hidden"},
            }
        }
    }


def _run(tmp_path: Path, program: str) -> tuple[int, list[dict[str, Any]], str, list[str]]:
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / program, provider.base_url)
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(mcp_json()), encoding="utf-8")
        args = ("--model", OPENAI_MODEL, "--no-session", "-p", "use the tools")
        done = run_pi(sandbox, *args, current=True) if program == "pi" else run_ours(sandbox, *args)
        log = sandbox.agent_dir / "mcp.log"
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        # The time stamp differs; the rest of each line is the server's message as written.
        return (
            done.returncode,
            [request["body"] for request in provider.requests],
            done.stderr,
            [re.sub(r"^\d{4}-\d\d-\d\dT[\d:.]+Z ", "", line) for line in lines],
        )


def _mcp_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        tool["function"] for tool in body.get("tools", []) if tool["function"]["name"].startswith("mcp__")
    ]


def _after_tool_calls(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages after the assistant's tool calls: the results as the model gets them."""
    messages = body["messages"]
    start = next(i for i, m in enumerate(messages) if m.get("role") == "assistant" and m.get("tool_calls"))
    return messages[start + 1 :]


def test_mcp_tools_and_results_match_pi_1_6(tmp_path: Path) -> None:
    pi_code, pi_bodies, pi_err, pi_log = _run(tmp_path, "pi")
    our_code, our_bodies, our_err, our_log = _run(tmp_path, "ours")
    assert our_log == pi_log == ["[probe] warning probe-log: said hi", "    second line"]
    assert (our_code, pi_code) == (0, 0), (our_err, pi_err)
    assert len(our_bodies) == len(pi_bodies) == 2
    ours = _mcp_tools(our_bodies[0])
    assert [tool["name"] for tool in ours] == [
        "mcp__probe__echo", "mcp__probe__add", "mcp__probe__picture", "mcp__probe__fail", "mcp__probe__dash_name",
        "mcp__probe__chatty", "mcp__probe__slow", "mcp__probe__stall", "mcp__probe__grow",
    ]  # fmt: skip
    assert ours == _mcp_tools(pi_bodies[0])
    names = [
        [tool["function"]["name"] for tool in body.get("tools", [])] for body in (our_bodies[0], pi_bodies[0])
    ]
    assert names[0] == names[1]  # after the built-in tools, in the same order
    results = _after_tool_calls(our_bodies[1])
    assert results == _after_tool_calls(pi_bodies[1])
    texts = json.dumps(results)
    assert "42" in texts and "failed: on purpose" in texts and "a red pixel" in texts and "dashed" in texts


FLAG_CASES = [
    ("--no-mcp",),
    ("--exclude-tools", "mcp__*"),
    ("--tools", "read,mcp__probe__a*,mcp__probe__echo"),
    ("-ne",),
    ("-ne", "-e", "builtin:mcp", "--tools", "mcp__probe__add"),
    ("--settings-extensions", "-builtin:mcp"),
]


def _tools_with_flags(tmp_path: Path, program: str, index: int) -> tuple[int, list[str]]:
    with ScriptedProvider([{"text": "ok"}]) as provider:
        flags = FLAG_CASES[index]
        settings: dict[str, Any] = {"retry": {"enabled": False}}
        if flags[0] == "--settings-extensions":  # not a flag: the case writes settings instead
            settings["extensions"], flags = [flags[1]], ()
        sandbox = Sandbox.create(tmp_path / f"{program}-{index}", provider.base_url, settings)
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(mcp_json()), encoding="utf-8")
        args = ("--model", OPENAI_MODEL, "--no-session", *flags, "-p", "hi")
        done = run_pi(sandbox, *args, current=True) if program == "pi" else run_ours(sandbox, *args)
        tools = (
            [tool["function"]["name"] for tool in provider.requests[0]["body"].get("tools", [])]
            if provider.requests
            else []
        )
        return done.returncode, tools


def test_mcp_tool_flags_match_pi_1_6(tmp_path: Path) -> None:
    """``--no-mcp``, ``--exclude-tools 'mcp__*'`` and ``--tools`` patterns over MCP tools."""
    jobs = [(program, index) for index in range(len(FLAG_CASES)) for program in ("pi", "ours")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = dict(zip(jobs, pool.map(lambda job: _tools_with_flags(tmp_path, *job), jobs), strict=True))
    for index, flags in enumerate(FLAG_CASES):
        assert answers["ours", index] == answers["pi", index], flags
    assert answers["ours", 0][1] == ["read", "bash", "edit", "write"]
    assert answers["ours", 2][1] == ["read", "mcp__probe__echo", "mcp__probe__add"]
    assert answers["ours", 4][1] == ["mcp__probe__add"]
    assert answers["ours", 5][1] == answers["ours", 0][1]


RESOURCE_SCRIPT = [
    {
        "tool_calls": [
            {"id": "call_1", "name": "list_mcp_resources", "arguments": {}},
            {"id": "call_2", "name": "list_mcp_resource_templates", "arguments": {"server": "docs"}},
            {
                "id": "call_3",
                "name": "read_mcp_resource",
                "arguments": {"server": "docs", "uri": "file:///notes.txt"},
            },
            {
                "id": "call_4",
                "name": "read_mcp_resource",
                "arguments": {"server": "nope", "uri": "file:///x"},
            },
            {"id": "call_5", "name": "list_mcp_resources", "arguments": {"server": "docs"}},
        ]
    },
    {"text": "done"},
]


def _resource_run(tmp_path: Path, program: str) -> tuple[int, list[dict[str, Any]]]:
    config = mcp_json()
    config["mcpServers"]["docs"] = {**config["mcpServers"].pop("probe"), "env": {"PROBE_RESOURCES": "1"}}
    with ScriptedProvider(RESOURCE_SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / f"resources-{program}", provider.base_url)
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
        args = ("--model", OPENAI_MODEL, "--no-session", "-p", "read the notes")
        done = run_pi(sandbox, *args, current=True) if program == "pi" else run_ours(sandbox, *args)
        return done.returncode, [request["body"] for request in provider.requests]


def _shape(tool: dict[str, Any]) -> dict[str, Any]:
    """A declaration without its prose (the descriptions are ours, in our words)."""
    parameters = tool["parameters"]
    return {
        "name": tool["name"],
        "properties": list(parameters.get("properties", {})),
        "required": parameters.get("required"),
        "additionalProperties": parameters.get("additionalProperties"),
    }


def test_resource_tools_match_pi_1_6(tmp_path: Path) -> None:
    """A ``direct`` server with resources: the three resource tools are declared after its tools,
    and listing and reading give the model what Pi 1.6 gives it (the error of an unknown server
    is in our words)."""
    # One after the other: each side's server must start within the ten seconds the first prompt waits.
    (pi_code, pi_bodies), (our_code, our_bodies) = (
        _resource_run(tmp_path, "pi"),
        _resource_run(tmp_path, "ours"),
    )
    assert (our_code, pi_code) == (0, 0)
    resource_names = ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]
    ours = [tool["function"] for tool in our_bodies[0]["tools"] if tool["function"]["name"] in resource_names]
    theirs = [
        tool["function"] for tool in pi_bodies[0]["tools"] if tool["function"]["name"] in resource_names
    ]
    assert [_shape(tool) for tool in ours] == [_shape(tool) for tool in theirs]
    names = [[tool["function"]["name"] for tool in body["tools"]] for body in (our_bodies[0], pi_bodies[0])]
    assert names[0] == names[1]
    results = _after_tool_calls(our_bodies[1])
    expected = _after_tool_calls(pi_bodies[1])
    assert [m["tool_call_id"] for m in results] == [m["tool_call_id"] for m in expected]
    for mine, pi in zip(results, expected, strict=True):
        if mine["tool_call_id"] != "call_4":
            assert mine == pi
    listing = json.loads(results[0]["content"])
    assert [item["uri"] for item in listing["resources"]] == [
        "file:///notes.txt",
        "file:///pixel.png",
        "file:///data.bin",
    ]
    assert results[2]["content"] == "first note\nsecond note"


TIME_SCRIPT = [
    {
        "tool_calls": [
            {
                "id": "call_1",
                "name": "mcp__time__convert_time",
                "arguments": {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
            },
            {
                "id": "call_2",
                "name": "mcp__time__convert_time",
                "arguments": {"source_timezone": "Nowhere/City"},
            },
            {"id": "call_3", "name": "list_mcp_resources", "arguments": {}},
        ]
    },
    {"text": "done"},
]


def _time_run(tmp_path: Path, program: str) -> tuple[int, list[dict[str, Any]]]:
    server = {"command": time_server()[0], "args": ["--local-timezone", "UTC"], "exposure": "direct"}
    with ScriptedProvider(TIME_SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / f"time-{program}", provider.base_url)
        (sandbox.agent_dir / "mcp.json").write_text(
            json.dumps({"mcpServers": {"time": server}}), encoding="utf-8"
        )
        args = ("--model", OPENAI_MODEL, "--no-session", "-p", "what time is it in Tokyo")
        done = run_pi(sandbox, *args, current=True) if program == "pi" else run_ours(sandbox, *args)
        return done.returncode, [request["body"] for request in provider.requests]


def test_published_time_server_matches_pi_1_6(tmp_path: Path) -> None:
    """PyPI's ``mcp-server-time``: the same declarations (its tools, then the resource tools, since
    it announces resources) and the same results, an invalid call's error included."""
    (pi_code, pi_bodies), (our_code, our_bodies) = _time_run(tmp_path, "pi"), _time_run(tmp_path, "ours")
    assert (our_code, pi_code) == (0, 0)
    ours = [
        tool["function"] for tool in our_bodies[0]["tools"] if tool["function"]["name"].startswith("mcp__")
    ]
    assert ours == [
        tool["function"] for tool in pi_bodies[0]["tools"] if tool["function"]["name"].startswith("mcp__")
    ]
    names = [[tool["function"]["name"] for tool in body["tools"]] for body in (our_bodies[0], pi_bodies[0])]
    assert names[0] == names[1] and names[0][-3:] == [
        "list_mcp_resources",
        "list_mcp_resource_templates",
        "read_mcp_resource",
    ]
    results = _after_tool_calls(our_bodies[1])
    assert results == _after_tool_calls(pi_bodies[1])
    assert "T21:00:00+09:00" in results[0]["content"]


def test_mcp_calls_go_through_extension_handlers(tmp_path: Path) -> None:
    """Our CLI only: an extension's ``tool_call`` gate sees MCP calls with the server's annotations
    (``get_all_tools``) and blocks the tool that is not read-only; ``tool_result`` handlers see
    the results of the calls that ran."""
    script = [
        {
            "tool_calls": [
                {"id": "call_1", "name": "mcp__probe__echo", "arguments": {"text": "hi"}},
                {"id": "call_2", "name": "mcp__probe__add", "arguments": {"a": 1, "b": 2}},
            ]
        },
        {"text": "done"},
    ]
    record = tmp_path / "record.jsonl"
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path / "gate", provider.base_url)
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(mcp_json()), encoding="utf-8")
        extension = Path(__file__).with_name("mcp_gate_extension.py")
        args = ("--model", OPENAI_MODEL, "--no-session", "-e", str(extension), "-p", "go")
        done = run_ours(sandbox, *args, PI_TEST_RECORD=str(record))
        assert done.returncode == 0, done.stderr
        results = _after_tool_calls(provider.requests[1]["body"])
    seen = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert seen == [
        {"call": "mcp__probe__echo", "annotations": {"readOnlyHint": True}},
        {"call": "mcp__probe__add", "annotations": None},
        {"result": "mcp__probe__echo", "is_error": False},
    ]  # a blocked call has no result event, as in Pi
    assert [message["content"] for message in results] == ["echo: hi", "only read-only MCP tools may run"]


CODEMODE_SCRIPT = """const [a, b] = await Promise.all([
  tools.mcp__probe__add({a: 2, b: 3}),
  tools.mcp__probe__fail({reason: "why"}),
]);
const e = await tools.mcp__probe__echo({text: "x"});
return {sum: a.content[0].text, failed: b.isError, failText: b.content[0].text, echo: e.structuredContent};"""


def _codemode_run(tmp_path: Path, program: str) -> tuple[int, list[str], list[dict[str, Any]]]:
    script = [
        {"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": CODEMODE_SCRIPT}}]},
        {"text": "done"},
    ]
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path / f"codemode-{program}", provider.base_url)
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(mcp_json("codemode")), encoding="utf-8")
        args = ("--model", OPENAI_MODEL, "--no-session", "--tools", "+codemode", "-p", "go")
        done = run_pi(sandbox, *args, current=True) if program == "pi" else run_ours(sandbox, *args)
        bodies = [request["body"] for request in provider.requests]
        tools = [tool["function"]["name"] for tool in bodies[0]["tools"]]
        results = _after_tool_calls(bodies[1]) if len(bodies) > 1 else []
        for message in results:
            message["content"] = re.sub(
                r"Wall time [\d.]+ seconds", "Wall time <t> seconds", message["content"]
            )
        return done.returncode, tools, results


def test_codemode_script_calls_mcp_tools_as_pi_1_6(tmp_path: Path) -> None:
    """A codemode script calls two tools of a ``codemode`` server in parallel (one answers with
    ``isError``) and a third after, and returns parts of the results: the same output as Pi 1.6.
    (``--tools +codemode`` on both sides: Pi turns codemode on by itself for such a server.)"""
    pi, ours = _codemode_run(tmp_path, "pi"), _codemode_run(tmp_path, "ours")
    assert ours == pi
    assert ours[1] == ["read", "bash", "edit", "write", "codemode"]  # codemode tools are not declared
    assert (
        '{"sum":"5","failed":true,"failText":"failed: why","echo":{"result":"echo: x"}}'
        in ours[2][0]["content"]
    )
