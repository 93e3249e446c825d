"""Each session entry (its stored JSON) as the page shows it, and its line in the tree.

User and assistant text is Markdown; thinking is folded away with the T key; a tool call is
shown with its result (found by the call's id) inside the assistant message, so tool result
entries draw nothing of their own unless their call is missing from the file. Compactions
unfold on a click. Settings entries (labels, thinking levels, extension state, Pi 1.6's context
edits) draw nothing. Pi 1.6's system messages show the prompt and tools they state or change.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html import escape
from typing import Any

from pi_ai.js_json import stringify
from pi_coding_agent.core.export._code import output_block
from pi_coding_agent.core.export._markdown import markdown_html
from pi_coding_agent.core.export._system import system_html, update_summary
from pi_coding_agent.core.export._tools import (
    blocks_of,
    image_html,
    text_of,
    tool_call_html,
    tool_call_title,
)

_SKILL = re.compile(r'^<skill name="([^"]+)" location="([^"]+)">\n([\s\S]*?)\n</skill>(?:\n\n([\s\S]+))?$')
TITLE_CHARS = 100


def _message_of(entry: dict[str, Any]) -> dict[str, Any]:
    found = entry.get("message")
    return found if isinstance(found, dict) else {}


def tool_results(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The first tool result message of each tool call id in the file."""
    results: dict[str, dict[str, Any]] = {}
    for entry in entries:
        message = _message_of(entry)
        call_id = message.get("toolCallId")
        if (
            entry.get("type") == "message"
            and message.get("role") == "toolResult"
            and isinstance(call_id, str)
        ):
            results.setdefault(call_id, message)
    return results


def tool_calls(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every tool call block of the file's assistant messages, by call id."""
    calls: dict[str, dict[str, Any]] = {}
    for entry in entries:
        message = _message_of(entry)
        if entry.get("type") == "message" and message.get("role") == "assistant":
            for block in blocks_of(message.get("content")):
                if block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                    calls[block["id"]] = block
    return calls


def _time(timestamp: Any) -> str:
    """A ``<time>`` the page's script shows in the reader's local time (UTC without it)."""
    if not isinstance(timestamp, str):
        return ""
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return ""
    utc = moment.astimezone(UTC) if moment.tzinfo else moment
    return f'<time class="message-timestamp" datetime="{escape(timestamp)}">{utc:%H:%M:%S}</time>'


def _chrome(entry: dict[str, Any]) -> str:
    """The copy-link button and the time at the top of a message."""
    entry_id = escape(str(entry.get("id", "")))
    button = f'<button type="button" class="copy-link" data-entry-id="{entry_id}" title="Copy link to this message">#</button>'
    return button + _time(entry.get("timestamp"))


def _images(content: Any, css: str) -> str:
    images = [image_html(block, css) for block in blocks_of(content) if block.get("type") == "image"]
    return f'<div class="message-images">{"".join(images)}</div>' if images else ""


def _user(entry: dict[str, Any], message: dict[str, Any]) -> str:
    content = message.get("content")
    text = text_of(content)
    skill = _SKILL.match(text)
    body = _images(content, "message-image")
    if skill:
        name, _location, instructions, request = skill.groups()
        folded = (
            f'<div class="skill-invocation foldable"><div class="skill-label">[skill] {escape(name)}</div>'
            f'<div class="fold-hint">{escape(name)} (click to expand)</div>'
            f'<div class="fold-rest markdown">{markdown_html(instructions)}</div></div>'
        )
        request_html = markdown_html(request.strip()) if request and request.strip() else ""
        user = (
            f'<div class="user-message">{body}<div class="markdown">{request_html}</div></div>'
            if body or request_html
            else ""
        )
        return f'<div class="skill-entry">{_chrome(entry)}{folded}{user}</div>'
    text_html = f'<div class="markdown">{markdown_html(text)}</div>' if text.strip() else ""
    return f'<div class="user-message">{_chrome(entry)}{body}{text_html}</div>'


def _assistant(entry: dict[str, Any], message: dict[str, Any], results: dict[str, dict[str, Any]]) -> str:
    blocks = blocks_of(message.get("content"))
    parts = [_chrome(entry)]
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            parts.append(f'<div class="assistant-text markdown">{markdown_html(str(block["text"]))}</div>')
        elif kind == "thinking" and str(block.get("thinking", "")).strip():
            parts.append(
                f'<div class="thinking-block"><div class="thinking-text">{escape(str(block["thinking"]))}</div>'
                '<div class="thinking-folded">Thinking ...</div></div>'
            )
    for block in blocks:
        if block.get("type") == "toolCall":
            parts.append(tool_call_html(block, results.get(str(block.get("id")))))
    if message.get("stopReason") == "aborted":
        parts.append('<div class="error-text">Aborted</div>')
    elif message.get("stopReason") == "error":
        parts.append(
            f'<div class="error-text">Error: {escape(str(message.get("errorMessage") or "Unknown error"))}</div>'
        )
    return f'<div class="assistant-message">{"".join(parts)}</div>'


def _bash(entry: dict[str, Any], message: dict[str, Any]) -> str:
    code = message.get("exitCode")
    failed = bool(message.get("cancelled")) or (code not in (0, None))
    output = str(message.get("output") or "")
    html = f'<div class="tool-command">$ {escape(str(message.get("command", "")))}</div>'
    html += output_block(output, 10) if output else ""
    if message.get("cancelled"):
        html += '<div class="warning-text">(cancelled)</div>'
    elif failed:
        html += f'<div class="error-text">(exit {escape(str(code))})</div>'
    return f'<div class="tool-execution {"error" if failed else "success"}">{_time(entry.get("timestamp"))}{html}</div>'


def _orphan_result(entry: dict[str, Any], message: dict[str, Any]) -> str:
    """A tool result whose call is not in the file: its tool's name and output."""
    status = "error" if message.get("isError") else "success"
    output = text_of(message.get("content"))
    return (
        f'<div class="tool-execution {status}">{_time(entry.get("timestamp"))}'
        f'<div class="tool-header"><span class="tool-name">{escape(str(message.get("toolName", "tool")))}</span></div>'
        f"{_images(message.get('content'), 'tool-image')}{output_block(output, 10) if output else ''}</div>"
    )


def _compaction(entry: dict[str, Any]) -> str:
    tokens = entry.get("tokensBefore")
    amount = (
        f"{tokens:,}" if isinstance(tokens, int) and not isinstance(tokens, bool) else escape(str(tokens))
    )
    return (
        f'<div class="compaction foldable"><div class="compaction-label">[compaction]</div>'
        f'<div class="fold-hint">Compacted from {amount} tokens</div>'
        f'<div class="fold-rest"><strong>Compacted from {amount} tokens</strong>\n\n{escape(str(entry.get("summary", "")))}</div></div>'
    )


def render_entry(
    entry: dict[str, Any],
    results: dict[str, dict[str, Any]],
    calls: dict[str, dict[str, Any]],
    system_above: set[str],
) -> str:
    """The entry's HTML; ``""`` for entries that show nothing in the conversation.
    ``system_above``: ids with a system entry above them on their branch (``system_state_above``)."""
    kind = entry.get("type")
    if kind == "message":
        message = _message_of(entry)
        role = message.get("role")
        if role == "system":
            html = system_html(message, str(entry.get("id")) not in system_above)
            return f'<div class="system-entry">{_time(entry.get("timestamp"))}{html}</div>' if html else ""
        if role == "user":
            return _user(entry, message)
        if role == "assistant":
            return _assistant(entry, message, results)
        if role == "bashExecution":
            return _bash(entry, message)
        if role == "toolResult":
            return "" if str(message.get("toolCallId")) in calls else _orphan_result(entry, message)
        return ""
    if kind == "model_change":
        model = f"{entry.get('provider', '')}/{entry.get('modelId', '')}"
        return f'<div class="model-change">{_time(entry.get("timestamp"))}Switched to model: <span class="model-name">{escape(model)}</span></div>'
    if kind == "compaction":
        return _compaction(entry)
    if kind == "branch_summary":
        return (
            f'<div class="branch-summary">{_time(entry.get("timestamp"))}<div class="branch-summary-header">Branch Summary</div>'
            f'<div class="markdown">{markdown_html(str(entry.get("summary", "")))}</div></div>'
        )
    if kind == "custom_message" and entry.get("display"):
        return _custom(entry, str(entry.get("customType", "")), entry.get("content"))
    return ""


def _custom(entry: dict[str, Any], custom_type: str, content: Any) -> str:
    text = content if isinstance(content, str) else stringify(content)
    return (
        f'<div class="hook-message">{_time(entry.get("timestamp"))}<div class="hook-type">[{escape(custom_type)}]</div>'
        f'<div class="markdown">{markdown_html(text)}</div></div>'
    )


def _one_line(text: str) -> str:
    line = text.replace("\n", " ").replace("\t", " ").strip()
    return line if len(line) <= TITLE_CHARS else line[:TITLE_CHARS] + "..."


def tree_title(
    entry: dict[str, Any], calls: dict[str, dict[str, Any]], system_above: set[str]
) -> tuple[str, str]:
    """(css class of the role, text) of the entry's line in the tree; the text is plain."""
    kind = entry.get("type")
    if kind == "message":
        message = _message_of(entry)
        role = message.get("role")
        if role == "system":
            if str(entry.get("id")) not in system_above:
                return "muted", "[system prompt]"
            changes = update_summary(message)
            return "muted", f"[system update{': ' + _one_line(changes) if changes else ''}]"
        if role == "user":
            text = text_of(message.get("content"), "")
            skill = _SKILL.match(text)
            if skill:
                request = skill.group(4)
                return "skill", f"skill: {skill.group(1)}" + (
                    f" · user: {_one_line(request)}" if request else ""
                )
            return "user", "user: " + _one_line(text)
        if role == "assistant":
            text = _one_line(text_of(message.get("content"), ""))
            if text:
                return "assistant", f"assistant: {text}"
            if message.get("stopReason") == "aborted":
                return "assistant", "assistant: (aborted)"
            if message.get("errorMessage"):
                return "assistant", f"assistant: {_one_line(str(message['errorMessage']))}"
            return "assistant", "assistant: (no text)"
        if role == "toolResult":
            call = calls.get(str(message.get("toolCallId")))
            if call is not None:
                return "tool", tool_call_title(str(call.get("name", "")), call.get("arguments"))
            return "tool", f"[{message.get('toolName') or 'tool'}]"
        if role == "bashExecution":
            return "tool", "[bash]: " + _one_line(str(message.get("command", "")))
        return "muted", f"[{role}]"
    if kind == "compaction":
        tokens = entry.get("tokensBefore")
        amount = (
            f"{(tokens + 500) // 1000}k" if isinstance(tokens, int) and not isinstance(tokens, bool) else "?"
        )
        return "compaction", f"[compaction: {amount} tokens]"
    if kind == "branch_summary":
        return "branch-summary", "[branch summary]: " + _one_line(str(entry.get("summary", "")))
    if kind == "custom_message":
        content = entry.get("content")
        text = content if isinstance(content, str) else text_of(content, "")
        return "custom", f"[{entry.get('customType', '')}]: {_one_line(text)}"
    if kind == "model_change":
        return "muted", f"[model: {entry.get('modelId', '')}]"
    if kind == "thinking_level_change":
        return "muted", f"[thinking: {entry.get('thinkingLevel', '')}]"
    if kind == "context_edit":
        edit = "omit" if entry.get("replacement") is None else "replace"
        return "muted", f"[context {edit}: {entry.get('targetId', '')}]"
    return "muted", f"[{kind}]"


def tree_filter_flags(entry: dict[str, Any]) -> str:
    """Letters the tree's filters read: ``s`` a settings entry, ``r`` a tool result, ``u`` a user
    message, ``q`` an assistant message with only tool calls (hidden under every filter, as
    Pi hides it)."""
    kind = entry.get("type")
    if kind in ("label", "custom", "context_edit", "model_change", "thinking_level_change"):
        return "s"
    message = _message_of(entry)
    role = message.get("role") if kind == "message" else None
    if role == "toolResult":
        return "r"
    if role == "user":
        return "u"
    if role == "assistant":
        has_text = any(
            str(b.get("text", "")).strip()
            for b in blocks_of(message.get("content"))
            if b.get("type") == "text"
        )
        if isinstance(message.get("content"), str):
            has_text = bool(message["content"].strip())
        plain_stop = message.get("stopReason") in (None, "stop", "toolUse")
        return "" if has_text or not plain_stop else "q"
    return ""
