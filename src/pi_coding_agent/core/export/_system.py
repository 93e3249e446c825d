"""Prompts and tool lists on the page: the running session's in the header, and Pi 1.6's
``system`` messages in the conversation, where they occur.

A branch's first system entry (a ``system`` message, or a compaction carrying a
``systemMessage``) states the whole prompt and tools: it is shown as "System Prompt" and
"Available Tools". A later one patches them: it is shown as "System Prompt Update: <what
changed>" with its text and each patched section, then "Tools Added" and "Tools Removed", as
Pi 1.6's page shows them.
"""

from __future__ import annotations

from html import escape
from typing import Any

PROMPT_PREVIEW_LINES = 10


def prompt_block(title: str, text: str) -> str:
    """A prompt under ``title``, folded after ten lines (a click unfolds it)."""
    lines = text.split("\n")
    header = f'<div class="system-prompt-header">{escape(title)}</div>'
    if len(lines) <= PROMPT_PREVIEW_LINES:
        return f'<div class="system-prompt">{header}<pre>{escape(text)}</pre></div>'
    head, tail = "\n".join(lines[:PROMPT_PREVIEW_LINES]), "\n".join(lines[PROMPT_PREVIEW_LINES:])
    more = len(lines) - PROMPT_PREVIEW_LINES
    return (
        f'<div class="system-prompt foldable">{header}'
        f'<pre>{escape(head)}<span class="fold-rest">\n{escape(tail)}</span></pre>'
        f'<div class="fold-hint">... ({more} more lines, click to expand)</div></div>'
    )


def _tool(tool: dict[str, Any]) -> str:
    name, description = escape(str(tool.get("name", ""))), escape(str(tool.get("description", "")))
    parameters = tool.get("parameters")
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    if not isinstance(properties, dict) or not properties:
        return f'<div class="tool-item"><span class="tool-item-name">{name}</span> - <span class="tool-item-desc">{description}</span></div>'
    required = parameters.get("required") if isinstance(parameters, dict) else None
    rows = []
    for key, given in properties.items():
        spec = given if isinstance(given, dict) else {}
        needed = isinstance(required, list) and key in required
        rows.append(
            f'<div class="tool-param"><span class="tool-param-name">{escape(str(key))}</span> '
            f'<span class="tool-param-type">{escape(str(spec.get("type", "any")))}</span> '
            f'<span class="tool-param-{"required" if needed else "optional"}">{"required" if needed else "optional"}</span>'
            + (
                f'<div class="tool-param-desc">{escape(str(spec["description"]))}</div>'
                if spec.get("description")
                else ""
            )
            + "</div>"
        )
    return (
        f'<div class="tool-item foldable"><span class="tool-item-name">{name}</span> - <span class="tool-item-desc">{description}</span>'
        f'<div class="fold-rest tool-params">{"".join(rows)}</div></div>'
    )


def tools_list(title: str, tools: Any, names_only: bool = False) -> str:
    """Tool declarations under ``title`` (each unfolds to its parameters); ``""`` for none."""
    listed = [tool for tool in tools if isinstance(tool, dict)] if isinstance(tools, list) else []
    if not listed:
        return ""
    items = (
        f'<div class="tool-item"><span class="tool-item-name">{escape(str(tool.get("name", "")))}</span></div>'
        if names_only
        else _tool(tool)
        for tool in listed
    )
    return f'<div class="tools-list"><div class="tools-header">{escape(title)}</div>{"".join(items)}</div>'


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(block["text"])
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and block.get("text")
    )


def _sections(message: dict[str, Any]) -> dict[str, Any]:
    found = message.get("sections")
    return found if isinstance(found, dict) else {}


def _tool_names(tools: Any) -> list[str]:
    return (
        [str(tool.get("name", "")) for tool in tools if isinstance(tool, dict)]
        if isinstance(tools, list)
        else []
    )


def prompt_text(message: dict[str, Any]) -> str:
    """The whole prompt a system message states: its text, then its sections."""
    parts = [
        _content_text(message.get("content")),
        *(str(v) for v in _sections(message).values() if v is not None),
    ]
    return "\n\n".join(part for part in parts if part)


def _update_text(message: dict[str, Any]) -> str:
    """A later system message's text: its own, then each patched or removed section."""
    parts = [_content_text(message.get("content"))]
    for name, value in _sections(message).items():
        parts.append(
            f'Removed system prompt section "{name}".'
            if value is None
            else f'Updated system prompt section "{name}":\n\n{value}'
        )
    return "\n\n".join(part for part in parts if part)


def update_summary(message: dict[str, Any]) -> str:
    """What a later system message changes: ``instructions, project, -rules, tools +bash -edit``."""
    parts = ["instructions"] if _content_text(message.get("content")) else []
    parts += [name if value is not None else f"-{name}" for name, value in _sections(message).items()]
    changes = [f"+{name}" for name in _tool_names(message.get("toolsAdded"))]
    changes += [f"-{name}" for name in _tool_names(message.get("toolsRemoved"))]
    if changes:
        parts.append("tools " + " ".join(changes))
    return ", ".join(parts)


def system_html(message: dict[str, Any], leading: bool) -> str:
    """A system message's blocks (``leading``: the first system entry of its branch)."""
    if leading:
        text = prompt_text(message)
        return (prompt_block("System Prompt", text) if text else "") + tools_list(
            "Available Tools", message.get("toolsAdded")
        )
    text, changes = _update_text(message), update_summary(message)
    title = "System Prompt Update" + (f": {changes}" if changes else "")
    return (
        (prompt_block(title, text) if text else "")
        + tools_list("Tools Added", message.get("toolsAdded"))
        + tools_list("Tools Removed", message.get("toolsRemoved"), names_only=True)
    )


def carries_system_state(entry: dict[str, Any]) -> bool:
    """A system message, or a compaction that restates the prompt (``systemMessage``)."""
    message = entry.get("message")
    if entry.get("type") == "message" and isinstance(message, dict):
        return message.get("role") == "system"
    return entry.get("type") == "compaction" and bool(entry.get("systemMessage"))


def system_state_above(entries: list[dict[str, Any]]) -> set[str]:
    """Ids of the entries with a system entry above them on their branch: a system entry not
    among them is the first of its branch. A parent is looked up among the entries before
    (a file lists parents first), so a malformed file cannot make a cycle."""
    above: set[str] = set()
    earlier: dict[str, dict[str, Any]] = {}
    for entry in entries:
        parent_id = str(entry.get("parentId"))
        parent = earlier.get(parent_id)
        if parent is not None and (parent_id in above or carries_system_state(parent)):
            above.add(str(entry.get("id")))
        earlier.setdefault(str(entry.get("id")), entry)
    return above
