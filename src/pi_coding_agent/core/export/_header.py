"""The page's header: the session id, date, models, message counts, tool calls, tokens and cost
over the whole file (every branch), then the system prompt and the tools when the export
comes from a running session.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Any

from pi_coding_agent.core.export._tools import blocks_of

_PROMPT_PREVIEW_LINES = 10


@dataclass
class _Figures:
    counts: dict[str, int] = field(default_factory=dict)
    tool_calls: int = 0
    tokens: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(("input", "output", "cacheRead", "cacheWrite"), 0)
    )
    cost: float = 0.0
    models: list[str] = field(default_factory=list)

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1


def _number(value: Any) -> float:
    """A usage figure as a float (a number too large for one is infinite, as in JavaScript)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return 0.0
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _assistant(figures: _Figures, message: dict[str, Any]) -> None:
    figures.count("assistant")
    model = message.get("model")
    if model:
        name = f"{message['provider']}/{model}" if message.get("provider") else str(model)
        if name not in figures.models:
            figures.models.append(name)
    usage = message.get("usage")
    if isinstance(usage, dict):
        for key in figures.tokens:
            figures.tokens[key] += _number(usage.get(key))
        cost = usage.get("cost")
        if isinstance(cost, dict):
            figures.cost += sum(
                _number(cost.get(key)) for key in ("input", "output", "cacheRead", "cacheWrite")
            )
    figures.tool_calls += sum(
        1 for block in blocks_of(message.get("content")) if block.get("type") == "toolCall"
    )


def _figures(entries: list[dict[str, Any]]) -> _Figures:
    figures = _Figures()
    for entry in entries:
        kind = entry.get("type")
        found = entry.get("message")
        message: dict[str, Any] = found if isinstance(found, dict) else {}
        if kind == "message":
            role = message.get("role")
            if role == "user":
                figures.count("user")
            elif role == "assistant":
                _assistant(figures, message)
            elif role == "toolResult":
                figures.count("tool results")
        elif kind == "compaction":
            figures.count("compactions")
        elif kind == "branch_summary":
            figures.count("branch summaries")
        elif kind == "custom_message":
            figures.count("custom")
    return figures


def _tokens(count: float) -> str:
    if not math.isfinite(count):
        return str(count)
    if count < 1000:
        return str(int(count))
    if count < 10000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def _item(label: str, value: str) -> str:
    return f'<div class="info-item"><span class="info-label">{label}:</span><span class="info-value">{value}</span></div>'


def _system_prompt(prompt: str) -> str:
    lines = prompt.split("\n")
    if len(lines) <= _PROMPT_PREVIEW_LINES:
        return f'<div class="system-prompt"><div class="system-prompt-header">System Prompt</div><pre>{escape(prompt)}</pre></div>'
    head, tail = "\n".join(lines[:_PROMPT_PREVIEW_LINES]), "\n".join(lines[_PROMPT_PREVIEW_LINES:])
    more = len(lines) - _PROMPT_PREVIEW_LINES
    return (
        '<div class="system-prompt foldable"><div class="system-prompt-header">System Prompt</div>'
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


def header_html(
    header: dict[str, Any],
    entries: list[dict[str, Any]],
    name: str | None,
    system_prompt: str | None,
    tools: list[dict[str, Any]],
) -> str:
    figures = _figures(entries)
    tokens = " ".join(
        f"{mark}{_tokens(figures.tokens[key])}"
        for mark, key in (("↑", "input"), ("↓", "output"), ("R", "cacheRead"), ("W", "cacheWrite"))
        if figures.tokens[key]
    )
    messages = ", ".join(
        f"{figures.counts[key]} {key}"
        for key in ("user", "assistant", "tool results", "custom", "compactions", "branch summaries")
        if figures.counts.get(key)
    )
    timestamp = header.get("timestamp")
    date = (
        f'<time datetime="{escape(timestamp)}" data-format="date">{escape(timestamp)}</time>'
        if isinstance(timestamp, str)
        else "unknown"
    )
    info = [
        *([_item("Name", escape(name))] if name else []),
        _item("Date", date),
        _item("Models", escape(", ".join(figures.models) or "unknown")),
        _item("Messages", messages or "0"),
        _item("Tool Calls", str(figures.tool_calls)),
        _item("Tokens", tokens or "0"),
        _item("Cost", f"${figures.cost:.3f}"),
    ]
    html = (
        f'<div class="header"><h1>Session: {escape(str(header.get("id") or "unknown"))}</h1>'
        '<div class="help-bar"><span class="help-hint">T toggle thinking · O toggle tools</span>'
        '<span class="help-actions"><button type="button" class="header-toggle" data-action="toggle-thinking" title="Toggle thinking (T)">Toggle thinking</button>'
        '<button type="button" class="header-toggle" data-action="toggle-tools" title="Toggle tools (O)">Toggle tools</button></span></div>'
        f'<div class="header-info">{"".join(info)}</div></div>'
    )
    if system_prompt:
        html += _system_prompt(system_prompt)
    if tools:
        html += f'<div class="tools-list"><div class="tools-header">Available Tools</div>{"".join(_tool(t) for t in tools)}</div>'
    return html
