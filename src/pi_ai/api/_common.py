"""Small helpers every wire adapter needs: Pi's user agent, cache-retention default, outgoing
text sanitizing, id hashing and sanitizing, and the prompt-cache key clamp."""

from __future__ import annotations

import functools
import os
import platform
import re
import sys
from collections.abc import Mapping

from pi_ai._messages import TextContent, ThinkingContent
from pi_ai._options import CacheRetention

__all__ = [
    "PendingText",
    "clamp_prompt_cache_key",
    "env_value",
    "pi_user_agent",
    "resolve_cache_retention",
    "sanitize_id",
    "sanitize_surrogates",
    "short_hash",
]


_ARCH = {
    "x86_64": "x64",
    "amd64": "x64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "i386": "ia32",
    "i686": "ia32",
}


@functools.cache
def pi_user_agent() -> str:
    """``pi (<platform> <release>; <arch>)`` with Node's names for platform and architecture."""
    machine = platform.machine()
    arch = _ARCH.get(machine.lower(), machine.lower())
    return f"pi ({sys.platform} {platform.release()}; {arch})"


def env_value(name: str, env: Mapping[str, str] | None) -> str | None:
    """A scoped override first, then the process environment (empty values count as unset)."""
    return (env.get(name) if env else None) or os.environ.get(name) or None


def resolve_cache_retention(
    requested: CacheRetention | None, env: Mapping[str, str] | None
) -> CacheRetention:
    """The request's choice, else ``long`` when ``PI_CACHE_RETENTION=long``, else ``short``."""
    if requested:
        return requested
    return "long" if env_value("PI_CACHE_RETENTION", env) == "long" else "short"


_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize_surrogates(text: str) -> str:
    """Drop unpaired UTF-16 surrogates, which no provider accepts in JSON; keep real pairs."""
    if _SURROGATE.search(text) is None:
        return text
    # A high + low surrogate written as two code points is one character: join such pairs.
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _SURROGATE.sub("", joined)


_NOT_ID_CHAR = re.compile(r"[^a-zA-Z0-9_-]")


def sanitize_id(value: str) -> str:
    """Every character outside ``[a-zA-Z0-9_-]`` replaced by ``_``."""
    return _NOT_ID_CHAR.sub("_", value)


_MASK = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return (a * b) & _MASK


def short_hash(text: str) -> str:
    """Pi's ``shortHash``: a fast 64-bit hash over UTF-16 code units, written in base 36."""
    h1 = 0xDEADBEEF
    h2 = 0x41C6CE57
    data = text.encode("utf-16-le", "surrogatepass")
    for index in range(0, len(data), 2):
        unit = data[index] | (data[index + 1] << 8)
        h1 = _imul(h1 ^ unit, 2654435761)
        h2 = _imul(h2 ^ unit, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2 & _MASK) + _base36(h1 & _MASK)


def _base36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if value == 0:
        return "0"
    out = []
    while value:
        value, rest = divmod(value, 36)
        out.append(digits[rest])
    return "".join(reversed(out))


PROMPT_CACHE_KEY_MAX_LENGTH = 64


def clamp_prompt_cache_key(key: str | None) -> str | None:
    """OpenAI's ``prompt_cache_key`` holds at most 64 characters (code points)."""
    if key is None or len(key) <= PROMPT_CACHE_KEY_MAX_LENGTH:
        return key
    return key[:PROMPT_CACHE_KEY_MAX_LENGTH]


class PendingText:
    """Text and thinking deltas waiting to be joined into their blocks.

    Joining once per network read instead of once per delta keeps long streams linear: event
    consumers only run while the producer awaits the next read, so they still always see each
    block's full text. Call ``flush`` before awaiting, before a block's ``*_end`` event and
    before the terminal event.
    """

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending: dict[int, tuple[TextContent | ThinkingContent, list[str]]] = {}

    def add(self, block: TextContent | ThinkingContent, delta: str) -> None:
        entry = self._pending.get(id(block))
        if entry is None:
            self._pending[id(block)] = (block, [delta])
        else:
            entry[1].append(delta)

    def flush(self) -> None:
        for block, parts in self._pending.values():
            _append(block, "".join(parts))
        self._pending.clear()

    def flush_block(self, block: TextContent | ThinkingContent) -> None:
        entry = self._pending.pop(id(block), None)
        if entry is not None:
            _append(block, "".join(entry[1]))


def _append(block: TextContent | ThinkingContent, extra: str) -> None:
    # Detach the string first so CPython can grow it in place instead of copying it.
    if isinstance(block, TextContent):
        text = block.text
        block.text = ""
        text += extra
        block.text = text
    else:
        thinking = block.thinking
        block.thinking = ""
        thinking += extra
        block.thinking = thinking
