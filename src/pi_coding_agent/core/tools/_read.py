"""The ``read`` tool: a text file window with continuation hints, or an image as an attachment."""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Callable
from typing import Any

from pi_agent import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal, ImageContent, TextContent
from pi_ai.js_json import js_number
from pi_coding_agent.core.tools._common import (
    ToolError,
    js_int,
    optional_number,
    raise_if_aborted,
)
from pi_coding_agent.core.tools._fs_errors import access_error, node_error_message
from pi_coding_agent.core.tools._images import (
    DEFAULT_PROFILE,
    ResizeProfile,
    detect_supported_image_mime_type_from_file,
    process_image,
)
from pi_coding_agent.core.tools._paths import resolve_read_path
from pi_coding_agent.core.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate_head,
    utf8_len,
)

NON_VISION_NOTE = "[Current model does not support images. The image will be omitted from this request.]"

ImageSupport = Callable[[], bool | None]
ImageProfile = Callable[[], ResizeProfile]
"""Whether the current model accepts images; ``None`` when no model is known (no note then)."""


READ_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["path"],
    "properties": {
        "path": {
            "type": "string",
            "description": "File to read, relative to the working directory or absolute",
        },
        "offset": {"type": "number", "description": "First line to return (1-based)"},
        "limit": {"type": "number", "description": "How many lines to return at most"},
    },
}


READ_OUTPUT_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string"},
        {
            "type": "object",
            "required": ["type", "data", "mimeType", "note"],
            "properties": {
                "type": {"const": "image"},
                "data": {"type": "string"},
                "mimeType": {"type": "string"},
                "note": {"type": "string"},
            },
        },
    ]
}
"""What ``codemode`` scripts get from ``read``: a text file's text, or an image block."""


class ReadTool(AgentTool):
    name = "read"
    label = "read"
    description = (
        "Read a file. Text comes back as is; images (jpg, png, gif, webp, bmp) come back as an "
        f"attachment. Text output stops at {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, "
        "whichever comes first, and says how to continue: page through big files with offset and limit."
    )
    parameters: dict[str, Any] = READ_PARAMETERS
    output_schema = READ_OUTPUT_SCHEMA
    """Scripts get a text file's text, or an image block (the image the model would see and the
    note that goes with it)."""
    prompt_snippet = "Read file contents"
    prompt_guidelines = ("Use read to look at files instead of cat or sed.",)

    def __init__(
        self,
        cwd: str,
        *,
        auto_resize_images: bool = True,
        image_support: ImageSupport | None = None,
        image_profile: ImageProfile | None = None,
    ) -> None:
        self.cwd = cwd
        self.auto_resize_images = auto_resize_images
        self.image_support = image_support
        self.image_profile = image_profile

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        raise_if_aborted(signal)
        path = str(params["path"])
        offset = optional_number(params, "offset")
        limit = optional_number(params, "limit")
        work = asyncio.ensure_future(asyncio.to_thread(self._read, path, offset, limit))
        if signal is None:
            return await work
        aborted = asyncio.ensure_future(signal.wait())
        try:
            done, _ = await asyncio.wait({work, aborted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
        if work not in done:
            raise ToolError("Operation aborted")
        return work.result()

    def _read(self, path: str, offset: float | None, limit: float | None) -> AgentToolResult[Any]:
        result = self._read_file(path, offset, limit)
        if result.structured_content is None:
            # Pi 1.6: a read without an image block gives scripts its (first) text.
            result.structured_content = next((b.text for b in result.content if isinstance(b, TextContent)), "")
        return result

    def _read_file(self, path: str, offset: float | None, limit: float | None) -> AgentToolResult[Any]:
        absolute = resolve_read_path(path, self.cwd)
        denied = access_error(absolute, os.R_OK)
        if denied is not None:
            raise ToolError(node_error_message(absolute, "access", denied))
        try:
            mime = detect_supported_image_mime_type_from_file(absolute)
            if mime is not None:
                return self._image(absolute, mime)
            with open(absolute, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise ToolError(
                node_error_message(None if error.errno == errno.EISDIR else absolute, _syscall(error), error)
            ) from None
        return _text_window(data.decode("utf-8", "replace"), path, offset, limit)

    def _image(self, absolute: str, mime: str) -> AgentToolResult[Any]:
        with open(absolute, "rb") as handle:
            data = handle.read()
        profile = self.image_profile() if self.image_profile is not None else DEFAULT_PROFILE
        processed = process_image(data, mime, auto_resize=self.auto_resize_images, profile=profile)
        supports = self.image_support() if self.image_support is not None else None
        note = NON_VISION_NOTE if supports is False else None
        if not processed.ok:
            text = f"Read image file [{mime}]\n{processed.message}"
            if note:
                text += f"\n{note}"
            return AgentToolResult(content=[TextContent(text=text)])
        text = f"Read image file [{processed.mime_type}]"
        if processed.hints:
            text += "\n" + "\n".join(processed.hints)
        if note:
            text += f"\n{note}"
        return AgentToolResult(
            content=[TextContent(text=text), ImageContent(data=processed.data, mime_type=processed.mime_type)],
            structured_content={"type": "image", "data": processed.data, "mimeType": processed.mime_type, "note": text},
        )


def _line_start(text: str, line: int) -> int:
    """Index where 0-based ``line`` starts (the text must have that many line breaks)."""
    position = 0
    remaining = line
    size = len(text)
    while remaining > 0:
        block_end = min(position + _BLOCK, size)
        found = text.count("\n", position, block_end)
        if found < remaining and block_end < size:
            remaining -= found
            position = block_end
            continue
        for _ in range(remaining):
            position = text.index("\n", position) + 1
        break
    return position


_BLOCK = 1 << 16


def _text_window(text: str, path: str, offset: float | None, limit: float | None) -> AgentToolResult[Any]:
    # Lines are located by counting line breaks instead of splitting the whole file: a read
    # of a big file with a small window only copies the window.
    total = text.count("\n") + 1
    start = max(0, js_int(offset) - 1) if offset else 0
    start_display = start + 1
    if start >= total:
        raise ToolError(f"Offset {js_number(offset or 0)} is beyond end of file ({total} lines total)")
    begin = _line_start(text, start)
    user_limited: int | None = None
    if limit is not None and js_int(limit) < 0:
        # JavaScript slice semantics for a negative end; never worth a fast path.
        lines = text.split("\n")
        end = min(start + js_int(limit), total)
        selected = "\n".join(lines[start:end])
        user_limited = end - start
    elif limit is not None:
        end = min(start + js_int(limit), total)
        stop = len(text) if end >= total else _line_start(text, end) - 1
        selected = text[begin:stop] if end > start else ""
        user_limited = end - start
    else:
        selected = text[begin:]
    truncation = truncate_head(selected)
    details: dict[str, Any] | None = None
    if truncation.first_line_exceeds_limit:
        line_end = text.find("\n", begin)
        size = format_size(utf8_len(text[begin:] if line_end == -1 else text[begin:line_end]))
        output = (
            f"[Line {start_display} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{start_display}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        details = {"truncation": truncation.to_json()}
    elif truncation.truncated:
        end_display = start_display + truncation.output_lines - 1
        output = truncation.content
        if truncation.truncated_by == "lines":
            output += (
                f"\n\n[Showing lines {start_display}-{end_display} of {total}. "
                f"Use offset={end_display + 1} to continue.]"
            )
        else:
            output += (
                f"\n\n[Showing lines {start_display}-{end_display} of {total} "
                f"({format_size(DEFAULT_MAX_BYTES)} limit). Use offset={end_display + 1} to continue.]"
            )
        details = {"truncation": truncation.to_json()}
    elif user_limited is not None and start + user_limited < total:
        remaining = total - (start + user_limited)
        output = (
            f"{truncation.content}\n\n[{remaining} more lines in file. "
            f"Use offset={start + user_limited + 1} to continue.]"
        )
    else:
        output = truncation.content
    return AgentToolResult(content=[TextContent(text=output)], details=details)


def _syscall(error: OSError) -> str:
    # Node reads a directory with read(2) after a successful open; everything else fails in open.
    return "read" if error.errno == errno.EISDIR else "open"
