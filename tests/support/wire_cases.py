"""Running a recorded wire case (``tests/conformance/cases/wire/<api>/NAME.json``, Pi's answer
from ``tools/pi_wire_driver.mjs`` in ``NAME.out.json``) through our library, against a
loopback server serving the same replies, with the same environment and files.

The comparison is on what reached the server (method, path, the real URL for ``keepBaseUrl``
cases, headers, JSON body) and on every event and the final message. Headers that name the
client or the moment are masked: ``host`` (the port), ``user-agent``, ``x-amz-user-agent``,
``x-goog-api-client`` (the SDKs' own), ``accept``, ``accept-encoding``, ``accept-language``,
``sec-fetch-mode`` (the HTTP stacks'), ``amz-sdk-invocation-id`` (random), ``x-amz-date``,
``x-stainless-*`` (the JS SDKs' telemetry, dropped),
``connection``, and the ``Signature=`` / ``SignedHeaders=`` and the scope's day of a SigV4
``authorization`` (they cover the masked headers); SigV4 itself is checked against Pi's
signatures separately (``recorded_signature_matches``).
"""

from __future__ import annotations

import asyncio
import base64
import calendar
import json
import os
import re
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from tests.support import pi16
from tests.support.loopback import LoopbackServer, Recorded, Reply, split
from tests.support.pi085_catalog import pi085_model

CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases" / "wire"
_MASKED = {
    "host",
    "x-goog-api-client",
    "accept-language",
    "sec-fetch-mode",
    "user-agent",
    "x-amz-user-agent",
    "amz-sdk-invocation-id",
    "x-amz-date",
    "connection",
    "accept",
    "accept-encoding",
}
_CLEARED = re.compile(
    r"^(AWS_|GOOGLE_|GCLOUD_|CLOUDSDK_|MISTRAL_|CLOUDFLARE_|OPENROUTER_|HTTPS?_PROXY|NO_PROXY)", re.I
)


def case_names(api: str) -> list[str]:
    return sorted(
        path.name[: -len(".json")]
        for path in (CASES / api).glob("*.json")
        if not path.name.endswith(".out.json")
    )


def load(api: str, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    folder = CASES / api
    return json.loads((folder / f"{name}.json").read_text()), json.loads(
        (folder / f"{name}.out.json").read_text()
    )


def _reply(spec: dict[str, Any]) -> Reply:
    body = base64.b64decode(spec["bodyBase64"]) if "bodyBase64" in spec else spec.get("body", "").encode()
    headers = dict(spec.get("headers") or {})
    if spec.get("stall"):
        return Reply(spec.get("status", 200), headers, chunks=[body], stall_after=1)
    if spec.get("chunkSize"):
        return Reply(spec.get("status", 200), headers, chunks=split(body, spec["chunkSize"]))
    return Reply(spec.get("status", 200), headers, body=body)


def apply_environment(case: dict[str, Any], home: Path, monkeypatch: Any) -> None:
    """The driver's environment: provider variables cleared, a fresh HOME, the case's files and
    variables (``$DIR`` is that HOME)."""
    for name in list(os.environ):
        if _CLEARED.match(name):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(home / "aws-config-missing"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "aws-credentials-missing"))
    for name, text in (case.get("files") or {}).items():
        (home / name).write_text(text)
    for name, value in (case.get("env") or {}).items():
        monkeypatch.setenv(name, str(value).replace("$DIR", str(home)))


def build_model(case: dict[str, Any], base_url: str | None) -> Any:
    """The case's model (a ``ref`` names a model of Pi 0.85's catalog, which answered the case);
    its ``baseUrl`` replaced by ``base_url`` (+ ``basePath``) unless None."""
    from pi_ai import Model, convert

    spec = dict(case["model"])
    base_path = spec.pop("basePath", "")
    if "ref" in spec:
        provider, _, model_id = spec.pop("ref").partition("/")
        found = pi085_model(provider, model_id)
        assert found is not None, f"unknown built-in model {provider}/{model_id}"
        data = {**found, **spec}
    else:
        data = {
            "name": spec["id"],
            "reasoning": False,
            "input": ["text", "image"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 200000,
            "maxTokens": 32000,
            **spec,
        }
    if base_url is not None:
        data["baseUrl"] = base_url + base_path
    return convert(data, Model)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def build_options(case: dict[str, Any], options_type: type) -> Any:
    from pi_ai import SimpleStreamOptions, ThinkingBudgets

    kind = SimpleStreamOptions if (case.get("fn") or "streamSimple") == "streamSimple" else options_type
    kwargs: dict[str, Any] = {"max_retries": 0}
    extra: dict[str, Any] = {}
    names = {field for field in kind.__dataclass_fields__}
    for key, value in (case.get("options") or {}).items():
        name = _snake(key)
        if name not in names:
            extra[key] = value
        elif name == "thinking_budgets" and value is not None:
            kwargs[name] = ThinkingBudgets(**value)
        else:
            kwargs[name] = value
    return kind(**kwargs, extra=extra)


def _zero_timestamps(value: Any) -> Any:
    if isinstance(value, list):
        return [_zero_timestamps(item) for item in value]
    if isinstance(value, dict):
        return {
            key: 0
            if key in ("timestamp", "timestampMs") and isinstance(item, int | float)
            else _zero_timestamps(item)
            for key, item in value.items()
        }
    return value


async def run_ours(case: dict[str, Any], options_type: type, verify: Any = None) -> dict[str, Any]:
    """Our answer in the driver's shape (``requests``, ``events``, ``final``)."""
    import pi_ai
    from pi_ai.api._http import close_clients, redirect_requests

    replies = [_reply(spec) for spec in case.get("replies") or []]
    last = replies[-1] if replies else Reply(400, {}, body=b"")

    def respond(_recorded: Recorded) -> Reply:
        return last

    async with LoopbackServer(replies, respond=respond) as server:
        model = build_model(case, None if case.get("keepBaseUrl") else server.url)
        context = pi_ai.convert(_context(case), pi_ai.Context)
        options = build_options(case, options_type)
        controller = pi_ai.AbortController()
        abort_at = case.get("abortAtDelta")
        if abort_at:
            options.signal = controller.signal
        fn = pi_ai.stream_simple if (case.get("fn") or "streamSimple") == "streamSimple" else pi_ai.stream
        with redirect_requests(server.url) if case.get("keepBaseUrl") else nullcontext([]) as originals:
            events_stream = fn(model, context, options)
            events = []
            deltas = 0
            async for event in events_stream:
                data = pi_ai.to_builtins(event)
                data.pop("partial", None)
                events.append(data)
                deltas += event.type == "text_delta"
                if abort_at and event.type == "text_delta" and deltas == abort_at:
                    controller.abort()
            final = pi_ai.to_builtins(await events_stream.result())
        await close_clients()
    if verify is not None:
        for recorded in server.requests:
            verify(recorded)
    requests = [
        {
            "method": r.method,
            "path": r.path,
            "headers": dict(r.headers),
            "bodyText": r.body.decode("utf-8", "replace"),
        }
        for r in server.requests
    ]
    for request, url in zip(requests, originals, strict=False):
        request["url"] = url
    # The recorded answers are Pi 0.85's: the message fields only Pi 1.6 writes are left out
    # (compared with 1.6 by the parse-stream conformance cases, tests/support/pi16.py).
    events, final = pi16.as_pi085(events), pi16.as_pi085(final)
    return {"requests": requests, "events": _zero_timestamps(events), "final": _zero_timestamps(final)}


def _context(case: dict[str, Any]) -> dict[str, Any]:
    context = dict(case.get("context") or {})
    context["messages"] = [
        m if "timestamp" in m else {**m, "timestamp": 0} for m in context.get("messages") or []
    ]
    return context


def comparable_request(request: dict[str, Any]) -> dict[str, Any]:
    headers = {}
    for name, value in request["headers"].items():
        if name.startswith("x-stainless-"):
            continue  # the JS SDKs' telemetry; we send none (docs/decisions/transport.md)
        if name in _MASKED:
            headers[name] = "<masked>"
        elif name == "authorization" and value.startswith("AWS4-HMAC-SHA256"):
            headers[name] = re.sub(r"/\d{8}/", "/<day>/", value.split(", SignedHeaders=")[0])
        else:
            headers[name] = value
    for name in _MASKED:
        headers.setdefault(name, "<masked>")
    try:
        body: Any = json.loads(request["bodyText"])
    except ValueError:
        body = request["bodyText"]
    out = {"method": request["method"], "path": request["path"], "headers": headers, "body": body}
    if "url" in request:
        out["url"] = request["url"]
    return out


def recorded_signature_matches(request: dict[str, Any], credentials: Any, region: str, service: str) -> bool:
    """Whether our SigV4 signer, given what Pi's SDK signed, writes Pi's ``authorization``."""
    from pi_ai.api._aws_sigv4 import sign_request

    headers = request["headers"]
    stamp = headers["x-amz-date"]
    now = calendar.timegm(time.strptime(stamp, "%Y%m%dT%H%M%SZ"))
    unsigned = {
        name: value
        for name, value in headers.items()
        if name not in ("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "host")
    }
    url = f"http://{headers['host']}{request['path']}"
    signed = sign_request(
        request["method"],
        url,
        unsigned,
        request["bodyText"].encode(),
        credentials,
        region=region,
        service=service,
        now=now,
    )
    return bool(signed["authorization"] == headers["authorization"])


def run(case: dict[str, Any], options_type: type, verify: Any = None) -> dict[str, Any]:
    return asyncio.run(run_ours(case, options_type, verify))
