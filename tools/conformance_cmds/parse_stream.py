"""``parse-stream``: the events and final message our adapter produces for a raw SSE body.

In: the ``payload`` fields plus ``sse`` (the body), optional ``status``, ``contentType``
(default ``text/event-stream; charset=utf-8``), ``responseHeaders`` and ``chunkSize`` (the
body written in N-byte pieces, which may cut UTF-8 characters). Ours also takes ``bodyBase64``
instead of ``sse``: a binary body, such as Bedrock's ``application/vnd.amazon.eventstream``
frames (the oracle cannot run Bedrock; see ``_llm.API_MODULES``). Out, like the oracle:
``{"events": [each event without "partial", snapshotted when emitted], "final": message}``
with numeric ``timestamp`` and ``durationMs`` fields 0 and clock-based Google tool-call ids ``name_0_<n>``.
"""

from __future__ import annotations

import base64
from typing import Any

from tests.support.loopback import Reply, split

from conformance_cmds._common import Rejected
from conformance_cmds._llm import run_stream

__all__ = ["Rejected", "run"]


def run(request: dict[str, Any]) -> dict[str, Any]:
    body = _body(request)
    headers = {
        "content-type": request.get("contentType") or "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        **(request.get("responseHeaders") or {}),
    }
    size = request.get("chunkSize")
    status = request.get("status") or 200

    def reply(_model: Any) -> Reply:
        if isinstance(size, int) and size > 0:
            return Reply(status, headers, chunks=split(body, size))
        return Reply(status, headers, body=body)

    result = run_stream(request, reply)
    return {"events": result["events"], "final": result["final"]}


def _body(request: dict[str, Any]) -> bytes:
    """The response body: ``sse`` as UTF-8, or ``bodyBase64`` for a binary one."""
    sse, encoded = request.get("sse"), request.get("bodyBase64")
    if isinstance(sse, str):
        return sse.encode()
    if isinstance(encoded, str):
        try:
            return base64.b64decode(encoded, validate=True)
        except ValueError:
            raise Rejected("input.bodyBase64 is not base64") from None
    raise Rejected("input.sse (the raw SSE response body) or input.bodyBase64 is required")
