"""OpenAI-compatible servers on the user's own machine: what they need that OpenAI's API does not.

Measured against llama-cpp-python's server (docs/providers/local-servers.md has the details and a
``models.json`` for each server): its Qwen chat template fails on user content sent as a list of
text parts, it rejects ``content: null`` on an assistant message with tool calls, it ignores
``max_completion_tokens``; and small models write their tool calls as JSON inside the text.

Each fix is a ``compat`` key of the model, on by default when ``baseUrl`` points at this machine or
a private network (loopback, ``localhost``, 10/8, 172.16/12, 192.168/16, ``*.local``); setting the
key to ``false`` turns it off, ``true`` turns it on for any URL:

- ``sendTextContentAsString``: a user message made only of text goes as one string;
- ``nullContentAsEmpty``: an assistant message with only tool calls gets ``content: ""``;
- ``maxTokensField`` (Pi's key): unset, local servers get ``max_tokens``;
- ``supportsDeveloperRole`` (Pi's key): unset, local servers get ``system`` instead of ``developer``;
- ``parseToolCallsFromText``: a reply whose text holds tool calls of offered tools (``<tool_call>``
  tags, fenced JSON, bare JSON) becomes real ``toolCall`` blocks, and the turn a ``toolUse`` one.
"""

from __future__ import annotations

import ipaddress
import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pi_ai._context import Tool
from pi_ai._event_stream import AssistantMessageEventStream
from pi_ai._events import ToolCallDeltaEvent, ToolCallStartEvent
from pi_ai._messages import AssistantMessage, TextContent, ToolCall
from pi_ai._model import Model
from pi_ai.js_json import stringify

__all__ = [
    "LocalServerCompat",
    "adapt_local_request",
    "extract_text_tool_calls",
    "is_local_base_url",
    "local_server_compat",
    "promote_text_tool_calls",
    "with_pi_request_shape",
]


def is_local_base_url(url: str) -> bool:
    """Whether ``url`` names this machine or a private network."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    if host in ("localhost", "host.docker.internal") or host.endswith((".localhost", ".local")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_unspecified


@dataclass(frozen=True, slots=True)
class LocalServerCompat:
    text_content_as_string: bool
    null_content_as_empty: bool
    max_tokens_instead: bool
    system_for_developer: bool
    parse_tool_calls_from_text: bool

    @property
    def rewrites_request(self) -> bool:
        return (
            self.text_content_as_string
            or self.null_content_as_empty
            or self.max_tokens_instead
            or self.system_for_developer
        )


def local_server_compat(model: Model) -> LocalServerCompat:
    explicit = model.compat or {}
    local = is_local_base_url(model.base_url)

    def flag(key: str) -> bool:
        value = explicit.get(key)
        return bool(value) if isinstance(value, bool) else local

    return LocalServerCompat(
        text_content_as_string=flag("sendTextContentAsString"),
        null_content_as_empty=flag("nullContentAsEmpty"),
        max_tokens_instead=local and explicit.get("maxTokensField") is None,
        system_for_developer=local and explicit.get("supportsDeveloperRole") is None,
        parse_tool_calls_from_text=flag("parseToolCallsFromText"),
    )


def _text_parts_only(content: Any) -> bool:
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(part, dict) and part.get("type") == "text" for part in content)
    )


def with_pi_request_shape(model: Model) -> Model:
    """``model`` with every local-server rewrite pinned off (and Pi's own choice of
    ``maxTokensField`` and ``supportsDeveloperRole``): requests exactly as Pi 0.85 sends them.
    The conformance runner compares payloads with Pi's in this shape."""
    import msgspec

    from pi_ai.api._completions_payload import completions_compat

    if model.api != "openai-completions" or not is_local_base_url(model.base_url):
        return model
    detected = completions_compat(model)
    pinned = {
        "sendTextContentAsString": False,
        "nullContentAsEmpty": False,
        "parseToolCallsFromText": False,
        "maxTokensField": detected.max_tokens_field,
        "supportsDeveloperRole": detected.supports_developer_role,
    }
    return msgspec.structs.replace(model, compat={**pinned, **(model.compat or {})})


def adapt_local_request(params: dict[str, Any], compat: LocalServerCompat) -> dict[str, Any]:
    """The Chat Completions body with the rewrites ``compat`` asks for (in place; returned)."""
    if not compat.rewrites_request:
        return params
    for message in params.get("messages") or ():
        role = message.get("role")
        content = message.get("content")
        if compat.system_for_developer and role == "developer":
            message["role"] = "system"
        if compat.text_content_as_string and role == "user" and _text_parts_only(content):
            message["content"] = "".join(str(part.get("text", "")) for part in content)
        if compat.null_content_as_empty and role == "assistant" and content is None:
            message["content"] = ""
    if compat.max_tokens_instead and "max_completion_tokens" in params:
        params["max_tokens"] = params.pop("max_completion_tokens")
    return params


# --------------------------------------------------------------------------- tool calls in text

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_TOOLS_TAG = re.compile(r"<tools>\s*(.*?)\s*</tools>", re.DOTALL)
_FENCED = re.compile(r"```[a-zA-Z]*\s*\n(.*?)\n?\s*```", re.DOTALL)


def _as_call(text: str, names: set[str]) -> list[tuple[str, dict[str, Any]]] | None:
    """The call(s) a JSON snippet spells, or None when it is not a call of an offered tool."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    items = value if isinstance(value, list) else [value]
    calls: list[tuple[str, dict[str, Any]]] = []
    for item in items:
        if not isinstance(item, dict) or item.get("name") not in names:
            return None
        arguments = item.get("arguments", item.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                return None
        if not isinstance(arguments, dict):
            return None
        calls.append((str(item["name"]), arguments))
    return calls or None


def extract_text_tool_calls(text: str, names: set[str]) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """(text without the calls, calls) for tool calls written into a reply's text."""
    calls: list[tuple[str, dict[str, Any]]] = []
    remaining = text
    for pattern in (_TAGGED, _TOOLS_TAG, _FENCED):
        kept: list[str] = []
        position = 0
        for match in pattern.finditer(remaining):
            found = _as_call(match.group(1), names)
            if found is None:
                continue
            calls.extend(found)
            kept.append(remaining[position : match.start()])
            position = match.end()
        kept.append(remaining[position:])
        remaining = "".join(kept)
    if not calls:
        whole = _as_call(remaining.strip(), names)
        if whole is not None:
            return "", whole
    return remaining.strip(), calls


def promote_text_tool_calls(
    stream: AssistantMessageEventStream, output: AssistantMessage, tools: Sequence[Tool] | None
) -> bool:
    """Turn tool calls written in ``output``'s text into ``toolCall`` blocks (start and delta events
    are pushed here; the caller's end-of-stream handling closes every block). True if any were found."""
    names = {tool.name for tool in tools or ()}
    if not names or any(isinstance(block, ToolCall) for block in output.content):
        return False
    found = False
    for block in list(output.content):
        if not isinstance(block, TextContent):
            continue
        remaining, calls = extract_text_tool_calls(block.text, names)
        if not calls:
            continue
        found = True
        block.text = remaining
        for name, arguments in calls:
            call = ToolCall(id=f"call_{uuid.uuid4().hex[:24]}", name=name, arguments=arguments)
            output.content.append(call)
            position = len(output.content) - 1
            stream.push(ToolCallStartEvent(content_index=position, partial=output))
            delta = stringify(arguments)
            stream.push(ToolCallDeltaEvent(content_index=position, delta=delta, partial=output))
    return found
