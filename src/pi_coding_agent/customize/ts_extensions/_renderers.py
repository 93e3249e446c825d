"""Renderers of TypeScript extensions as ours: each returns a ``RemoteComponent`` that Node
builds with the extension's own renderer (tools' ``renderCall`` / ``renderResult``, message and
entry renderers); and our theme as the JSON Node makes Pi's theme from.

A tool's components are named by the tool call's id, so the renderer called again (an update,
the result, a toggled expansion) gets its ``lastComponent`` and its ``state``, as in Pi.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from pi_coding_agent.customize.ts_extensions._codec import encode
from pi_coding_agent.customize.ts_extensions._components import ComponentLink, RemoteComponent


class Link(ComponentLink, Protocol):
    kept: dict[str, object]


def tool_renderers(link: Link, index: int, name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``render_call(args, context)`` and ``render_result(result, options, context)``: each a
    component Node builds with the tool's ``renderCall`` / ``renderResult`` (one per call
    id, so a later render hands the renderer its ``lastComponent``)."""

    def context_json(context: dict[str, Any]) -> dict[str, Any]:
        return {
            "args": context.get("args"),
            "toolCallId": context.get("tool_call_id"),
            "cwd": context.get("cwd"),
            "executionStarted": True,
            "argsComplete": True,
            "isPartial": bool(context.get("is_partial")),
            "expanded": bool(context.get("expanded")),
            "showImages": False,
            "isError": bool(context.get("is_error")),
        }

    def render_call(args: Any, context: dict[str, Any]) -> RemoteComponent:
        spec = {
            "kind": "toolCall",
            "ext": index,
            "name": name,
            "args": encode(args),
            "context": context_json(context),
        }
        return RemoteComponent(link, f"tool:{context.get('tool_call_id')}:call", spec)

    def render_result(result: Any, options: dict[str, Any], context: dict[str, Any]) -> RemoteComponent:
        spec = {
            "kind": "toolResult",
            "ext": index,
            "name": name,
            "result": encode(result),
            "options": {
                "expanded": bool(options.get("expanded")),
                "isPartial": bool(options.get("is_partial")),
            },
            "context": context_json(context),
        }
        return RemoteComponent(link, f"tool:{context.get('tool_call_id')}:result", spec)

    return render_call, render_result


def message_renderer(link: Link, index: int, custom_type: str) -> Callable[..., Any]:
    def render(message: Any, options: dict[str, Any]) -> RemoteComponent:
        cid = f"message:{id(message)}"
        link.kept[cid] = message  # the id stays this message's while the transcript holds it
        spec = {
            "kind": "message",
            "ext": index,
            "customType": custom_type,
            "message": encode(message),
            "options": {"expanded": bool(options.get("expanded"))},
        }
        return RemoteComponent(link, cid, spec)

    return render


def entry_renderer(link: Link, index: int, custom_type: str) -> Callable[..., Any]:
    def render(entry: Any, options: dict[str, Any]) -> RemoteComponent:
        spec = {
            "kind": "entry",
            "ext": index,
            "customType": custom_type,
            "entry": encode(entry),
            "options": {"expanded": bool(options.get("expanded"))},
        }
        return RemoteComponent(link, f"entry:{getattr(entry, 'id', id(entry))}", spec)

    return render


def active_theme(ui: Any) -> Any:
    from pi_coding_agent.customize.themes import Theme

    theme = getattr(ui, "theme", None) if ui is not None else None
    return theme if isinstance(theme, Theme) else None


def theme_json(theme: Any) -> dict[str, Any]:
    from pi_coding_agent.customize.themes import THEME_TOKENS

    return {
        "name": theme.name,
        "colors": dict(theme.colors),
        "background": [token for token, kind in THEME_TOKENS.items() if kind.background],
        "truecolor": theme.truecolor,
        "appearance": theme.appearance,
        "dim": sorted(theme.dim),
    }
