"""A tool call with its result, as the TUI shows it: ``$ command`` and its output for bash, the
file (and line range) with its highlighted text for read and write, the diff for edit, the
pattern for grep and find; any other tool as its name, arguments and output.

The block's colour says where the call stands: pending (no result in the file), done, or failed.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from pi_ai.js_json import stringify
from pi_coding_agent.core.export._code import output_block
from pi_coding_agent.core.syntax import language_for_path

_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_IMAGE_MIME = re.compile(r"^image/[A-Za-z0-9.+-]+$")
_INVALID = '<span class="tool-error">[invalid arg]</span>'


def blocks_of(content: Any) -> list[dict[str, Any]]:
    """The blocks of a message's ``content``: nothing unless it is a list; only its objects."""
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def text_of(content: Any, separator: str = "\n") -> str:
    if isinstance(content, str):
        return content
    return separator.join(str(b.get("text", "")) for b in blocks_of(content) if b.get("type") == "text")


def short_path(path: str) -> str:
    """A home folder as ``~`` (``/home/NAME`` or ``/Users/NAME``), as Pi shortens paths."""
    for root in ("/Users/", "/home/"):
        if path.startswith(root):
            parts = path.split("/")
            if len(parts) > 2:
                return "~" + path[len(root) + len(parts[2]) :]
    return path


def image_html(block: dict[str, Any], css: str) -> str:
    """An image block as an embedded ``data:`` image; nothing else is ever put in ``src``."""
    mime, data = block.get("mimeType"), block.get("data")
    if not (
        isinstance(mime, str) and _IMAGE_MIME.match(mime) and isinstance(data, str) and _BASE64.match(data)
    ):
        return '<div class="muted">[image that cannot be shown]</div>'
    return f'<img class="{css}" alt="image" src="data:{mime};base64,{"".join(data.split())}">'


def _string(value: Any) -> str | None:
    """A string argument; ``None`` for a wrong type (shown as ``[invalid arg]``)."""
    if isinstance(value, str):
        return value
    return "" if value is None else None


def _path_html(path: str | None, fallback: str = "") -> str:
    return _INVALID if path is None else escape(short_path(path or fallback))


def _header(name: str, detail: str) -> str:
    return f'<div class="tool-header"><span class="tool-name">{escape(name)}</span> <span class="tool-path">{detail}</span></div>'


def _line_range(arguments: dict[str, Any]) -> str:
    offset, limit = arguments.get("offset"), arguments.get("limit")
    if offset is None and limit is None:
        return ""
    start = offset if offset is not None else 1
    end = start + limit - 1 if isinstance(limit, int) and isinstance(start, int) else ""
    return f'<span class="line-numbers">:{escape(str(start))}{f"-{end}" if end != "" else ""}</span>'


def _body(name: str, arguments: dict[str, Any], result: dict[str, Any] | None) -> str:
    output = text_of(result.get("content")) if result else ""
    if name == "bash":
        command = _string(arguments.get("command"))
        html = (
            f'<div class="tool-command">$ {_INVALID if command is None else escape(command or "...")}</div>'
        )
        return html + (output_block(output.strip(), 5) if output.strip() else "")
    if name == "read":
        path = _string(arguments.get("file_path", arguments.get("path")))
        html = _header("read", _path_html(path) + (_line_range(arguments) if path is not None else ""))
        if result:
            images = [
                image_html(b, "tool-image")
                for b in blocks_of(result.get("content"))
                if b.get("type") == "image"
            ]
            html += "".join(images)
            language = language_for_path(path) if path else None
            html += output_block(output, 10, language) if output else ""
        return html
    if name == "write":
        path = _string(arguments.get("file_path", arguments.get("path")))
        content = _string(arguments.get("content"))
        count = len(content.split("\n")) if content else 0
        lines = f' <span class="line-count">({count} lines)</span>' if count > 10 else ""
        html = _header("write", _path_html(path) + lines)
        if content is None:
            html += '<div class="tool-error">[invalid content arg - expected string]</div>'
        elif content:
            html += output_block(content, 10, language_for_path(path) if path else None)
        return html + (
            f'<div class="tool-output"><pre>{escape(output.strip())}</pre></div>' if output.strip() else ""
        )
    if name == "edit":
        path = _string(arguments.get("file_path", arguments.get("path")))
        html = _header("edit", _path_html(path))
        details = result.get("details") if result else None
        diff = details.get("diff") if isinstance(details, dict) else None
        if isinstance(diff, str) and diff:
            return html + _diff_html(diff)
        return html + (
            f'<div class="tool-output"><pre>{escape(output.strip())}</pre></div>' if output.strip() else ""
        )
    if name in ("ls", "grep", "find"):
        where = _path_html(_string(arguments.get("path")), ".")
        if name != "ls":
            pattern = escape(str(arguments.get("pattern", "")))
            where = (f"/{pattern}/" if name == "grep" else pattern) + f" in {where}"
        limit = arguments.get("limit")
        if limit is not None:
            where += f' <span class="line-count">(limit {escape(str(limit))})</span>'
        return _header(name, where) + (
            output_block(output.strip(), 20 if name == "ls" else 10) if output.strip() else ""
        )
    html = _header(name, "") + f'<div class="tool-args"><pre>{escape(stringify(arguments, 2))}</pre></div>'
    return html + (output_block(output, 10) if output else "")


def _diff_html(diff: str) -> str:
    rows = []
    for line in diff.split("\n"):
        css = (
            "diff-added"
            if line.startswith("+")
            else "diff-removed"
            if line.startswith("-")
            else "diff-context"
        )
        rows.append(f'<div class="{css}">{escape(line.replace(chr(9), "   "))}</div>')
    return f'<div class="tool-diff">{"".join(rows)}</div>'


def tool_call_html(call: dict[str, Any], result: dict[str, Any] | None) -> str:
    """One ``toolCall`` block of an assistant message with its result (``None``: none yet)."""
    status = "pending" if result is None else "error" if result.get("isError") else "success"
    found = call.get("arguments")
    arguments: dict[str, Any] = found if isinstance(found, dict) else {}
    call_id = escape(str(call.get("id", "")))
    name = str(call.get("name", ""))
    return f'<div class="tool-execution {status}" id="tool-call-{call_id}">{_body(name, arguments, result)}</div>'


def tool_call_title(name: str, arguments: Any) -> str:
    """The short form of a call in the tree: ``[read: path:1-20]``, ``[bash: ls -la]``."""
    args: dict[str, Any] = arguments if isinstance(arguments, dict) else {}
    path = short_path(str(args.get("path") or args.get("file_path") or ""))
    if name == "read":
        offset, limit = args.get("offset"), args.get("limit")
        if offset is not None or limit is not None:
            start = offset if offset is not None else 1
            end = start + limit - 1 if isinstance(limit, int) and isinstance(start, int) else ""
            path += f":{start}{f'-{end}' if end != '' else ''}"
        return f"[read: {path}]"
    if name in ("write", "edit"):
        return f"[{name}: {path}]"
    if name == "bash":
        command = str(args.get("command") or "")
        flat = command.replace("\n", " ").replace("\t", " ").strip()[:50]
        return f"[bash: {flat}{'...' if len(command) > 50 else ''}]"
    where = short_path(str(args.get("path") or "."))
    if name == "grep":
        return f"[grep: /{args.get('pattern', '')}/ in {where}]"
    if name == "find":
        return f"[find: {args.get('pattern', '')} in {where}]"
    if name == "ls":
        return f"[ls: {where}]"
    text = stringify(args)
    return f"[{name}: {text[:40]}{'...' if len(text) > 40 else ''}]"
