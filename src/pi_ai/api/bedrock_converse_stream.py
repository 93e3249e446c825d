"""The ``bedrock-converse-stream`` wire API: Amazon Bedrock's ConverseStream.

Pi 0.85 talks to Bedrock through the AWS SDK for JavaScript; this module sends what that
SDK sends (``POST {endpoint}/model/{modelId}/converse-stream``, the JSON body in the service
model's member order, SigV4-signed, or ``Authorization: Bearer`` with a Bedrock API key),
reads the binary event stream it answers with, retries as the SDK does (3 attempts for
throttling and 5xx answers, each attempt signed anew) and words errors as Pi does.

Region and endpoint follow Pi: a region in an inference-profile ARN, else the ``region``
option / ``AWS_REGION`` / ``AWS_DEFAULT_REGION``, else the region of a standard
``bedrock-runtime`` base URL, else ``us-east-1`` (or the profile's region when
``AWS_PROFILE`` is set). A custom base URL (a VPC endpoint, a proxy) is used as is.
Credentials: ``_aws_credentials``.
"""

from __future__ import annotations

import asyncio
import random
import re
import uuid
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from pi_ai._abort import AbortError
from pi_ai._codec import encode
from pi_ai._context import Context
from pi_ai._env_keys import AUTHENTICATED_MARKER
from pi_ai._event_stream import (
    AssistantMessageEventStream,
    empty_assistant_message,
    error_text,
    now_ms,
    start_stream,
)
from pi_ai._messages import AssistantMessage, Diagnostic
from pi_ai._model import Model
from pi_ai._options import SimpleStreamOptions, StreamOptions, ThinkingBudgets
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import (
    adjust_max_tokens_for_thinking,
    base_options,
    clamp_max_tokens_to_context,
    clamp_reasoning,
)
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._aws_credentials import profile_region, resolve_credentials
from pi_ai.api._aws_eventstream import EventStreamDecoder
from pi_ai.api._aws_sigv4 import AwsCredentials, sign_request
from pi_ai.api._bedrock_payload import (
    additional_fields,
    command_input,
    is_claude,
    supports_adaptive_thinking,
    wire_body,
)
from pi_ai.api._bedrock_stream import ERROR_PREFIXES, BedrockServiceError, BedrockStreamReader
from pi_ai.api._common import (
    check_stream_end,
    env_value,
    pi_user_agent,
    provider_options,
    resolve_cache_retention,
)
from pi_ai.api._http import HttpRequest, HttpStatusError, StreamResponse, open_stream
from pi_ai.js_json import JsonParseError, parse

__all__ = ["API", "OPTIONS", "BedrockOptions", "stream", "stream_simple"]

API_NAME = "bedrock-converse-stream"
MAX_ATTEMPTS = 3
"""The AWS SDK's standard retry mode: three attempts in all."""
DATA_RETENTION_DOCS = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"
_ARN_REGION = re.compile(r"^arn:aws(?:-[a-z0-9-]+)?:bedrock:([a-z0-9-]+):")
_STANDARD_HOST = re.compile(r"^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")
_RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
_RETRYABLE_CODES = frozenset(
    {
        "ThrottlingException",
        "TooManyRequestsException",
        "ServiceUnavailableException",
        "InternalServerException",
    }
)


@dataclass(kw_only=True)
class BedrockOptions(StreamOptions):
    region: str | None = None
    profile: str | None = None
    bearer_token: str | None = None
    tool_choice: str | Mapping[str, Any] | None = None
    """``auto``, ``any``, ``none`` or ``{"type": "tool", "name": ...}``."""
    reasoning: str | None = None
    thinking_budgets: ThinkingBudgets | None = None
    thinking_display: str | None = None
    interleaved_thinking: bool | None = None
    request_metadata: Mapping[str, str] | None = None


OPTIONS = BedrockOptions


# --------------------------------------------------------------------------- where and who


@dataclass(frozen=True, slots=True)
class _Target:
    url: str
    region: str
    bearer: str | None
    credentials: AwsCredentials | None


def _endpoint_region(base_url: str) -> str | None:
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return None
    match = _STANDARD_HOST.match(host)
    return match.group(1) if match else None


async def _target(model: Model, options: BedrockOptions) -> _Target:
    env = options.env
    options_profile = options.profile or (env or {}).get("AWS_PROFILE") or None
    profile = options_profile or env_value("AWS_PROFILE", None)
    configured = options.region or env_value("AWS_REGION", env) or env_value("AWS_DEFAULT_REGION", env)
    ambient_profile = bool(env_value("AWS_PROFILE", None))
    endpoint_region = _endpoint_region(model.base_url)
    explicit = endpoint_region is None or (not configured and not ambient_profile)
    arn = _ARN_REGION.match(model.id)
    region = (
        (arn.group(1) if arn else None)
        or configured
        or (endpoint_region if explicit else None)
        or (None if ambient_profile else "us-east-1")
        or profile_region(profile, env)
    )
    if not region:
        raise ValueError("Region is missing")
    base = model.base_url if explicit else _regional_endpoint(region)
    url = f"{base.rstrip('/')}/model/{quote(model.id, safe='')}/converse-stream"
    skip_auth = env_value("AWS_BEDROCK_SKIP_AUTH", env) == "1"
    # The "<authenticated>" marker says ambient AWS credentials exist; it is not a key.
    api_key = options.api_key if options.api_key != AUTHENTICATED_MARKER else None
    bearer = options.bearer_token or api_key or env_value("AWS_BEARER_TOKEN_BEDROCK", env)
    if bearer and not skip_auth:
        return _Target(url, region, bearer, None)
    if skip_auth:
        return _Target(url, region, None, AwsCredentials("dummy-access-key", "dummy-secret-key"))
    key, secret = env_value("AWS_ACCESS_KEY_ID", env), env_value("AWS_SECRET_ACCESS_KEY", env)
    if key and secret and not options_profile:
        return _Target(url, region, None, AwsCredentials(key, secret, env_value("AWS_SESSION_TOKEN", env)))
    credentials = await resolve_credentials(profile, env, use_env_keys=not profile)
    return _Target(url, region, None, credentials)


def _regional_endpoint(region: str) -> str:
    suffix = ".amazonaws.com.cn" if region.startswith("cn-") else ".amazonaws.com"
    return f"https://bedrock-runtime.{region}{suffix}"


def _reserved(name: str) -> bool:
    lower = name.lower()
    return lower.startswith("x-amz-") or lower in ("authorization", "host")


def _headers(
    target: _Target, options: BedrockOptions, body: bytes, attempt: int, invocation: str
) -> dict[str, str]:
    headers = {
        "content-type": "application/json",
        "content-length": str(len(body)),
        "user-agent": pi_user_agent(),
        "amz-sdk-invocation-id": invocation,
        "amz-sdk-request": f"attempt={attempt}; max={MAX_ATTEMPTS}",
    }
    for name, value in (options.headers or {}).items():
        if value is not None and not _reserved(name):
            headers[name.lower()] = value
    if target.bearer is not None:
        headers["authorization"] = f"Bearer {target.bearer}"
        return headers
    assert target.credentials is not None
    return sign_request(
        "POST", target.url, headers, body, target.credentials, region=target.region, service="bedrock"
    )


# --------------------------------------------------------------------------- errors


def _status_error(error: HttpStatusError) -> BedrockServiceError:
    """The SDK's exception for a non-2xx answer: its type from ``x-amzn-errortype`` or the
    body's ``__type`` / ``code``, its message from the body."""
    request_id = error.headers.get("x-amzn-requestid")
    try:
        body: Any = parse(error.text) if error.text.strip() else {}
    except JsonParseError as parse_error:
        text = (
            f"{parse_error}\n  Deserialization error: to see the raw response, inspect the hidden field "
            "{error}.$response on this object."
        )
        return BedrockServiceError("SyntaxError", text, modeled=False, status=error.status)
    data = body if isinstance(body, dict) else {}
    code = error.headers.get("x-amzn-errortype") or data.get("__type") or data.get("code") or ""
    code = str(code).split(":")[0].split("#")[-1]
    message = data.get("message") or data.get("Message")
    name = code or "UnknownError"
    text = str(message) if message is not None else name
    return BedrockServiceError(name, text, modeled=True, status=error.status, request_id=request_id)


def format_error(error: BaseException) -> str:
    core = error_text(error)
    hint = (
        f" See {DATA_RETENTION_DOCS} for supported data retention modes."
        if re.search("data retention mode", core, re.IGNORECASE)
        else ""
    )
    if isinstance(error, BedrockServiceError) and error.modeled:
        return f"{ERROR_PREFIXES.get(error.name, error.name)}: {core}{hint}"
    return f"{core}{hint}"


def _diagnostic(output: AssistantMessage, error: BaseException, request_id: str | None) -> None:
    details: dict[str, Any] = {}
    if isinstance(error, BedrockServiceError):
        if error.status is not None:
            details["status"] = error.status
        if error.name.endswith("Exception") and len(error.name) <= 200:
            details["errorCode"] = error.name
        request_id = error.request_id or request_id
    if request_id and request_id.strip() and len(request_id.strip()) <= 200:
        details["requestId"] = request_id.strip()
    if details:
        diagnostic = Diagnostic(type="bedrock_response_failure", timestamp=now_ms(), details=details)
        output.diagnostics = [*(output.diagnostics or []), diagnostic]


# --------------------------------------------------------------------------- the call


def _retryable(error: BedrockServiceError) -> bool:
    return (error.status in _RETRYABLE_STATUS) or error.name in _RETRYABLE_CODES


async def _open(
    stack: AsyncExitStack,
    target: _Target,
    body: bytes,
    payload: Any,
    *,
    options: BedrockOptions,
    model: Model,
) -> StreamResponse:
    invocation = str(uuid.uuid4())
    single = _single_attempt(options)
    attempt = 1
    while True:
        request = HttpRequest(target.url, _headers(target, options, body, attempt, invocation), payload)
        try:
            return await stack.enter_async_context(
                open_stream(request, single, model, describe_error=lambda *_: "", request_timeout=False)
            )
        except HttpStatusError as failure:
            error = _status_error(failure)
            if attempt >= MAX_ATTEMPTS or not _retryable(error):
                raise error from None
        delay = random.random() * min(20.0, 0.1 * 2**attempt)
        attempt += 1
        if options.signal is not None and options.signal.aborted:
            raise AbortError("Request aborted")
        await asyncio.sleep(delay)


def _single_attempt(options: BedrockOptions) -> BedrockOptions:
    import dataclasses

    return dataclasses.replace(options, max_retries=0)


ABORTED_WHILE_READING = "aborted"
"""What the SDK's Node HTTP handler says when the call is aborted once the answer streams."""


async def _read(response: StreamResponse, reader: BedrockStreamReader, acc: StreamAccumulator) -> None:
    try:
        await _decode(response, reader, acc)
    except AbortError:
        raise AbortError(ABORTED_WHILE_READING) from None


async def _decode(response: StreamResponse, reader: BedrockStreamReader, acc: StreamAccumulator) -> None:
    decoder = EventStreamDecoder()
    try:
        async for chunk in response.chunks(aborted_between_reads=ABORTED_WHILE_READING):
            for message in decoder.feed(chunk):
                headers = message.headers
                kind = headers.get(":message-type")
                if kind == "event":
                    reader.handle(str(headers.get(":event-type")), parse(message.payload.decode("utf-8")))
                elif kind == "exception":
                    payload = parse(message.payload.decode("utf-8")) if message.payload else {}
                    reader.exception(str(headers.get(":exception-type")), payload)
                elif kind == "error":
                    code = str(headers.get(":error-code") or "UnknownError")
                    raise BedrockServiceError(code, str(headers.get(":error-message") or code), modeled=False)
            acc.flush()
        decoder.finish()
    finally:
        acc.flush()


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one response. Every failure arrives as an ``error`` event."""
    opts = provider_options(options, BedrockOptions)
    output = empty_assistant_message(model)
    output.api = API_NAME

    async def produce(events: AssistantMessageEventStream) -> None:
        acc = StreamAccumulator(events, output)
        reader = BedrockStreamReader(acc, model)
        request_id: str | None = None
        try:
            target = await _target(model, opts)
            payload = _command(model, context, opts, target.region)
            payload = await _on_payload(opts, payload, model)
            body_data = wire_body(payload)
            body = encode(body_data)
            async with AsyncExitStack() as stack:
                response = await _open(stack, target, body, body_data, options=opts, model=model)
                request_id = response.headers.get("x-amzn-requestid")
                await _read(response, reader, acc)
            check_stream_end(
                output,
                opts.signal,
                "Bedrock stream ended without a stop reason",
                output.error_message or "An unknown error occurred",
            )
            reader.finish()
            acc.done()
        except Exception as error:
            reader.finish()
            aborted = opts.signal is not None and opts.signal.aborted
            if not aborted:
                _diagnostic(output, error, request_id)
            acc.error(format_error(error), aborted=aborted)

    return start_stream(model, produce, signal=opts.signal)


async def _on_payload(options: BedrockOptions, payload: dict[str, Any], model: Model) -> dict[str, Any]:
    from pi_ai.api._http import apply_on_payload

    result: dict[str, Any] = await apply_on_payload(options, payload, model)
    return result


def _command(model: Model, context: Context, options: BedrockOptions, region: str) -> dict[str, Any]:
    budgets = None
    if options.thinking_budgets is not None:
        budgets = {
            name: getattr(options.thinking_budgets, name) for name in ("minimal", "low", "medium", "high")
        }
    additional = additional_fields(
        model,
        options.reasoning,
        budgets=budgets,
        display=options.thinking_display,
        interleaved=options.interleaved_thinking,
        region=options.region
        or env_value("AWS_REGION", options.env)
        or env_value("AWS_DEFAULT_REGION", options.env),
    )
    return command_input(
        model,
        context,
        max_tokens=options.max_tokens,
        temperature=options.temperature,
        tool_choice=options.tool_choice,
        retention=resolve_cache_retention(options.cache_retention, options.env),
        env=options.env,
        additional=additional,
        request_metadata=options.request_metadata,
    )


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options: ``reasoning`` becomes Claude's thinking (budget or adaptive)."""
    simple = options or SimpleStreamOptions()
    base = base_options(model, context, simple)
    base["extra"] = {}
    provider = BedrockOptions(**base, tool_choice=simple.tool_choice)
    if not simple.reasoning:
        return stream(model, context, provider)
    provider.reasoning = simple.reasoning
    provider.thinking_budgets = simple.thinking_budgets
    if is_claude(model) and not supports_adaptive_thinking(model):
        max_tokens, budget = adjust_max_tokens_for_thinking(
            base["max_tokens"], model.max_tokens, simple.reasoning, simple.thinking_budgets
        )
        provider.max_tokens = clamp_max_tokens_to_context(model, context, max_tokens)
        custom = simple.thinking_budgets or ThinkingBudgets()
        level = clamp_reasoning(simple.reasoning)
        import dataclasses

        provider.thinking_budgets = dataclasses.replace(
            custom, **{level: min(budget, max(0, provider.max_tokens - 1024))}
        )
    return stream(model, context, provider)


API = ApiImplementation(api=API_NAME, stream=stream, stream_simple=stream_simple)
