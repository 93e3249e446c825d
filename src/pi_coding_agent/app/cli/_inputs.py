"""The first prompt of a run: piped stdin, ``@file`` arguments and the first message.

They are concatenated without a separator, in that order (Pi's rule). ``@file`` text is
wrapped as ``<file name="<abs path>">\\n<content>\\n</file>\\n``; an image file becomes an
attachment plus an empty (or hint-carrying) ``<file>`` tag; empty files are skipped.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_ai import ImageContent


class InputError(Exception):
    """An ``@file`` argument that cannot be used (missing, unreadable)."""


def read_piped_stdin() -> str | None:
    """All of stdin when it is not a terminal, trimmed; ``None`` when empty or a TTY."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return None
    data = stream.buffer.read().decode("utf-8", "replace")
    text = data.strip()
    return text or None


@dataclass
class FileInputs:
    text: str = ""
    images: list[ImageContent] = field(default_factory=list)


def process_file_arguments(file_args: Sequence[str], cwd: str, *, auto_resize: bool = True) -> FileInputs:
    # The read tool's own path and image handling, so @file and `read` treat files alike.
    from pi_coding_agent.core.tools import (
        detect_supported_image_mime_type_from_file,
        process_image,
        resolve_read_path,
    )

    result = FileInputs()
    for argument in file_args:
        path = os.path.abspath(resolve_read_path(argument, cwd))
        if not os.path.exists(path):
            raise InputError(f"File not found: {path}")
        try:
            if os.path.getsize(path) == 0:
                continue
            mime = detect_supported_image_mime_type_from_file(path)
            if mime:
                with open(path, "rb") as handle:
                    processed = process_image(handle.read(), mime, auto_resize=auto_resize)
                if not processed.ok:
                    result.text += f'<file name="{path}">{processed.message}</file>\n'
                    continue
                result.images.append(ImageContent(data=processed.data, mime_type=processed.mime_type))
                result.text += f'<file name="{path}">{chr(10).join(processed.hints)}</file>\n'
                continue
            with open(path, encoding="utf-8-sig") as handle:
                content = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"Could not read file {path}: {error}") from None
        result.text += f'<file name="{path}">\n{content}\n</file>\n'
    return result


@dataclass
class InitialInput:
    message: str | None
    images: list[ImageContent]
    rest: list[str]
    """Messages sent after the first prompt, one prompt each."""


def build_initial_input(
    messages: Sequence[str], stdin_text: str | None, files: FileInputs | None
) -> InitialInput:
    parts: list[str] = []
    if stdin_text is not None:
        parts.append(stdin_text)
    if files and files.text:
        parts.append(files.text)
    rest = list(messages)
    if rest:
        parts.append(rest.pop(0))
    return InitialInput("".join(parts) if parts else None, list(files.images) if files else [], rest)
