"""Pi 1.6's answers to our own conformance cases, and what of them we do not follow yet.

``tests/conformance/cases/pi-1.6/<subcommand>/NAME.out.json`` is the live Pi 1.6 oracle's
answer to the input ``tests/conformance/cases/<subcommand>/NAME.json`` or to the shared oracle
case of that name (recorded by the generator that wrote the input, e.g.
``tools/gen_midway_cases.py``, or by ``tools/gen_pi16_payload_answers.py``); a
``pi-1.6/<subcommand>/NAME.json`` beside it is the input 1.6 was given instead (the case's model
written out, where 1.6's catalog no longer has it). Where it exists, that
answer is the reference for the case: ours follows Pi 1.6 where it changed on purpose
(docs/pi-1.6/streams.md).

``not_yet_followed`` folds, on both sides, what of Pi 1.6's answers cannot be compared as it is:
the value of ``durationMs`` (a time: checked to be whole milliseconds, then folded). Pi 1.6's
message fields (``durationMs``, ``thinkingLevel``, ``cost.totalFromProvider``) are ours too and
compared, and so is the ``model`` / ``responseModel`` split (1.6 keeps the requested id in
``model`` and the id of a model that answered instead in ``responseModel``, for every API).
``as_pi085`` turns ours into what Pi 0.85 wrote where the reference is an answer of 0.85: those
fields left out, and an Anthropic reply's ``responseModel`` back in ``model`` (0.85 overwrote
``model`` there; only Chat Completions had ``responseModel``). Everything else must match.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PI16_ANSWERS = Path(__file__).resolve().parents[1] / "conformance" / "cases" / "pi-1.6"
WHOLE_ANSWER_SUBCOMMANDS = ("parse-stream", "payload")
"""Where a 1.6 answer is the whole reference (``payload``: the request bodies 1.6 changed and we
follow, recorded by ``tools/gen_pi16_payload_answers.py``). An ``agent-events`` answer of 1.6 also streams
the system message and other changes of issue 24 item 6: its tests compare the parts they
are about (``tests/conformance/test_coerced_numbers.py``)."""
PI16_MESSAGE_FIELDS = frozenset({"durationMs", "totalFromProvider", "thinkingLevel"})
"""The fields Pi 1.6 writes on messages (and their usage) that Pi 0.85 does not."""


PAYLOAD_NOT_FOLLOWED: dict[str, tuple[tuple[str, ...], str]] = {
    "payload/constrained_tools_bedrock": (
        ("request",),
        "1.6's oracle does not see Bedrock's HTTP request (its SDK sends it); the payload is compared",
    ),
}
"""``payload`` cases (``payload/NAME``) whose 1.6 answer is the reference except where 1.6 changed something we do not
follow yet (docs/pi-1.6/models.md, "Request bodies"): case -> (the dotted paths left out on
both sides, why)."""


def without_not_followed(key: str, value: Any) -> Any:
    """``value`` without the parts of ``PAYLOAD_NOT_FOLLOWED[key]`` (itself when not listed)."""
    paths = PAYLOAD_NOT_FOLLOWED.get(key, ((), ""))[0]
    if not paths:
        return value
    value = json.loads(json.dumps(value))
    for path in paths:
        *parents, last = path.split(".")
        node = value
        for parent in parents:
            node = node.get(parent, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.pop(last, None)
    return value


def answer_path(subcommand: str, name: str) -> Path:
    return PI16_ANSWERS / subcommand / f"{name}.out.json"


def not_yet_followed(value: Any) -> Any:
    """``value`` with each ``durationMs`` checked to be whole milliseconds, then folded."""
    if isinstance(value, list):
        return [not_yet_followed(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: not_yet_followed(item) for key, item in value.items()}
    if "durationMs" in out:
        assert isinstance(out["durationMs"], int) and out["durationMs"] >= 0, out
        out["durationMs"] = "<ms>"
    return out


def as_pi085(value: Any) -> Any:
    """``value`` as Pi 0.85 writes it, for comparisons whose reference is an answer of Pi 0.85:
    without the message fields 0.85 does not write (``PI16_MESSAGE_FIELDS``: ``durationMs`` and
    ``thinkingLevel`` of an assistant or tool result message, any cost's ``totalFromProvider``,
    a tool call's ``argumentsError``), and an Anthropic reply's ``responseModel`` (the model
    that answered, where another than the requested one did) written over its ``model``, as
    0.85 did. Other keys of those names (a context's or a state's ``thinkingLevel``) stay."""
    if isinstance(value, list):
        return [as_pi085(item) for item in value]
    if not isinstance(value, dict):
        return value
    message = value.get("role") in ("assistant", "toolResult")
    tool_call = value.get("type") == "toolCall"
    out = {
        key: as_pi085(item)
        for key, item in value.items()
        if not (
            key == "totalFromProvider"
            or (message and key in PI16_MESSAGE_FIELDS)
            or (tool_call and key == "argumentsError")
        )
    }
    if value.get("role") == "assistant" and value.get("api") == "anthropic-messages" and "responseModel" in out:
        out["model"] = out.pop("responseModel")
    return out


VALIDATION_PREFIX = 'Validation failed for tool "'
"""How a tool result of arguments that failed their schema starts (both Pis)."""


def has_validation_failure(answer: Any) -> bool:
    """Whether an ``agent-events`` answer holds a tool result of arguments that failed."""
    return isinstance(answer, dict) and bool(_validation_texts(answer))


def _validation_texts(answer: dict[str, Any]) -> dict[str, str]:
    texts = {}
    for message in answer.get("finalMessages", []):
        content = message.get("content") if message.get("role") == "toolResult" else None
        text = content[0].get("text", "") if content else ""
        if text.startswith(VALIDATION_PREFIX):
            texts[message["toolCallId"]] = text
    return texts


def with_validation_of(expected: Any, actual: Any, answer_1_6: dict[str, Any]) -> tuple[Any, Any]:
    """Pi 0.85's ``agent-events`` answer and ours, comparable where tool arguments failed their
    schema: each validation text of 0.85 replaced by Pi 1.6's for the same tool call (1.6 words
    and coerces differently: docs/pi-1.6/tools-and-compaction.md), and ``usage`` left out on both sides
    (the faux provider counts tokens from the context's characters, so the shorter texts give
    other counts). The rest is compared with 0.85: 1.6's whole answer also carries its other
    changes (system messages)."""
    old, new = _validation_texts(expected), _validation_texts(answer_1_6)
    assert old.keys() == new.keys(), (
        f"the Pis failed validation for different calls: {sorted(old)} {sorted(new)}"
    )
    replacements = {old[call]: new[call] for call in old}

    def replaced(value: Any) -> Any:
        if isinstance(value, str):
            return replacements.get(value, value)
        if isinstance(value, list):
            return [replaced(item) for item in value]
        if isinstance(value, dict):
            return {key: replaced(item) for key, item in value.items() if key != "usage"}
        return value

    return replaced(expected), replaced(actual)
