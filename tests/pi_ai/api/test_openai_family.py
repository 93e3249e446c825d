"""``azure-openai-responses`` and ``openai-codex-responses`` through ``pi_ai.stream`` against a
Responses server on 127.0.0.1: where requests go and how they are signed, the zstd body,
Codex's retry rule and error texts, aborts, and a tool-call turn read on the shared reader.
(The request bodies and stream readings themselves are checked against the live Pi by the
conformance cases of ``tools/gen_codex_azure_cases.py``.)"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from msgspec.structs import replace

from pi_ai import AbortController, Context, ResponseInfo, StreamOptions, stream
from pi_ai._messages import ToolCall, UserMessage
from pi_ai.api.azure_openai_responses import AzureOpenAIResponsesOptions, normalize_base_url
from pi_ai.api.openai_codex_responses import OpenAICodexResponsesOptions
from pi_ai.models import get_model
from tests.support.responses_server import ResponsesServer, chatgpt_token


def _token() -> str:
    return chatgpt_token("acct-9")


CONTEXT = Context(system_prompt="Be brief.", messages=[UserMessage(content="hi", timestamp=0)])


def _codex(url: str) -> Any:
    model = get_model("openai-codex", "gpt-5.6-sol")
    assert model is not None
    return replace(model, base_url=url)


def _azure() -> Any:
    model = get_model("azure-openai-responses", "gpt-5.4")
    assert model is not None
    return model


async def _final(model: Any, options: StreamOptions) -> Any:
    events = stream(model, CONTEXT, options)
    async for _ in events:
        pass
    return await events.result()


async def test_azure_request_goes_to_the_deployment_with_the_key_header() -> None:
    with ResponsesServer(
        [{"tool_call": {"call_id": "call_1", "name": "read", "arguments": {"path": "a"}}}]
    ) as server:
        options = AzureOpenAIResponsesOptions(
            api_key="azure-key",
            env={
                "AZURE_OPENAI_BASE_URL": server.url + "/openai/v1/",
                "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-5.4=team-deployment",
                "AZURE_OPENAI_API_VERSION": "2025-04-01-preview",
            },
        )
        final = await _final(_azure(), options)
    assert final.stop_reason == "toolUse", final.error_message
    assert isinstance(final.content[0], ToolCall) and final.content[0].arguments == {"path": "a"}
    (seen,) = server.requests
    assert seen.path == "/openai/v1/responses" and seen.query == {"api-version": "2025-04-01-preview"}
    assert seen.headers["api-key"] == "azure-key" and "authorization" not in seen.headers
    assert seen.body["model"] == "team-deployment" and seen.body["store"] is False


def test_azure_base_url_normalization() -> None:
    assert normalize_base_url("https://Res.openai.azure.com") == "https://res.openai.azure.com/openai/v1"
    assert (
        normalize_base_url("https://res.ai.azure.com/openai/v1/responses?x=1")
        == "https://res.ai.azure.com/openai/v1"
    )
    assert normalize_base_url(" https://proxy.example/azure/ ") == "https://proxy.example/azure"
    with pytest.raises(ValueError, match="Invalid Azure OpenAI base URL: nope"):
        normalize_base_url("nope")


async def test_azure_without_key_or_base_url_fails_with_pis_messages() -> None:
    final = await _final(_azure(), AzureOpenAIResponsesOptions(api_key="k"))
    assert final.stop_reason == "error"
    assert final.error_message.startswith("Azure OpenAI base URL is required.")
    final = await _final(_azure(), AzureOpenAIResponsesOptions(env={"AZURE_OPENAI_RESOURCE_NAME": "r"}))
    assert final.error_message == "No API key for provider: azure"


async def test_codex_request_is_signed_compressed_and_read() -> None:
    seen_responses: list[ResponseInfo] = []
    with ResponsesServer([{"text": "Hello there"}], terminal="response.done") as server:
        options = OpenAICodexResponsesOptions(
            transport="sse",
            api_key=_token(),
            session_id="session-1",
            on_response=lambda info, _model: seen_responses.append(info),
        )
        final = await _final(_codex(server.url), options)
    assert final.stop_reason == "stop", final.error_message
    assert final.content[0].text == "Hello there"
    (seen,) = server.requests
    assert seen.path == "/codex/responses"
    headers = seen.headers
    assert headers["authorization"] == f"Bearer {_token()}" and headers["chatgpt-account-id"] == "acct-9"
    assert (headers["originator"], headers["openai-beta"]) == ("pi", "responses=experimental")
    assert headers["session-id"] == headers["x-client-request-id"] == "session-1"
    assert headers["content-encoding"] == "zstd" and not seen.raw.startswith(b"{")
    # Pi 1.6: the prompt is the leading developer item (no ``instructions``).
    assert "instructions" not in seen.body and seen.body["prompt_cache_key"] == "session-1"
    assert seen.body["input"][0] == {"role": "developer", "content": "Be brief."}
    assert [info.status for info in seen_responses] == [200]


async def test_codex_without_zstandard_sends_plain_json(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    for name in ("compression.zstd", "backports.zstd"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails, as without the extra
    with ResponsesServer([{"text": "ok"}]) as server:
        final = await _final(
            _codex(server.url), OpenAICodexResponsesOptions(transport="sse", api_key=_token())
        )
    assert final.stop_reason == "stop", final.error_message
    (seen,) = server.requests
    assert "content-encoding" not in seen.headers and json.loads(seen.raw) == seen.body


async def test_codex_retries_rate_limits_and_server_errors_then_streams() -> None:
    failures = [
        {
            "status": 429,
            "body": {"error": {"message": "Rate limit reached"}},
            "headers": {"retry-after-ms": "5"},
        },
        {"status": 503, "body": {"error": {"message": "overloaded"}}, "headers": {"retry-after": "0"}},
    ]
    statuses: list[int] = []
    with ResponsesServer([{"text": "after retries"}], failures=failures) as server:
        options = OpenAICodexResponsesOptions(
            transport="sse",
            api_key=_token(),
            max_retries=2,
            on_response=lambda info, _m: statuses.append(info.status),
        )
        final = await _final(_codex(server.url), options)
    assert final.stop_reason == "stop", final.error_message
    assert len(server.requests) == 3 and statuses == [429, 503, 200]


async def test_codex_usage_limit_is_final_and_friendly() -> None:
    # A 403 is not retryable by status; its usage-limit text keeps Codex's catch-all retry off too.
    limit = {"error": {"code": "usage_not_included", "plan_type": "PRO", "resets_at": 1}}
    with ResponsesServer([{"text": "never"}], failures=[{"status": 403, "body": limit}]) as server:
        final = await _final(
            _codex(server.url), OpenAICodexResponsesOptions(transport="sse", api_key=_token(), max_retries=3)
        )
    assert len(server.requests) == 1
    assert final.error_message == "You have hit your ChatGPT usage limit (pro plan). Try again in ~0 min."


async def test_codex_retry_delay_above_the_cap_fails_at_once() -> None:
    failures = [
        {"status": 429, "body": {"error": {"message": "slow down"}}, "headers": {"retry-after": "120"}}
    ]
    with ResponsesServer([{"text": "never"}], failures=failures) as server:
        options = OpenAICodexResponsesOptions(
            transport="sse", api_key=_token(), max_retries=1, max_retry_delay_ms=1000
        )
        final = await _final(_codex(server.url), options)
    assert len(server.requests) == 1
    assert final.error_message == "Server requested 120s retry delay (max: 1s)"


async def test_codex_abort_while_waiting_to_retry() -> None:
    controller = AbortController()
    failures = [{"status": 500, "body": {"error": {"message": "boom"}}, "headers": {"retry-after": "30"}}]
    with ResponsesServer([{"text": "never"}], failures=failures) as server:
        options = OpenAICodexResponsesOptions(
            transport="sse", api_key=_token(), max_retries=1, signal=controller.signal
        )
        task = asyncio.ensure_future(_final(_codex(server.url), options))
        assert await asyncio.to_thread(server.arrived.wait, 30)
        controller.abort()
        final = await task
    assert (final.stop_reason, final.error_message) == ("aborted", "Request was aborted")


async def test_codex_token_must_carry_an_account() -> None:
    final = await _final(_codex("http://127.0.0.1:9"), OpenAICodexResponsesOptions(api_key="opaque-token"))
    assert final.error_message == "Failed to extract accountId from token"
