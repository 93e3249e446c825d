"""Live differential check: a well-formed response of each wire API with one value replaced by
another JSON type (or removed) must be read by our adapter as the real Pi 0.85 reads it, up to
the differences docs/providers/streams.md documents (``comparable``).

A few examples per API and run (each costs a Node process); ``PI_DIFF_EXAMPLES`` for more. The
generator ran for several hundred examples per API while the readers were written; every rule
it found has its own recorded case (``tools/gen_stream_quirk_cases.py``).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support import pi16
from tests.support.oracle import REPO, conformance_in_process, require_live_oracle, run_oracle
from tests.support.stream_shapes import APIS, REMOVE, WRONG_TYPES, base, comparable, paths, request, spoiled

sys.path.insert(0, str(REPO / "tools"))
from conformance_cmds._llm import normalize

pytestmark = pytest.mark.oracle

LIVE = settings(
    max_examples=int(os.environ.get("PI_DIFF_EXAMPLES", "3")),
    deadline=None,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def one_value_spoiled(draw: st.DrawFn, api: str) -> list[Any]:
    events: list[Any] = base(api)
    index = draw(st.integers(0, len(events) - 1))
    path = draw(st.sampled_from([(), *paths(events[index])]))
    replacement = draw(st.sampled_from([*WRONG_TYPES, *([REMOVE] if path else [])]))
    events[index] = spoiled(events[index], path, replacement)
    return events


@pytest.mark.parametrize("api", APIS)
def test_spoiled_value_reads_as_in_pi(api: str) -> None:
    require_live_oracle()

    @LIVE
    @given(one_value_spoiled(api))
    def check(events: list[Any]) -> None:
        case = request(api, events)
        pi_code, pi = run_oracle("parse-stream", case)
        our_code, ours = conformance_in_process("parse-stream", case)
        ours = pi16.as_pi085(ours)  # the oracle is Pi 0.85's: no message fields of 1.6
        assert (our_code, normalize(ours)) == (pi_code, normalize(comparable(pi, ours)))

    check()
