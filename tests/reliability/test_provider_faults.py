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
from dataclasses import dataclass

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
from tests.reliability.faults import ANSWER, FAULTS, Fault
from tests.reliability.wire import WIRES, Wire
from tests.support.loopback import LoopbackServer

HANG_SECONDS = 60
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


async def settle(wire: Wire, fault: Fault) -> Settled:
    """Run ``fault`` against ``wire`` through ``stream_simple``; fail on a hang."""
    try:
        if fault.refused:
            async with LoopbackServer([]) as server:
                url = server.url
            return await asyncio.wait_for(_run(wire, fault, url), HANG_SECONDS)
        async with LoopbackServer(fault.replies(wire)) as server:
            return await asyncio.wait_for(_run(wire, fault, server.url), HANG_SECONDS)
    except TimeoutError:
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


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
@pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.api)
async def test_fault_settles(wire: Wire, fault: Fault) -> None:
    settled = await settle(wire, fault)
    check_settled(settled, fault)
