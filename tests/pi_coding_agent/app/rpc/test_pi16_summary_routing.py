"""The routing session id of summary requests (Pi 1.6): every request to OpenCode carries
``x-opencode-session``; a conversation's turns send the session's id there, and each compaction
summary request a fresh UUIDv7 of its own, with prompt caching off (no cache key, no affinity
headers). Ours and Pi 1.6's CLI (``pi-cli-current``), driven by our RPC client, against one
scripted provider standing in for OpenCode (models.json points the built-in ``opencode`` provider
at 127.0.0.1): a Chat Completions model and an Anthropic Messages model, each compacted once
(a split turn: two summary requests each)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.app.rpc._support import our_pi, pi_cli
from tests.pi_coding_agent.app.rpc.python_driver import run_scenario
from tests.pi_coding_agent.e2e._harness import Sandbox
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

COMPLETIONS_MODEL = "beam-free"  # opencode, openai-completions
MESSAGES_MODEL = "claude-fable-5"  # opencode, anthropic-messages
TURNS = [
    {"text": "First answer."},
    {"text": "Second answer."},
    {"text": "Third answer."},
    {"text": "Fourth."},
]
SUMMARY = "The user said one and two."
SETTINGS = {"retry": {"enabled": False}, "compaction": {"enabled": True, "keepRecentTokens": 1}}

STEPS: list[dict[str, Any]] = [
    {"call": "prompt", "args": ["one"]},
    {"waitFor": "agent_settled"},
    {"call": "prompt", "args": ["two"]},
    {"waitFor": "agent_settled"},
    {"call": "compact"},
    {"call": "setModel", "args": ["opencode", MESSAGES_MODEL]},
    {"call": "prompt", "args": ["three"]},
    {"waitFor": "agent_settled"},
    {"call": "compact"},
    {"call": "prompt", "args": ["four"]},
    {"waitFor": "agent_settled"},
    {"call": "getState", "as": "state"},
]
UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
CACHE_FIELDS = ("prompt_cache_key", "prompt_cache_retention")
AFFINITY_HEADERS = ("session_id", "session-id", "x-session-id", "x-session-affinity", "x-client-request-id")


def _request_view(request: dict[str, Any], session_id: str, earlier: list[str]) -> dict[str, Any]:
    """What a request says about its routing, in terms both runs share."""
    body, headers = request["body"], request["headers"]
    routing = headers.get("x-opencode-session")
    summary = ScriptedProvider._is_summary_request(body)
    if routing == session_id:
        route = "session"
    elif routing is not None and UUID7.match(routing) and routing not in earlier:
        route = "fresh uuid7"
    else:
        route = repr(routing)
    if routing is not None:
        earlier.append(routing)
    return {
        "api": "messages" if request["path"].split("?")[0].endswith("/messages") else "completions",
        "summary": summary,
        "route": route,
        "cache fields": sorted(k for k in CACHE_FIELDS if k in body),
        "affinity headers": sorted(k for k in AFFINITY_HEADERS if k in headers),
        "cache_control": "cache_control" in json.dumps(body),
    }


def _run(tmp_path: Path, name: str, command: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    with ScriptedProvider(TURNS, summary=SUMMARY, sequential=True) as provider:
        box = Sandbox.create(tmp_path / name, provider.base_url, SETTINGS)
        models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
        models["providers"]["opencode"] = {"baseUrl": f"{provider.base_url}/v1"}
        (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
        client = RpcClient(
            command,
            args=["--model", f"opencode/{COMPLETIONS_MODEL}", "--thinking", "off"],
            cwd=box.work,
            env=box.env(OPENCODE_API_KEY="scripted-key"),
        )

        async def run() -> dict[str, Any]:
            async with client:
                return await run_scenario(client, STEPS)

        log = asyncio.run(run())
        requests = list(provider.requests)
    state = next(r["result"] for r in log["results"] if r["call"] == "getState")
    earlier: list[str] = []
    views = [_request_view(request, state["sessionId"], earlier) for request in requests]
    compactions = [r for r in log["results"] if r["call"] == "compact"]
    return views, {"compactions": [sorted(r.get("result") or {"error": 1}) for r in compactions]}


def test_summary_requests_route_apart_as_in_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    ours, our_results = _run(tmp_path, "ours", [str(our_pi())])
    pis, pi_results = _run(tmp_path, "pi16", [str(pi_cli(current=True))])
    assert ours == pis
    assert our_results == pi_results
    assert [(v["api"], v["summary"], v["route"]) for v in ours] == [
        ("completions", False, "session"),
        ("completions", False, "session"),
        ("completions", True, "fresh uuid7"),  # the history
        ("completions", True, "fresh uuid7"),  # the split turn's prefix
        ("messages", False, "session"),
        ("messages", True, "fresh uuid7"),
        ("messages", True, "fresh uuid7"),
        ("messages", False, "session"),
    ]
    # Summaries are sent with prompt caching off; the conversation's Anthropic turns cache.
    assert all(not v["cache fields"] and not v["affinity headers"] for v in ours)
    assert [v["cache_control"] for v in ours] == [v["api"] == "messages" and not v["summary"] for v in ours]
