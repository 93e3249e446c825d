"""The ``registerTool`` options Pi 1.6 added beside ``exposure``: ``namespace``, ``annotations``,
``reachesTools`` and ``prepareLoadout``, checked against Pi 1.6's CLI in RPC mode (one run of
each program): Pi runs a TypeScript extension, ours runs it too and a Python extension doing
the same with ``pi.register_tool``.

- ``/tools`` reports what ``getAllTools()`` gives: the tool's namespace and annotations, its
  ``reachesTools`` answer, and the built-in ``codemode``'s and ``tool_search``'s answers.
- The first prompt's request shows a ``prepareLoadout`` hook at work: its own description lists
  the callable tools, ``read`` is described anew and ``write`` is left out (also of the system
  prompt's tool list), yet stays declared in the session file's ``system`` message.
- With ``codemode`` active (``/codemode-on``), its description lists the ``codemode`` tool under
  its namespace's heading, and a script's ``describeNamespace()`` by the alias returns the
  namespace with its instructions and tools."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox
from tests.pi_coding_agent.e2e._rpc_session import notices, rpc_session
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(600)

CODE = 'const space = await describeNamespace("prb");\nreturn space;'
SCRIPT = [
    {"text": "one"},
    {"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": CODE}}]},
    {"text": "done"},
]
TYPESCRIPT = """export default function (pi: any) {
  pi.registerTool({
    name: "probe_lookup",
    label: "probe_lookup",
    description: "Looks a key up in the probe table",
    parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
    exposure: "codemode",
    namespace: { name: "probe", aliases: ["prb"], description: "Probe tools", instructions: "Look keys up with probe_lookup." },
    annotations: { readOnlyHint: true, openWorldHint: false },
    reachesTools: (input: any) => ["probe", String(input.key ?? "")],
    async execute(_id: string, params: any) {
      return { content: [{ type: "text", text: `value of ${params.key}` }], details: {} };
    },
  });
  pi.registerTool({
    name: "orchestrate",
    label: "orchestrate",
    description: "Runs other tools",
    parameters: { type: "object", properties: {} },
    exposure: "model-only",
    prepareLoadout: (loadout: any) => ({
      descriptions: {
        orchestrate:
          "Reaches " + loadout.callable.map((tool: any) => tool.name).sort().join(",") +
          "; declared " + loadout.declared.map((tool: any) => tool.name).sort().join(",") +
          "; probe_lookup is " + loadout.getExposure("probe_lookup") +
          " in " + (loadout.getNamespace("probe_lookup")?.name ?? "none"),
        read: "Read, as orchestrate describes it",
      },
      hiddenDeclarations: ["write"],
    }),
    async execute() {
      return { content: [{ type: "text", text: "ok" }], details: {} };
    },
  });
  pi.registerCommand("tools", {
    handler: async (_args: string, ctx: any) => {
      const pick = (name: string) => pi.getAllTools().find((tool: any) => tool.name === name);
      const probe = pick("probe_lookup");
      const codemode = pick("codemode");
      const report = {
        probe: { exposure: probe.exposure, namespace: probe.namespace, annotations: probe.annotations, reach: probe.reachesTools({ key: "k1" }) },
        orchestrate: { reaches: "reachesTools" in pick("orchestrate"), annotations: pick("orchestrate").annotations ?? null },
        codemode: [codemode.reachesTools({ code: "await tools.mcp__a__b({})" }), codemode.reachesTools({ code: "searchTools('x')" })],
        toolSearch: pick("tool_search").reachesTools({ query: "x" }),
        read: [pick("read").annotations ?? null, pick("read").namespace ?? null, "reachesTools" in pick("read")],
      };
      ctx.ui.notify(JSON.stringify(report), "info");
    },
  });
  pi.registerCommand("codemode-on", { handler: async () => pi.setActiveTools(["read", "codemode"]) });
}
"""
PYTHON = """
def setup(pi):
    async def lookup(tool_call_id, params, signal, on_update, ctx):
        return {"content": [{"type": "text", "text": f"value of {params['key']}"}], "details": {}}

    pi.register_tool(
        name="probe_lookup",
        description="Looks a key up in the probe table",
        parameters={"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
        execute=lookup,
        exposure="codemode",
        namespace={"name": "probe", "aliases": ["prb"], "description": "Probe tools", "instructions": "Look keys up with probe_lookup."},
        annotations={"readOnlyHint": True, "openWorldHint": False},
        reaches_tools=lambda params: ["probe", str(params.get("key", ""))],
    )

    def loadout(tools):
        namespace = tools.get_namespace("probe_lookup")
        about = (
            "Reaches " + ",".join(sorted(tool.name for tool in tools.callable))
            + "; declared " + ",".join(sorted(tool.name for tool in tools.declared))
            + "; probe_lookup is " + tools.get_exposure("probe_lookup")
            + " in " + (namespace["name"] if namespace else "none")
        )
        return {"descriptions": {"orchestrate": about, "read": "Read, as orchestrate describes it"}, "hidden_declarations": ["write"]}

    pi.register_tool(
        name="orchestrate",
        description="Runs other tools",
        parameters={"type": "object", "properties": {}},
        execute=lambda *args: "ok",
        exposure="model-only",
        prepare_loadout=loadout,
    )

    def report(args, ctx):
        tools = {tool["name"]: tool for tool in pi.get_all_tools()}
        probe, codemode = tools["probe_lookup"], tools["codemode"]
        found = {
            "probe": {
                "exposure": probe["exposure"], "namespace": probe["namespace"], "annotations": probe["annotations"],
                "reach": probe["reaches_tools"]({"key": "k1"}),
            },
            "orchestrate": {"reaches": "reaches_tools" in tools["orchestrate"], "annotations": tools["orchestrate"].get("annotations")},
            "codemode": [
                codemode["reaches_tools"]({"code": "await tools.mcp__a__b({})"}),
                codemode["reaches_tools"]({"code": "searchTools('x')"}),
            ],
            "toolSearch": tools["tool_search"]["reaches_tools"]({"query": "x"}),
            "read": [tools["read"].get("annotations"), tools["read"].get("namespace"), "reaches_tools" in tools["read"]],
        }
        ctx.ui.notify(json.dumps(found, separators=(",", ":")), "info")

    pi.register_command("tools", report)
    pi.register_command("codemode-on", lambda args, ctx: pi.set_active_tools(["read", "codemode"]))
"""
PYTHON = "import json\n" + PYTHON


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _declared_in_session(sandbox: Sandbox) -> list[list[str]]:
    """The tools each ``system`` message of the session file adds, by name."""
    (session,) = sandbox.session_files()
    entries = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    messages = [entry["message"] for entry in entries if entry.get("type") == "message"]
    return [
        sorted(tool["name"] for tool in m.get("toolsAdded", []))
        for m in messages
        if m.get("role") == "system"
    ]


def _run(
    tmp_path: Path, program: str, extension_name: str
) -> tuple[list[Any], list[dict[str, Any]], list[list[str]]]:
    """``/tools``'s report, the request bodies and the tools the session's system messages add."""
    with ScriptedProvider(SCRIPT) as provider:
        sandbox = Sandbox.create(tmp_path / f"{program}-{extension_name}", provider.base_url)
        extension = sandbox.root / extension_name
        extension.write_text(TYPESCRIPT if extension_name.endswith(".ts") else PYTHON, encoding="utf-8")
        env = sandbox.env(PI_NODE_CACHE=node_cache())
        args = ("--model", OPENAI_MODEL, "-e", str(extension))
        messages: list[str | dict[str, Any]] = ["/tools", "first", "/codemode-on", "second"]
        answers = rpc_session(program, sandbox.work, env, args, messages)
        reports = [json.loads(text) for _, text in notices(answers[0])]
        return reports, [request["body"] for request in provider.requests], _declared_in_session(sandbox)


def _tools(body: dict[str, Any]) -> dict[str, str]:
    return {tool["function"]["name"]: tool["function"]["description"] for tool in body.get("tools", [])}


def _system(body: dict[str, Any]) -> str:
    system = next(m["content"] for m in body["messages"] if m.get("role") in ("system", "developer"))
    return system if isinstance(system, str) else "".join(part.get("text", "") for part in system)


def _results(body: dict[str, Any]) -> list[str]:
    """The tool results' text without the script's wall time (it varies)."""
    texts = [message["content"] for message in body["messages"] if message.get("role") == "tool"]
    return [
        "\n".join(line for line in str(text).splitlines() if not line.startswith("Wall time"))
        for text in texts
    ]


def test_tool_options_as_in_pi_1_6(tmp_path: Path) -> None:
    runs = (("pi16", "opts.ts"), ("ours", "opts.ts"), ("ours", "opts.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        (pi_reports, pi_bodies, pi_session), *ours = pool.map(lambda run: _run(tmp_path, *run), runs)
    assert pi_reports[0]["probe"]["reach"] == ["probe", "k1"]
    assert pi_reports[0]["toolSearch"] == "all"
    assert len(pi_bodies) == 3
    first = _tools(pi_bodies[0])
    assert "write" not in first and first["read"] == "Read, as orchestrate describes it"
    assert "probe_lookup is codemode in probe" in first["orchestrate"]
    assert "- write:" not in _system(pi_bodies[0]) and "- read:" in _system(pi_bodies[0])
    pi_codemode = _tools(pi_bodies[1])["codemode"]
    assert "## probe\nProbe tools" in pi_codemode and "probe_lookup" in pi_codemode
    # The hidden declaration stays declared in the session (only requests leave it out).
    assert "write" in pi_session[0]
    for label, (our_reports, our_bodies, our_session) in zip(("ts", "py"), ours, strict=True):
        assert our_session[0] == pi_session[0], label
        assert our_reports == pi_reports, label
        assert len(our_bodies) == 3, label
        ours_first = _tools(our_bodies[0])
        assert sorted(ours_first) == sorted(first), label
        assert ours_first["orchestrate"] == first["orchestrate"], label
        assert ours_first["read"] == first["read"], label
        system = _system(our_bodies[0])
        assert "- write:" not in system and "- read:" in system, label
        our_codemode = _tools(our_bodies[1])["codemode"]
        assert "## probe\nProbe tools" in our_codemode and "probe_lookup" in our_codemode, label
        assert _results(our_bodies[2]) == _results(pi_bodies[2]), label
