"""The ``codemode`` result the model reads, laid out as Pi 1.6 lays it out.

``Script completed`` / ``Script failed``, the wall time and ``Output:`` form the first text
block. Then the script's items in order: with more than one text item (``text()`` or the returned
value) each starts with a ``==> text N/M <==`` line; ``console`` lines follow everything else in
one ``<console_output>`` block; adjacent texts are joined into one block, each part on its own
line. Output over the token budget (characters / 4) keeps its start and end around a marker, the
whole text going to a file. Every image is saved to a file whose path precedes it.
"""

from __future__ import annotations

import base64
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

from pi_ai import ImageContent, TextContent
from pi_coding_agent.core.codemode._sandbox import OutputItem, ScriptError
from pi_coding_agent.core.tools import format_size

DEFAULT_MAX_OUTPUT_TOKENS = 10_000
CHARS_PER_TOKEN = 4
_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

Block = TextContent | ImageContent


@dataclass(slots=True)
class CallRecord:
    """One nested call, as the result's ``details.calls`` keeps it (never its result)."""

    id: str
    name: str
    args: str
    status: str = "running"
    duration_ms: float | None = None
    error: str | None = None
    cost: float | None = None
    """A model call's cost in dollars (``models.classify()`` / ``generateImages()``)."""

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"id": self.id, "name": self.name, "args": self.args, "status": self.status}
        if self.duration_ms is not None:
            data["durationMs"] = self.duration_ms
        if self.error is not None:
            data["error"] = self.error
        if self.cost is not None:
            data["cost"] = self.cost
        return data


def arrange(output: Sequence[OutputItem]) -> list[Block]:
    """Numbered text items and images in order, then the console block."""
    total = sum(1 for item in output if item.kind == "text")
    blocks: list[Block] = []
    console: list[str] = []
    number = 0
    for item in output:
        if item.kind == "image":
            blocks.append(ImageContent(data=item.data, mime_type=item.mime_type or "image/png"))
        elif item.kind == "console":
            console.append(item.data)
        else:
            number += 1
            blocks.append(TextContent(text=f"==> text {number}/{total} <==\n{item.data}" if total > 1 else item.data))
    if console:
        blocks.append(TextContent(text="<console_output>\n" + "\n".join(console) + "\n</console_output>"))
    return blocks


def join_texts(blocks: Sequence[Block]) -> list[Block]:
    """Adjacent text blocks as one, a line break between parts that do not end with one."""
    joined: list[Block] = []
    parts: list[str] = []
    last = ""

    def flush() -> None:
        nonlocal parts, last
        if parts:
            joined.append(TextContent(text="".join(parts)))
        parts, last = [], ""

    for block in blocks:
        if not isinstance(block, TextContent):
            flush()
            joined.append(block)
            continue
        if last and not last.endswith("\n"):
            parts.append("\n")
            last = "\n"
        parts.append(block.text)
        if block.text:
            last = block.text
    flush()
    return joined


def error_text(error: ScriptError, calls: Sequence[CallRecord]) -> str:
    """``Script error:`` and what went wrong, then which nested calls had already run."""
    if error.kind == "script":
        head = error.stack or f"{error.name or 'Error'}: {error.message}"
    elif error.kind == "timeout":
        head = f"Script timed out: {error.message}"
    elif error.kind == "aborted":
        head = f"Script aborted: {error.message}"
    else:
        head = f"The script's sandbox failed: {error.message}"
    if calls:
        summary = "Tool calls that ran before the failure (their effects stay): " + ", ".join(
            f"{call.name} ({call.status})" for call in calls
        )
    else:
        summary = "The script made no tool calls."
    return f"Script error:\n{head}\n\n{summary}"


def _write_private(suffix: str, data: bytes) -> str:
    handle, path = tempfile.mkstemp(prefix="pi-codemode-", suffix=suffix)
    with os.fdopen(handle, "wb") as file:
        file.write(data)
    return path


def limit_output(blocks: list[Block], max_tokens: int) -> tuple[list[Block], str | None]:
    """Apply the token budget: over it, all text becomes one block keeping its start and end,
    images after it; the full text goes to a file (its path returned)."""
    texts = [block.text for block in blocks if isinstance(block, TextContent)]
    combined = "\n".join(texts)
    budget = max_tokens * CHARS_PER_TOKEN
    if not texts or len(combined) <= budget:
        return blocks, None
    head_chars = budget // 2
    tail_chars = budget - head_chars
    removed = len(combined) - head_chars - tail_chars
    tail = combined[len(combined) - tail_chars :] if tail_chars else ""
    lines = combined.count("\n") + 1
    text = (
        f"Warning: the output was shortened (it had about {-(-len(combined) // CHARS_PER_TOKEN)} tokens)\n"
        f"Total output lines: {lines}\n\n"
        f"{combined[:head_chars]}…{-(-removed // CHARS_PER_TOKEN)} tokens truncated…{tail}"
    )
    path: str | None = None
    try:
        path = _write_private(".txt", combined.encode("utf-8"))
        text += f"\n\n[Full output: {path} (read it with offset/limit)]"
    except OSError as error:
        text += f"\n\n[The full output could not be saved: {error}]"
    return [TextContent(text=text), *(block for block in blocks if isinstance(block, ImageContent))], path


def label_images(blocks: Sequence[Block]) -> list[Block]:
    """A ``[Image saved to <path> (<type>, <size>)]`` text before each image (one file per
    distinct image)."""
    saved: dict[str, str] = {}
    labelled: list[Block] = []
    for block in blocks:
        if isinstance(block, ImageContent):
            label = saved.get(block.data)
            if label is None:
                data = base64.b64decode(block.data)
                kind = f"{block.mime_type}, {format_size(len(data))}"
                try:
                    path = _write_private(_EXTENSIONS.get(block.mime_type, ".bin"), data)
                    label = f"[Image saved to {path} ({kind})]"
                except OSError as error:
                    label = f"[Image ({kind}) could not be saved: {error}]"
                saved[block.data] = label
            labelled.append(TextContent(text=label))
        labelled.append(block)
    return labelled


def header(ok: bool, wall_seconds: float) -> Block:
    status = "Script completed" if ok else "Script failed"
    return TextContent(text=f"{status}\nWall time {wall_seconds:.1f} seconds\nOutput:\n")
