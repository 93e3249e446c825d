"""The page's header: the session id, date, models, message counts, tool calls, tokens and cost
over the whole file (every branch), then the system prompt and the tools when the export
comes from a running session and the file has no system messages of its own (Pi 1.6 shows those
where they occur).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Any

from pi_coding_agent.core.export._system import carries_system_state, prompt_block, tools_list
from pi_coding_agent.core.export._tools import blocks_of


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
            # Pi 1.6 takes the provider's total when the file has one (it may differ from the parts).
            total = cost.get("total")
            figures.cost += (
                _number(total)
                if isinstance(total, int | float) and not isinstance(total, bool)
                else sum(_number(cost.get(key)) for key in ("input", "output", "cacheRead", "cacheWrite"))
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
        '<button type="button" class="header-toggle" data-action="toggle-tools" title="Toggle tools (O)">Toggle tools</button>'
        '<button type="button" class="header-toggle download-json-btn" data-action="download-jsonl" title="Download session as JSONL">↓ JSONL</button></span></div>'
        f'<div class="header-info">{"".join(info)}</div></div>'
    )
    # A Pi 1.6 file states its prompt and tools in its system messages, shown where they occur.
    if not any(carries_system_state(entry) for entry in entries if entry.get("type") == "message"):
        html += (prompt_block("System Prompt", system_prompt) if system_prompt else "") + tools_list(
            "Available Tools", tools
        )
    return html
