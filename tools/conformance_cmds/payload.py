"""``payload``: the request our adapter sends for ``{api, model, context, options?, fn?}``.

Out, like the oracle: ``api``, ``model`` (provider, id, baseUrl), ``payload`` (what the
``on_payload`` hook received) and ``request`` (method, real URL, headers with machine- or
port-dependent values shown as ``<volatile>``, parsed JSON body) as it reached a loopback
server that answers 400 in the API's error shape so the client stops there.

How an API plugs in (shared with ``parse_stream``; details in ``_llm.py``):

- ``pi_ai.api.<module>`` (listed in ``_llm.API_MODULES``) exposes ``API: ApiImplementation``
  and ``OPTIONS``, its provider-options dataclass (a ``StreamOptions`` subclass);
- ``fn: "stream"`` builds ``OPTIONS`` from the JSON options, ``fn: "streamSimple"`` (default)
  builds ``SimpleStreamOptions``; camelCase keys map to snake_case fields, a
  ``ThinkingBudgets`` field is built from its object, unknown keys go to ``options.extra``;
- the adapter must send its request through ``pi_ai.api._http.open_stream`` (the loopback
  redirection lives there); an API whose module does not exist yet makes the case an expected
  failure (exit 3, "waits for issue #5").
``normalize`` drops the JS-only request headers (``x-stainless-*``, ``accept-language``,
``sec-fetch-mode``), see docs/decisions/transport.md.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.loopback import Reply

from conformance_cmds._common import Rejected
from conformance_cmds._llm import normalize, run_stream

__all__ = ["Rejected", "normalize", "run"]


def _error_reply(model: Any) -> Reply:
    if model.api == "google-generative-ai":
        body: Any = {
            "error": {"code": 400, "message": "pi-oracle: request captured", "status": "INVALID_ARGUMENT"}
        }
    elif model.api == "anthropic-messages":
        body = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": "pi-oracle: request captured"},
        }
    else:
        body = {
            "error": {"message": "pi-oracle: request captured", "type": "invalid_request_error", "code": None}
        }
    return Reply(
        400, {"content-type": "application/json"}, body=json.dumps(body, separators=(",", ":")).encode()
    )


def run(request: dict[str, Any]) -> dict[str, Any]:
    result = run_stream(request, _error_reply)
    model = result["model"]
    payloads = result["payloads"]
    out: dict[str, Any] = {
        "api": model.api,
        "model": {"provider": model.provider, "id": model.id, "baseUrl": model.base_url},
    }
    if len(payloads) == 1:
        out["payload"] = payloads[0]
    else:
        out["payloads"] = payloads
    out["request"] = result["requests"][0] if result["requests"] else None
    if not payloads:
        out["error"] = result["final"].get("errorMessage") or "no payload produced"
    return out
