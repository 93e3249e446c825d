"""Model keys Pi 1.6 added that change request bodies, against Pi 1.6's own ``payload``: the
oracle harness run on Pi 1.6 (``current=True``) and ours (``tools/conformance.py --current``)
build the request for the same model and conversation, and the bodies must be equal.

Covered: ``samplingParamsByThinkingLevel`` (merged over ``samplingParams`` for the requested
level, clamped to what the model supports, under the request's own ``samplingParams``; also on
the raw ``stream`` path, where 1.6 now applies the model's parameters too) for Chat Completions
and Responses, and the compat keys ``requiresNonNullAssistantContent``,
``requiresToolsWithToolHistory`` (set explicitly) and ``promptCacheKeyMode``.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from tests.support.oracle import REPO, conformance_in_process, run_oracle

sys.path.insert(0, str(REPO / "tools"))
from conformance_cmds.payload import normalize

pytestmark = pytest.mark.oracle

SAMPLING = {
    "samplingParams": {"temperature": 0.5, "top_p": 0.9},
    "samplingParamsByThinkingLevel": {
        "off": {"top_k": 1},
        "medium": {"top_k": 5},
        "high": {"temperature": 0.9, "min_p": 0.1},
    },
}
COMPLETIONS = {
    "id": "m",
    "provider": "openai",
    "baseUrl": "https://api.openai.com/v1",
    "reasoning": True,
    **SAMPLING,
}
RESPONSES = {"id": "gpt-x", "reasoning": True, **SAMPLING}
SK_KEY = {"apiKey": "sk-test"}  # not a ChatGPT sign-in, whose requests 1.6 trims
HELLO = [{"role": "user", "content": "hi", "timestamp": 0}]
TOOL_HISTORY = [
    *HELLO,
    {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a"}}],
        "api": "openai-completions",
        "provider": "openai",
        "model": "m",
        "usage": {
            "input": 1,
            "output": 1,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 2,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "toolUse",
        "timestamp": 0,
    },
    {
        "role": "toolResult",
        "toolCallId": "call_1",
        "toolName": "read",
        "content": [{"type": "text", "text": "x"}],
        "isError": False,
        "timestamp": 0,
    },
    {"role": "user", "content": "and?", "timestamp": 0},
]


def _request(
    api: str,
    model: dict[str, Any],
    options: dict[str, Any],
    messages: list[Any] = HELLO,
    fn: str = "streamSimple",
) -> dict[str, Any]:
    return {
        "api": api,
        "model": model,
        "fn": fn,
        "options": options,
        "context": {"systemPrompt": "sys", "messages": messages, "tools": []},
    }


CASES = {
    "completions high": _request("openai-completions", COMPLETIONS, {"reasoning": "high"}),
    "completions off": _request("openai-completions", COMPLETIONS, {}),
    "completions xhigh clamps to high, request params win": _request(
        "openai-completions", COMPLETIONS, {"reasoning": "xhigh", "samplingParams": {"top_p": 0.1}}
    ),
    "completions without reasoning uses off": _request(
        "openai-completions", {**COMPLETIONS, "reasoning": False}, {"reasoning": "high"}
    ),
    "completions raw stream": _request(
        "openai-completions", COMPLETIONS, {"reasoningEffort": "medium"}, fn="stream"
    ),
    "responses high": _request("openai-responses", RESPONSES, {"reasoning": "high", **SK_KEY}),
    "responses raw stream with summary": _request(
        "openai-responses", RESPONSES, {"reasoningSummary": "auto", **SK_KEY}, fn="stream"
    ),
    "non-null assistant content": _request(
        "openai-completions",
        {**COMPLETIONS, "reasoning": False, "compat": {"requiresNonNullAssistantContent": True}},
        {},
        TOOL_HISTORY,
    ),
    "tools omitted with tool history when not required": _request(
        "openai-completions",
        {**COMPLETIONS, "reasoning": False, "compat": {"requiresToolsWithToolHistory": False}},
        {},
        TOOL_HISTORY,
    ),
    "tools sent with tool history when required": _request(
        "openai-completions",
        {**COMPLETIONS, "reasoning": False, "compat": {"requiresToolsWithToolHistory": True}},
        {},
        TOOL_HISTORY,
    ),
    "prompt cache key disabled": _request(
        "openai-completions",
        {**COMPLETIONS, "reasoning": False, "compat": {"promptCacheKeyMode": "disabled"}},
        {"sessionId": "s1"},
    ),
    "responses prompt cache key disabled": _request(
        "openai-responses",
        {**RESPONSES, "compat": {"promptCacheKeyMode": "disabled"}},
        {"sessionId": "s1", **SK_KEY},
    ),
    "prompt cache key enabled off openai": _request(
        "openai-completions",
        {
            **COMPLETIONS,
            "reasoning": False,
            "provider": "custom",
            "baseUrl": "http://127.0.0.1:9/v1",
            "compat": {"promptCacheKeyMode": "enabled", "supportsDeveloperRole": False},
        },
        {"sessionId": "s1"},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_request_body_equals_pi_1_6s(name: str) -> None:
    request = CASES[name]
    pi_code, pi = run_oracle("payload", request, current=True)
    our_code, ours = conformance_in_process("payload", request, current=True)
    assert pi_code == our_code == 0, (pi, ours)
    assert normalize(ours)["request"]["body"] == normalize(pi)["request"]["body"]
