"""The provider fault matrix through the library: every wire API x every fault in ``faults``,
against a real HTTP server on 127.0.0.1 (or a closed port).

Each run must settle: no exception out of the stream, exactly one terminal event and it is
the last, a final message whose outcome is the fault's, an error text that is a sentence for
a person (no Python internals), and no hang (a run that does not settle within
``HANG_SECONDS`` fails as a hang; that is a bound on a bug, not a timing assertion).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, replace

import pytest

from pi_ai import (
    AbortController,
    AssistantMessage,
    Context,
    SimpleStreamOptions,
    UserMessage,
    stream_simple,
)
from pi_ai.api._http import close_clients
from tests.reliability.faults import ANSWER, FAULTS, FULL, Fault
from tests.reliability.figures import record
from tests.reliability.wire import WIRES, Wire
from tests.support.loopback import LoopbackServer, Reply, split

HANG_SECONDS = 60
CHUNKINGS: list[int | None] = [None, 1, 7] if FULL else [None]
"""Body writes as the fault sends them; in the full run also re-cut into 1- and 7-byte writes."""
PYTHON_INTERNALS = re.compile(
    r"Traceback|\b(?:Attribute|Key|Type|Value|Index|Recursion|Assertion|Name|UnicodeDecode|JSONDecode|Runtime)Error\b"
    r"|object has no attribute|NoneType|not subscriptable|<class '|File \".*\", line \d+"
)


@dataclass
class Settled:
    event_types: list[str]
    final: AssistantMessage


async def _run(wire: Wire, fault: Fault, url: str) -> Settled:
    controller = AbortController()
    options = SimpleStreamOptions(
        api_key="fault-key",
        max_retries=fault.retries,
        idle_timeout_ms=fault.idle_timeout_ms,
        signal=controller.signal,
    )
    context = Context(system_prompt="sys", messages=[UserMessage(content="go", timestamp=1)])
    stream = stream_simple(wire.model(url), context, options)
    types: list[str] = []
    async for event in stream:
        types.append(event.type)
        if fault.abort_at_first_delta and event.type == "text_delta":
            controller.abort()
    return Settled(types, await stream.result())


def _rechunked(replies: list[Reply], size: int | None) -> list[Reply]:
    """The replies with their bodies cut in ``size``-byte writes (those whose faults do not
    count chunks: a stall or a reset after the n-th stays as it is)."""
    if size is None:
        return replies
    return [
        replace(reply, chunks=split(b"".join(reply.chunks), size))
        if reply.body is None and reply.stall_after is None and reply.reset_after is None
        else reply
        for reply in replies
    ]


async def settle(wire: Wire, fault: Fault, chunk: int | None = None) -> Settled:
    """Run ``fault`` against ``wire`` through ``stream_simple``; fail on a hang."""
    try:
        if fault.refused:
            async with LoopbackServer([]) as server:
                url = server.url
            return await asyncio.wait_for(_run(wire, fault, url), HANG_SECONDS)
        async with LoopbackServer(_rechunked(fault.replies(wire), chunk)) as server:
            return await asyncio.wait_for(_run(wire, fault, server.url), HANG_SECONDS)
    except TimeoutError:
        record("hang", surface="library", api=wire.api, fault=fault.name)
        pytest.fail(f"hang: {wire.api} / {fault.name} did not settle within {HANG_SECONDS} s")
    finally:
        await close_clients()


def check_settled(settled: Settled, fault: Fault) -> None:
    """The invariants every fault shares (used by the CLI matrix on its JSON events too)."""
    types, final = settled.event_types, settled.final
    terminal = [kind for kind in types if kind in ("done", "error")]
    assert len(terminal) == 1 and types[-1] == terminal[0], types
    if fault.expect == "success":
        assert terminal == ["done"], final.error_message
        assert final.stop_reason == "stop"
        text = (fault.answer or (lambda: ANSWER))()
        assert [(block.type, getattr(block, "text", None)) for block in final.content] == [("text", text)]
        return
    assert terminal == ["error"], types
    assert final.stop_reason == fault.expect, (final.stop_reason, final.error_message)
    message = final.error_message
    assert isinstance(message, str) and message.strip(), message
    assert not PYTHON_INTERNALS.search(message), message


@pytest.mark.parametrize("chunk", CHUNKINGS, ids=lambda size: f"chunk-{size or 'as-sent'}")
@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
@pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.api)
async def test_fault_settles(wire: Wire, fault: Fault, chunk: int | None) -> None:
    if chunk is not None and fault.name == "huge_event":
        pytest.skip("a huge event in tiny writes is the SSE decoder's benchmark, not a fault")
    record("provider_fault", surface="library", api=wire.api, fault=fault.name)
    settled = await settle(wire, fault, chunk)
    check_settled(settled, fault)
    record("provider_fault_settled", surface="library", api=wire.api, fault=fault.name)
