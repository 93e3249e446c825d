"""The page's embedded data: what its script needs to draw the tree and the entries not
written as HTML, packed small (gzip, then base64, inside ``<script type="application/json">``).

Entries are rendered to HTML here, in Python, like the rest of the page; they travel as
fragments in chunks of consecutive entries, which the script unpacks only when one of them
scrolls into view. The browser's own ``DecompressionStream`` unpacks them: no code of anyone
else's is in the page.
"""

from __future__ import annotations

import base64
import gzip
from concurrent.futures import Executor, Future
from typing import Any

from pi_ai.js_json import stringify

CHUNK_CHARS = 256 * 1024
"""A chunk closes once its fragments pass this size: big enough that a screen rarely needs more
than one, small enough that unpacking one takes a few milliseconds."""

LEVEL = 4
"""gzip's level: on a session's HTML and JSON about as small as the default (6) in two thirds of
the time, and packing is a good part of an export's time."""


def pack(value: Any) -> str:
    """``value`` as JSON (as ``JSON.stringify`` writes it), gzipped, in base64."""
    return base64.b64encode(gzip.compress(stringify(value).encode("utf-8"), LEVEL, mtime=0)).decode("ascii")


def pack_text(text: str) -> str:
    """``text`` (well-formed: no lone surrogates) gzipped, in base64."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), LEVEL, mtime=0)).decode("ascii")


def chunks(fragments: list[str], pool: Executor) -> tuple[list[int], list[Future[str]]]:
    """Consecutive fragments packed together (on ``pool``): (index of each chunk's first
    fragment, chunks)."""
    starts: list[int] = []
    packed: list[Future[str]] = []
    start, size = 0, 0
    for index, fragment in enumerate(fragments):
        size += len(fragment)
        if size >= CHUNK_CHARS or index == len(fragments) - 1:
            starts.append(start)
            packed.append(pool.submit(pack, fragments[start : index + 1]))
            start, size = index + 1, 0
    return starts, packed


def script_json(value: Any) -> str:
    """JSON safe inside ``<script>``: no ``</script>`` or ``<!--`` can end it early. Written as
    ``JSON.stringify`` writes it, so a lone surrogate in an id stays a ``\\udXXX`` escape."""
    return stringify(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
