"""mistral-conversations beyond the recorded cases: Pi's deadline covers the whole exchange
(a body that stalls past ``timeout_ms`` fails with fetch's timeout text, unlike the other
APIs, where only the headers are bounded), and ``on_response`` sees error answers too."""

from __future__ import annotations

import json

import pi_ai
from pi_ai import Context, Model, SimpleStreamOptions, UserMessage
from tests.support.loopback import LoopbackServer, Reply


def _model(base_url: str) -> Model:
    return Model(
        id="devstral-2512",
        name="Devstral",
        api="mistral-conversations",
        provider="mistral",
        base_url=base_url,
    )


def _context() -> Context:
    return Context(messages=[UserMessage(content="hi", timestamp=0)])


async def test_deadline_covers_the_body() -> None:
    first = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"par"},"finish_reason":null}]}\n\n'
    done = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n'
    sse = {"content-type": "text/event-stream"}
    async with LoopbackServer(
        [Reply(200, sse, body=done), Reply(200, sse, chunks=[first, b""], stall_after=1)]
    ) as server:
        # The first call loads the HTTP stack, so the deadline below is spent on the stall.
        warm = await pi_ai.stream_simple(
            _model(server.url), _context(), SimpleStreamOptions(api_key="k")
        ).result()
        assert warm.stop_reason == "stop"
        options = SimpleStreamOptions(api_key="k", timeout_ms=500)
        result = await pi_ai.stream_simple(_model(server.url), _context(), options).result()
    assert result.stop_reason == "error"
    assert result.error_message == "The operation was aborted due to timeout"
    assert [block.text for block in result.content] == ["par"]  # type: ignore[union-attr]


async def test_on_response_sees_error_statuses() -> None:
    seen: list[int] = []
    body = json.dumps({"message": "bad key"}).encode()
    async with LoopbackServer([Reply(401, {"content-type": "application/json"}, body=body)]) as server:
        options = SimpleStreamOptions(api_key="k", on_response=lambda info, _model: seen.append(info.status))
        result = await pi_ai.stream_simple(_model(server.url), _context(), options).result()
    assert seen == [401]
    assert result.error_message == 'Mistral API error (401): {"message": "bad key"}'
