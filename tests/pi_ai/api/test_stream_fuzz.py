"""Fuzzing the four stream parsers through the library, against a real HTTP server on 127.0.0.1.

Bodies are well-formed responses with one value spoiled (any JSON type in any place), event
sequences mixing well-formed events with random JSON, and raw bytes, written in random chunk
sizes. Whatever arrives: no exception escapes ``stream``, the events end with exactly one
``done`` or ``error`` (the settled result), and no ``errorMessage`` carries Python's own
wording. ``PI_FUZZ_EXAMPLES`` sets the example count per API and kind (default 150, new ones
each run: 450 bodies per parser, 1,800 in all, about 10 ms each).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

import pi_ai
from pi_ai import Context, Model, StreamOptions, UserMessage
from pi_ai.api._http import close_clients
from pi_ai.models import get_model
from tests.reliability.figures import record
from tests.support.loopback import LoopbackServer, Reply, split
from tests.support.stream_checks import PYTHON_WORDING, settled_once
from tests.support.stream_shapes import APIS, REMOVE, WRONG_TYPES, base, paths, render, spoiled

EXAMPLES = int(os.environ.get("PI_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_REFS = {
    "anthropic-messages": ("anthropic", "claude-sonnet-4-5"),
    "openai-completions": ("openai", "gpt-4o-mini"),
    "openai-responses": ("openai", "gpt-4.1-mini"),
    "google-generative-ai": ("google", "gemini-2.5-flash"),
}
CONTEXT = Context(messages=[UserMessage(content="Read a.py", timestamp=0)])

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**12) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_wrong = st.sampled_from([*WRONG_TYPES, REMOVE]) | _json
CHUNKS = st.sampled_from([61, 509, 1 << 20])
"""Write sizes: events cut anywhere (also inside UTF-8 characters), or the body at once."""


def _model(api: str, url: str) -> Model:
    provider, model_id = _REFS[api]
    found = get_model(provider, model_id)
    assert found is not None
    return replace(found, base_url=url + ("/v1beta" if api == "google-generative-ai" else ""))


class _Harness:
    """One event loop and one server for every example (a new pool per example would cost
    more than the parsing under test)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.reply = Reply()
        self.server = LoopbackServer(respond=lambda _request: self.reply)
        self.loop.run_until_complete(self.server.__aenter__())

    def settle(self, api: str, body: bytes, chunk: int) -> tuple[list[Any], Any]:
        self.reply = Reply(chunks=split(body, chunk))
        return self.loop.run_until_complete(self._settle(api))

    async def _settle(self, api: str) -> tuple[list[Any], Any]:
        options = StreamOptions(api_key="k", max_retries=0)
        stream = pi_ai.stream(_model(api, self.server.url), CONTEXT, options)
        events = [event async for event in stream]
        return events, await stream.result()

    def close(self) -> None:
        async def shut() -> None:
            await close_clients()
            await self.server.__aexit__(None, None, None)

        self.loop.run_until_complete(shut())
        self.loop.close()


@pytest.fixture(scope="module")
def harness() -> Iterator[_Harness]:
    made = _Harness()
    yield made
    made.close()


def _check(harness: _Harness, api: str, body: bytes, chunk: int) -> None:
    record("fuzz_input", target=f"{api} stream")
    events, result = harness.settle(api, body, chunk)
    kinds = [event.type for event in events]
    assert kinds and kinds[0] in ("start", "error"), kinds
    terminal = settled_once(events, result)
    if terminal.type == "error":
        assert result.stop_reason in ("error", "aborted")
        message = result.error_message or ""
        assert message and not PYTHON_WORDING.search(message), message
    else:
        assert result.stop_reason in ("stop", "length", "toolUse")


@st.composite
def spoiled_bodies(draw: st.DrawFn, api: str) -> bytes:
    """A well-formed response of ``api`` with one or two values replaced or removed."""
    events: list[Any] = base(api)
    for _ in range(draw(st.integers(1, 2))):
        index = draw(st.integers(0, len(events) - 1))
        choices = [(), *paths(events[index])]
        path = draw(st.sampled_from(choices))
        replacement = draw(_wrong)
        if replacement is REMOVE and not path:
            continue
        events[index] = spoiled(events[index], path, replacement)
    return render(api, events).encode()


@st.composite
def mixed_bodies(draw: st.DrawFn, api: str) -> bytes:
    """Well-formed events of ``api`` in any order, dropped or repeated, among random JSON."""
    pool: list[Any] = base(api)
    events = draw(st.lists(st.sampled_from(pool) | _json, max_size=12))
    return render(api, events).encode()


@pytest.mark.parametrize("api", APIS)
def test_spoiled_fields_never_escape_or_hang(harness: _Harness, api: str) -> None:
    @FUZZ
    @given(body=spoiled_bodies(api), chunk=CHUNKS)
    def check(body: bytes, chunk: int) -> None:
        _check(harness, api, body, chunk)

    check()


@pytest.mark.parametrize("api", APIS)
def test_any_event_order_never_escapes_or_hangs(harness: _Harness, api: str) -> None:
    @FUZZ
    @given(body=mixed_bodies(api), chunk=CHUNKS)
    def check(body: bytes, chunk: int) -> None:
        _check(harness, api, body, chunk)

    check()


@pytest.mark.parametrize("api", APIS)
def test_raw_bytes_never_escape_or_hang(harness: _Harness, api: str) -> None:
    prefix = {"openai-completions": b"data: ", "google-generative-ai": b"data: "}.get(api, b"event: message_start\ndata: ")

    @FUZZ
    @given(tail=st.binary(max_size=300), chunk=st.integers(1, 64))
    def check(tail: bytes, chunk: int) -> None:
        _check(harness, api, prefix + tail + b"\n\n", chunk)

    check()
