"""Chat Completions request bodies of a whole turn (a prompt, a tool call, its result, the answer)
from ours and from Pi 1.6's CLI, against a scripted provider on 127.0.0.1: the same bodies, as
Pi 1.6 builds them (docs/pi-1.6/models.md, "Request bodies").

The provider is on this machine, where ours adapts requests for local model servers
(docs/providers/local-servers.md); the model turns those adaptations off, so the bodies are
what any OpenAI-compatible host gets: the prompt as a list of text blocks, an assistant turn
without text as ``content: null``, ``system`` rather than ``developer`` for a reasoning model
on a host that is not OpenAI's, ``max_completion_tokens``, no ``strict`` on tools. The system
prompt's text is left out (it is the system-prompt work's), and so are the tools' descriptions
(ours words them in its own prose).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.oracle

MODELS = {
    "providers": {
        "compatible": {
            "baseUrl": "%s/v1",
            "api": "openai-completions",
            "apiKey": "scripted-key",
            "compat": {
                "sendTextContentAsString": False,
                "nullContentAsEmpty": False,
                "parseToolCallsFromText": False,
                "maxTokensField": "max_completion_tokens",
            },
            "models": [{"id": "thinker", "reasoning": True}],
        }
    }
}
TURNS = [
    {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "notes.txt"}}]},
    {"text": "It says hello."},
]


def _comparable(body: dict[str, Any]) -> dict[str, Any]:
    messages = [
        {**message, "content": "<system prompt>"} if index == 0 else message
        for index, message in enumerate(body["messages"])
    ]
    return {**body, "messages": messages, "tools": _without_descriptions(body.get("tools", []))}


def _without_descriptions(value: Any) -> Any:
    """Tools with every ``description`` blanked: ours words its tools in its own prose."""
    if isinstance(value, list):
        return [_without_descriptions(item) for item in value]
    if isinstance(value, dict):
        return {
            key: "<description>" if key == "description" else _without_descriptions(item)
            for key, item in value.items()
        }
    return value


def test_a_tool_turn_sends_the_bodies_pi_1_6_sends(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    bodies: dict[str, list[dict[str, Any]]] = {}
    with ScriptedProvider(TURNS * 2) as provider:
        for runner in ("pi", "ours"):
            sandbox = Sandbox.create(tmp_path / runner, provider.base_url)
            models = json.dumps(MODELS).replace("%s", provider.base_url)
            (sandbox.agent_dir / "models.json").write_text(models, encoding="utf-8")
            (sandbox.work / "notes.txt").write_text("hello\n", encoding="utf-8")
            args = (
                "--model",
                "compatible/thinker",
                "--thinking",
                "high",
                "--tools",
                "read",
                "-p",
                "What do the notes say?",
            )
            done = run_pi(sandbox, *args, current=True) if runner == "pi" else run_ours(sandbox, *args)
            assert done.returncode == 0, done.stderr
            bodies[runner] = [_comparable(request["body"]) for request in provider.requests]
            provider.requests.clear()
    assert len(bodies["pi"]) == 2
    first = bodies["pi"][0]
    assert first["messages"][0]["role"] == "system" and "max_completion_tokens" in first
    assert first["messages"][1]["content"] == [{"type": "text", "text": "What do the notes say?"}]
    assert bodies["pi"][1]["messages"][2]["content"] is None  # the tool-call turn had no text
    assert bodies["ours"] == bodies["pi"]
