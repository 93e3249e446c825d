"""Extension tools' ``exposure`` (Pi 1.6's ``registerTool`` option), ours against Pi 1.6's CLI
with the same TypeScript extension and scripted model: a ``deferred`` and a ``codemode`` tool
are not declared until ``tool_search`` loads them, a ``hidden`` one never is (and a call to it
fails as unknown), a plain one is declared at once; ``codemode`` scripts call the ``codemode``
tool without loading it and see the callable tools in registration order in ``ALL_TOOLS``
(``tool_search`` is ``model-only``, so not among them). The tool lists of every request and the
``tool_execution_end`` events (``--mode json``) must agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(600)

EXTENSION = """export default function (pi: any) {
  const tool = (name: string, exposure: string | undefined, description: string) => pi.registerTool({
    name, label: name, description, ...(exposure ? { exposure } : {}),
    parameters: { type: "object", properties: { city: { type: "string" } } },
    async execute(_id: string, params: any) {
      return {
        content: [{ type: "text", text: `${name} for ${params.city}` }],
        details: { name },
        structuredContent: { name, city: params.city },
      };
    },
  });
  tool("lookup_weather", "deferred", "Look up the current weather for a city");
  tool("city_population", "codemode", "Population of a city");
  tool("secret_tool", "hidden", "Never reachable");
  tool("plain_tool", undefined, "A direct tool");
}
"""

CODE = "return [await tools.city_population({city: 'Oslo'}), ALL_TOOLS.map((tool) => tool.name)]"

SCRIPT = [
    {
        "tool_calls": [
            {"id": "call_1", "name": "tool_search", "arguments": {"query": "weather city"}},
            {"id": "call_2", "name": "secret_tool", "arguments": {"city": "Rome"}},
        ]
    },
    {
        "tool_calls": [
            {"id": "call_3", "name": "lookup_weather", "arguments": {"city": "Paris"}},
            {"id": "call_4", "name": "codemode", "arguments": {"code": CODE}},
        ]
    },
    {"text": "done"},
]


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _run(tmp_path: Path, program: str) -> tuple[int, list[list[str]], list[dict[str, Any]], list[str], str]:
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / program, provider.base_url)
        extension = tmp_path / f"{program}-tools.ts"
        extension.write_text(EXTENSION, encoding="utf-8")
        args = ("--model", OPENAI_MODEL, "--no-session", "-e", str(extension),
                "--tools", "+tool_search,+codemode", "--mode", "json", "go")  # fmt: skip
        run = run_pi if program == "pi" else run_ours
        kwargs: dict[str, Any] = {"current": True} if program == "pi" else {}
        done = run(sandbox, *args, PI_NODE_CACHE=node_cache(), **kwargs)
        bodies = [request["body"] for request in provider.requests]
        tools = [[tool["function"]["name"] for tool in body.get("tools", [])] for body in bodies]
        codemode = [
            tool["function"]["description"] for tool in bodies[0].get("tools", []) if tool["function"]["name"] == "codemode"
        ]
        return done.returncode, tools, done.json_lines(), codemode, done.stderr


def _ends(events: list[dict[str, Any]]) -> dict[str, Any]:
    """``tool_execution_end`` by call id, without times and without what is in our own words
    (``tool_search``'s sentence)."""
    ends: dict[str, Any] = {}
    for found in events:
        if found.get("type") != "tool_execution_end":
            continue
        event = {key: value for key, value in found.items() if key != "durationMs"}
        result = dict(event["result"])
        if event["toolName"] == "tool_search":
            result.pop("content")
        if event["toolName"] == "codemode":
            result["content"] = [
                {**block, "text": re.sub(r"Wall time [\d.]+ seconds", "Wall time <t> seconds", block["text"])}
                for block in result["content"]
            ]
            result["details"] = {
                "calls": [{k: v for k, v in call.items() if k != "durationMs"} for call in result["details"]["calls"]]
            }
        ends[event["toolCallId"]] = {**event, "result": result}
    return ends


def test_extension_tool_exposure_matches_pi_1_6(tmp_path: Path) -> None:
    pi_code, pi_tools, pi_events, pi_codemode, pi_err = _run(tmp_path, "pi")
    our_code, our_tools, our_events, our_codemode, our_err = _run(tmp_path, "ours")
    assert (our_code, pi_code) == (0, 0), (our_err, pi_err)
    assert our_tools == pi_tools
    base = ["read", "bash", "edit", "write", "tool_search", "codemode", "plain_tool"]
    assert our_tools == [base, [*base, "lookup_weather", "city_population"], [*base, "lookup_weather", "city_population"]]
    ours, theirs = _ends(our_events), _ends(pi_events)
    assert ours == theirs
    assert ours["call_1"]["result"]["details"] == {"loaded": ["lookup_weather", "city_population"]}
    assert ours["call_2"]["isError"] is True
    assert ours["call_3"]["result"]["structuredContent"] == {"name": "lookup_weather", "city": "Paris"}
    assert ours["call_4"]["result"]["content"][1]["text"] == (
        '["city_population for Oslo",["read","bash","edit","write","lookup_weather","city_population","plain_tool"]]'
    )
    # The codemode description lists the ``codemode`` tool, never the ``deferred`` one (wording is ours).
    for description in (our_codemode[0], pi_codemode[0]):
        assert "city_population" in description and "lookup_weather" not in description


PY_EXTENSION = '''
def setup(pi):
    def tool(name, exposure, description, **more):
        def execute(tool_call_id, params, signal, on_update, ctx):
            city = params.get("city")
            return {"content": f"{name} for {city}", "details": {"name": name},
                    "structuredContent": {"name": name, "city": city}}

        pi.register_tool(name=name, label=name, description=description, exposure=exposure,
                         parameters={"type": "object", "properties": {"city": {"type": "string"}}},
                         execute=execute, **more)

    tool("lookup_weather", "deferred", "Look up the current weather for a city")
    tool("city_population", "codemode", "Population of a city")
    tool("secret_tool", "hidden", "Never reachable")
    tool("plain_tool", "direct", "A direct tool")
    tool("later_tool", "direct", "Starts inactive", default_active=False)
'''


def test_python_extension_tool_exposure(tmp_path: Path) -> None:
    """The same tools from a Python extension (``exposure=``, ``default_active=False``) behave
    as the TypeScript ones do in both programs."""
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / "py", provider.base_url)
        extension = tmp_path / "tools_ext.py"
        extension.write_text(PY_EXTENSION, encoding="utf-8")
        done = run_ours(sandbox, "--model", OPENAI_MODEL, "--no-session", "-e", str(extension),
                        "--tools", "+tool_search,+codemode", "--mode", "json", "go")  # fmt: skip
        tools = [[tool["function"]["name"] for tool in r["body"].get("tools", [])] for r in provider.requests]
    assert done.returncode == 0, done.stderr
    base = ["read", "bash", "edit", "write", "tool_search", "codemode", "plain_tool"]
    assert tools == [base, [*base, "lookup_weather", "city_population"], [*base, "lookup_weather", "city_population"]]
    ends = _ends(done.json_lines())
    assert ends["call_2"]["isError"] is True
    assert ends["call_3"]["result"]["structuredContent"] == {"name": "lookup_weather", "city": "Paris"}
    assert ends["call_4"]["result"]["content"][1]["text"] == (
        '["city_population for Oslo",["read","bash","edit","write","lookup_weather","city_population","plain_tool"]]'
    )
