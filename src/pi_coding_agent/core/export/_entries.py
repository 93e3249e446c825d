"""One session entry (its stored JSON) as HTML, and its one-line title for the tree.

Everything from the file is escaped; images become ``data:`` URIs only when their MIME type
is an image type and their payload is base64, so no entry can inject markup or make the
page fetch anything.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from pi_ai.js_json import stringify

_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_MIME = re.compile(r"^image/[A-Za-z0-9.+-]+$")
TITLE_CHARS = 80


def _blocks_of(content: Any) -> list[dict[str, Any]]:
    """The blocks of a message's ``content``: nothing unless it is a list; only its objects."""
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in _blocks_of(content) if b.get("type") == "text")


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def _image(block: dict[str, Any]) -> str:
    mime, data = block.get("mimeType"), block.get("data")
    if not (isinstance(mime, str) and _MIME.match(mime) and isinstance(data, str) and _BASE64.match(data)):
        return '<div class="note">[image that cannot be shown]</div>'
    return f'<img class="image" alt="image" src="data:{mime};base64,{"".join(data.split())}">'


def _blocks(content: Any) -> str:
    """Text and image blocks of user-like content."""
    if isinstance(content, str):
        return f'<div class="text">{escape(content)}</div>'
    parts = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(f'<div class="text">{escape(str(block.get("text", "")))}</div>')
        elif block.get("type") == "image":
            parts.append(_image(block))
    return "".join(parts)


def _assistant(message: dict[str, Any]) -> str:
    parts = []
    for block in _blocks_of(message.get("content")):
        kind = block.get("type")
        if kind == "text":
            parts.append(f'<div class="text">{escape(str(block.get("text", "")))}</div>')
        elif kind == "thinking":
            thinking = escape(str(block.get("thinking", "")))
            parts.append(
                f'<details class="thinking" open><summary>Thinking</summary><div class="text">{thinking}</div></details>'
            )
        elif kind == "toolCall":
            arguments = escape(stringify(block.get("arguments", {}), 2))
            name = escape(str(block.get("name", "")))
            parts.append(
                f'<div class="tool-call"><span class="tool-name">{name}</span><pre>{arguments}</pre></div>'
            )
    error = message.get("errorMessage")
    if error:
        parts.append(f'<div class="error">{escape(str(error))}</div>')
    model = escape(f"{message.get('provider', '')}/{message.get('model', '')}")
    return f'<div class="meta">{model} · {escape(str(message.get("stopReason", "")))}</div>' + "".join(parts)


def _message(message: dict[str, Any]) -> tuple[str, str, str]:
    """(css class, heading, body) of a message entry."""
    role = message.get("role")
    if role == "user":
        return "user", "User", _blocks(message.get("content"))
    if role == "assistant":
        return "assistant", "Assistant", _assistant(message)
    if role == "toolResult":
        name = escape(str(message.get("toolName", "")))
        css = "tool-result error-result" if message.get("isError") else "tool-result"
        return (
            css,
            f"Tool result · {name}",
            f"<pre>{escape(_text(message.get('content')))}</pre>"
            + "".join(_image(b) for b in _blocks_of(message.get("content")) if b.get("type") == "image"),
        )
    if role == "bashExecution":
        command = escape(str(message.get("command", "")))
        status = "cancelled" if message.get("cancelled") else f"exit {message.get('exitCode', '?')}"
        body = f'<pre class="command">$ {command}</pre><pre>{escape(str(message.get("output", "")))}</pre>'
        return "bash", f"Bash · {escape(status)}", body
    if role == "custom":
        return (
            "custom",
            f"Extension · {escape(str(message.get('customType', '')))}",
            _blocks(message.get("content")),
        )
    return (
        "other",
        escape(str(role)),
        f"<pre>{escape(stringify(message, 2))}</pre>",
    )


def render_entry(entry: dict[str, Any]) -> tuple[str, str, str] | None:
    """(css class, heading, body) of an entry; ``None`` for entries with nothing to show."""
    kind = entry.get("type")
    if kind == "message" and isinstance(entry.get("message"), dict):
        return _message(entry["message"])
    if kind == "custom_message":
        return (
            "custom",
            f"Extension · {escape(str(entry.get('customType', '')))}",
            _blocks(entry.get("content")),
        )
    if kind == "compaction":
        tokens = entry.get("tokensBefore")
        heading = f"Compaction · {tokens} tokens summarized" if isinstance(tokens, int) else "Compaction"
        return (
            "summary compaction",
            heading,
            f'<div class="text">{escape(str(entry.get("summary", "")))}</div>',
        )
    if kind == "branch_summary":
        return (
            "summary branch-summary",
            "Branch summary",
            f'<div class="text">{escape(str(entry.get("summary", "")))}</div>',
        )
    if kind == "model_change":
        model = escape(f"{entry.get('provider', '')}/{entry.get('modelId', '')}")
        return "note", "Model", f"<div>{model}</div>"
    if kind == "thinking_level_change":
        return "note", "Thinking level", f"<div>{escape(str(entry.get('thinkingLevel', '')))}</div>"
    if kind == "session_info":
        return "note", "Session name", f"<div>{escape(str(entry.get('name', '')))}</div>"
    return None


def entry_title(entry: dict[str, Any]) -> str:
    """A short plain-text line naming the entry in the tree."""
    kind = entry.get("type")
    found = entry.get("message")
    message: dict[str, Any] = found if isinstance(found, dict) else {}
    if kind == "message":
        role = message.get("role")
        if role == "user":
            return "user: " + _one_line(_text(message.get("content")))
        if role == "assistant":
            text = _text(message.get("content"))
            calls = [b.get("name", "") for b in _blocks_of(message.get("content")) if b.get("type") == "toolCall"]
            return "assistant: " + _one_line(
                text or ", ".join(str(c) for c in calls) or str(message.get("stopReason", ""))
            )
        if role == "toolResult":
            return f"result: {message.get('toolName', '')}"
        if role == "bashExecution":
            return "$ " + _one_line(str(message.get("command", "")))
        return str(role)
    if kind in ("compaction", "branch_summary"):
        return ("compaction: " if kind == "compaction" else "branch summary: ") + _one_line(
            str(entry.get("summary", ""))
        )
    if kind == "model_change":
        return f"model: {entry.get('provider', '')}/{entry.get('modelId', '')}"
    if kind == "thinking_level_change":
        return f"thinking: {entry.get('thinkingLevel', '')}"
    if kind == "label":
        return f"label: {entry.get('label', '')}"
    if kind == "session_info":
        return f"name: {entry.get('name', '')}"
    return str(kind)
