"""A tool call and its result, rendered for what the tool is.

``edit`` shows its diff, ``bash`` the end of its output with the full-output path when it
was truncated, ``read`` the file's text (highlighted) when expanded, ``write`` the start of
what it wrote, ``grep``/``find``/``ls`` their first lines; any other tool its arguments
and text. Collapsed and expanded (Ctrl+O) follow Pi's line counts.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_ai.js_json import stringify
from pi_coding_agent.app.interactive._styles import highlight_code
from pi_coding_agent.app.interactive.components._images import (
    CELL_PX,
    IMAGE_WIDTH_CELLS,
    image_fallback,
    image_lines,
    image_protocol,
)
from pi_coding_agent.core.syntax import language_for_path
from pi_tui import Box, Component, Container, Spacer, Text, hyperlink, supports_hyperlinks, terminal_safe

if TYPE_CHECKING:
    from pi_coding_agent.customize.themes import Theme

BASH_PREVIEW_LINES = 5


@dataclass
class ToolContext:
    theme: Theme
    cwd: str
    args: dict[str, Any]
    expanded: bool
    is_error: bool
    partial: bool
    started_at: float | None = None
    ended_at: float | None = None


def _shown_args(args: Any) -> dict[str, Any]:
    """A call's arguments as drawn: its strings (a command, a path, a file's content) pass the
    terminal-output policy; the arguments themselves are the tool's, untouched."""
    if not isinstance(args, dict):
        return {}
    return {key: terminal_safe(value, keep_sgr=False) if isinstance(value, str) else value for key, value in args.items()}


def _shorten(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "~" and path.startswith(home) else path


def _path(ctx: ToolContext, key: str = "path", fallback: str = "", *, link: bool = True) -> str:
    """The call's path argument, shortened; where the terminal takes hyperlinks, linked to the
    file (``file://``) as Pi links ``read``, ``edit``, ``write`` and ``ls`` paths."""
    value = ctx.args.get(key, ctx.args.get("file_path"))
    if value is None:
        value = fallback
    if not isinstance(value, str):
        return ctx.theme.fg("error", "[invalid arg]")
    if not value:
        return ctx.theme.fg("toolOutput", "...")
    shown = ctx.theme.fg("accent", _shorten(value))
    if not (link and supports_hyperlinks()):
        return shown
    target = Path(os.path.expanduser(value))
    return hyperlink(shown, (target if target.is_absolute() else Path(ctx.cwd) / target).as_uri())


def _title(ctx: ToolContext, name: str) -> str:
    return ctx.theme.fg("toolTitle", ctx.theme.bold(name))


def text_output(content: list[Any]) -> str:
    """A result's text as shown: the terminal-output policy without colours either (Pi shows
    tool output uncoloured)."""
    parts = [getattr(block, "text", "") or "" for block in content if getattr(block, "type", "") == "text"]
    return terminal_safe("\n".join(parts), keep_sgr=False)


def _more(ctx: ToolContext, remaining: int, word: str = "more") -> str:
    return ctx.theme.fg("muted", f"... ({remaining} {word} lines, ctrl+o to expand)")


def _limited(ctx: ToolContext, lines: list[str], collapsed: int, style: str = "toolOutput") -> list[str]:
    shown = lines if ctx.expanded else lines[:collapsed]
    out = [ctx.theme.fg(style, line.replace("\t", "   ")) for line in shown]
    if len(shown) < len(lines):
        out.append(_more(ctx, len(lines) - len(shown)))
    return out


# ---------------------------------------------------------------------- per tool


def _read_call(ctx: ToolContext) -> str:
    text = f"{_title(ctx, 'read')} {_path(ctx)}"
    offset, limit = ctx.args.get("offset"), ctx.args.get("limit")
    if offset is not None or limit is not None:
        start = offset if isinstance(offset, int) else 1
        end = f"-{start + limit - 1}" if isinstance(limit, int) else ""
        text += ctx.theme.fg("warning", f":{start}{end}")
    return text


def _read_result(ctx: ToolContext, output: str, details: Any) -> list[str]:
    if not ctx.expanded and not ctx.is_error:
        return []
    path = ctx.args.get("path") if isinstance(ctx.args.get("path"), str) else ""
    language = language_for_path(str(path)) if not ctx.is_error else None
    lines = output.rstrip("\n").split("\n")
    if language:
        return [line.replace("\t", "   ") for line in highlight_code(ctx.theme, "\n".join(lines), language)]
    return [
        ctx.theme.fg("error" if ctx.is_error else "toolOutput", line.replace("\t", "   ")) for line in lines
    ]


def _bash_call(ctx: ToolContext) -> str:
    command = ctx.args.get("command")
    shown = (
        command if isinstance(command, str) and command else ("..." if command is None else "[invalid arg]")
    )
    text = ctx.theme.fg("toolTitle", ctx.theme.bold(f"$ {shown}"))
    if ctx.args.get("timeout"):
        text += ctx.theme.fg("muted", f" (timeout {ctx.args['timeout']}s)")
    return text


def _bash_result(ctx: ToolContext, output: str, details: Any) -> list[str]:
    theme = ctx.theme
    details = details if isinstance(details, dict) else {}
    truncation = details.get("truncation") or {}
    full_path = details.get("fullOutputPath")
    output = output.strip()
    if not ctx.partial and truncation.get("truncated") and full_path and output.endswith("]"):
        footer = output.rfind("\n\n[")
        if footer >= 0 and full_path in output[footer:]:
            output = output[:footer].rstrip()
    lines = output.split("\n") if output else []
    out: list[str] = []
    if lines:
        shown = lines if ctx.expanded else lines[-BASH_PREVIEW_LINES:]
        if len(shown) < len(lines):
            out.append(_more(ctx, len(lines) - len(shown), "earlier"))
        out.extend(theme.fg("toolOutput", line) for line in shown)
    warnings = []
    if full_path:
        warnings.append(f"Full output: {full_path}")
    if truncation.get("truncated"):
        if truncation.get("truncatedBy") == "lines":
            warnings.append(
                f"Truncated: showing {truncation.get('outputLines')} of {truncation.get('totalLines')} lines"
            )
        else:
            warnings.append(f"Truncated: {truncation.get('outputLines')} lines shown (50.0KB limit)")
    if warnings:
        out += ["", theme.fg("warning", f"[{'. '.join(warnings)}]")]
    if ctx.started_at is not None:
        end = ctx.ended_at if ctx.ended_at is not None else time.monotonic()
        out += ["", theme.fg("muted", f"{'Elapsed' if ctx.partial else 'Took'} {end - ctx.started_at:.1f}s")]
    return out


def render_diff(theme: Theme, diff: str) -> list[str]:
    """Pi's display diff (``+12 added``, ``-12 removed``, `` 12 context``) in diff colours."""
    out = []
    for raw in diff.split("\n"):
        line = raw.replace("\t", "   ")
        if line.startswith("+"):
            out.append(theme.fg("toolDiffAdded", line))
        elif line.startswith("-"):
            out.append(theme.fg("toolDiffRemoved", line))
        else:
            out.append(theme.fg("toolDiffContext", line))
    return out


def _edit_call(ctx: ToolContext) -> str:
    return f"{_title(ctx, 'edit')} {_path(ctx)}"


def _edit_result(ctx: ToolContext, output: str, details: Any) -> list[str]:
    if ctx.is_error:
        return [ctx.theme.fg("error", line) for line in output.split("\n")]
    diff = details.get("diff") if isinstance(details, dict) else None
    return render_diff(ctx.theme, terminal_safe(diff, keep_sgr=False)) if isinstance(diff, str) else []


def _write_call(ctx: ToolContext) -> str:
    return f"{_title(ctx, 'write')} {_path(ctx)}"


def _write_result(ctx: ToolContext, output: str, details: Any) -> list[str]:
    if ctx.is_error:
        return [ctx.theme.fg("error", line) for line in output.split("\n")]
    content = ctx.args.get("content")
    if not isinstance(content, str) or not content:
        return []
    path = ctx.args.get("path")
    language = language_for_path(path) if isinstance(path, str) else None
    lines = content.rstrip("\n").split("\n")
    shown = lines if ctx.expanded else lines[:10]
    rendered = (
        highlight_code(ctx.theme, "\n".join(shown), language)
        if language
        else [ctx.theme.fg("toolOutput", line) for line in shown]
    )
    if len(shown) < len(lines):
        rendered.append(_more(ctx, len(lines) - len(shown)))
    return rendered


def _search_call(name: str) -> Callable[[ToolContext], str]:
    def call(ctx: ToolContext) -> str:
        theme = ctx.theme
        pattern = ctx.args.get("pattern")
        text = _title(ctx, name)
        if name == "grep":
            text += " " + theme.fg("accent", f"/{pattern}/" if isinstance(pattern, str) else "...")
            text += theme.fg("toolOutput", " in ") + _path(ctx, fallback=".", link=False)
        elif name == "find":
            text += " " + theme.fg("accent", str(pattern) if pattern is not None else "...")
            text += theme.fg("toolOutput", " in ") + _path(ctx, fallback=".", link=False)
        else:
            text += " " + _path(ctx, fallback=".")
        if ctx.args.get("limit") is not None:
            text += theme.fg("toolOutput", f" (limit {ctx.args['limit']})")
        return text

    return call


def _search_result(collapsed: int) -> Callable[[ToolContext, str, Any], list[str]]:
    def result(ctx: ToolContext, output: str, details: Any) -> list[str]:
        output = output.strip()
        if not output:
            return []
        return _limited(ctx, output.split("\n"), collapsed, "error" if ctx.is_error else "toolOutput")

    return result


def _generic_call(name: str) -> Callable[[ToolContext], str]:
    def call(ctx: ToolContext) -> str:
        # JSON.stringify's text (numbers as JavaScript prints them: 3, not 3.0); nested strings
        # keep C1 controls there: the policy takes them out
        args = terminal_safe(stringify(ctx.args), keep_sgr=False) if ctx.args else ""
        return _title(ctx, name) + (" " + ctx.theme.fg("toolOutput", args) if args else "")

    return call


def _generic_result(ctx: ToolContext, output: str, details: Any) -> list[str]:
    return (
        _limited(ctx, output.rstrip("\n").split("\n"), 10, "error" if ctx.is_error else "toolOutput")
        if output
        else []
    )


def _codemode_call(ctx: ToolContext) -> str:
    """``codemode`` and the script's first line (the whole script once expanded)."""
    code = ctx.args.get("code")
    if not isinstance(code, str) or not code.strip():
        return _title(ctx, "codemode") + (" ..." if code is None else " [invalid arg]")
    lines = terminal_safe(code, keep_sgr=False).strip("\n").split("\n")
    if ctx.expanded:
        return _title(ctx, "codemode") + "\n" + "\n".join(ctx.theme.fg("toolOutput", line) for line in lines)
    more = ctx.theme.fg("muted", f" ({len(lines)} lines)") if len(lines) > 1 else ""
    return f"{_title(ctx, 'codemode')} {ctx.theme.fg('toolOutput', lines[0])}{more}"


_CALL_MARKS = {"ok": ("success", "✓"), "error": ("error", "✗"), "cancelled": ("warning", "○"), "running": ("muted", "…")}


def _codemode_result(ctx: ToolContext, output: str, details: Any) -> list[str]:
    """One row per tool call the script made (from ``details.calls``), then the output."""
    calls = details.get("calls") if isinstance(details, dict) else None
    rows: list[str] = []
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict):
            continue
        style, mark = _CALL_MARKS.get(str(call.get("status")), ("muted", "?"))
        args = terminal_safe(str(call.get("args", "")), keep_sgr=False)
        rows.append(ctx.theme.fg(style, mark) + " " + _title(ctx, str(call.get("name", "?"))) + " " + ctx.theme.fg("muted", args))
    return rows + _generic_result(ctx, output, details)


CallRenderer = Callable[[ToolContext], str]
ResultRenderer = Callable[[ToolContext, str, Any], list[str]]
RENDERERS: dict[str, tuple[CallRenderer, ResultRenderer]] = {
    "read": (_read_call, _read_result),
    "bash": (_bash_call, _bash_result),
    "edit": (_edit_call, _edit_result),
    "write": (_write_call, _write_result),
    "grep": (_search_call("grep"), _search_result(15)),
    "find": (_search_call("find"), _search_result(20)),
    "ls": (_search_call("ls"), _search_result(20)),
    "codemode": (_codemode_call, _codemode_result),
}


class ToolExecutionView(Container):
    """One tool call: a box whose colour says pending, done or failed."""

    def __init__(
        self,
        name: str,
        args: dict[str, Any],
        theme: Theme,
        cwd: str,
        *,
        expanded: bool,
        show_images: bool = True,
    ) -> None:
        super().__init__()
        self.name = name
        self.theme = theme
        self.ctx = ToolContext(theme, cwd, _shown_args(args), expanded, False, True)
        self.show_images = show_images
        self.done = False
        self.content: list[Any] = []
        self.details: Any = None
        self.renderers = RENDERERS.get(name) or (_generic_call(name), _generic_result)
        self._rebuild()

    def update_args(self, args: dict[str, Any]) -> None:
        self.ctx.args = _shown_args(args)
        self._rebuild()

    def mark_started(self) -> None:
        if self.name == "bash" and self.ctx.started_at is None:
            self.ctx.started_at = time.monotonic()

    def set_result(self, content: list[Any], details: Any, is_error: bool, partial: bool) -> None:
        self.content = content
        self.details = details
        self.ctx.is_error = is_error
        self.ctx.partial = partial
        if not partial:
            self.done = True
            if self.ctx.started_at is not None and self.ctx.ended_at is None:
                self.ctx.ended_at = time.monotonic()
        self._rebuild()

    def set_expanded(self, expanded: bool) -> None:
        self.ctx.expanded = expanded
        self._rebuild()

    def _rebuild(self) -> None:
        theme = self.theme
        bg_token = (
            "toolPendingBg" if not self.done else ("toolErrorBg" if self.ctx.is_error else "toolSuccessBg")
        )
        box = Box(1, 1, lambda s: theme.bg(bg_token, s))
        call, result = self.renderers
        box.add_child(Text(call(self.ctx), 0, 0))
        pictures: list[Component] = []
        if self.content or self.done:
            images = [block for block in self.content if getattr(block, "type", "") == "image"]
            protocol = image_protocol() if self.show_images else None
            output = text_output(self.content)
            if images and protocol is None:  # Pi's text line for each, part of the output
                output = "\n".join([*([output] if output else []), *(image_fallback(i.data, i.mime_type) for i in images)])
            body = result(self.ctx, output, self.details)
            if body:
                box.add_child(Text("\n".join(["", *body]), 0, 0))
            for image in images if protocol else []:
                if protocol != "kitty" or image.mime_type == "image/png":  # Kitty is sent PNG only
                    pictures += [Spacer(1), _ImageLines(image, protocol or "")]
        self.children = [Spacer(1), box, *pictures]


class _ImageLines:
    def __init__(self, image: Any, protocol: str) -> None:
        self.image = image
        self.protocol = protocol
        self.image_id = random.randint(1, 0xFFFFFFFE)  # a Kitty image id of its own, as Pi's

        self._cache: tuple[tuple[int, int, int, int], list[str]] | None = None

    def render(self, width: int) -> list[str]:
        key = (width, CELL_PX[0], CELL_PX[1], IMAGE_WIDTH_CELLS[0])
        if self._cache is None or self._cache[0] != key:  # decoding a large image is not per frame
            self._cache = (key, image_lines(self.image.data, self.image.mime_type, width, self.protocol,
                                            self.image_id))  # fmt: skip
        return self._cache[1]

    def invalidate(self) -> None:
        return
