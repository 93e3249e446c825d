"""pi-messages against the real Pi 0.85: each case of ``tests/conformance/cases/wire/pi-messages``
(recorded by ``tools/gen_wire_cases.py``, the request redirected to a loopback server) replayed
through our adapter: the request (``{model, context, options}``, ``?debug=1``, headers), the
message rebuilt from the backend's events, and Pi's errors (error events, a stream without a
terminal event, bad JSON, HTTP errors with their diagnostic, no key).

Two documented differences (docs/providers/pi-messages.md) are applied to Pi's answer, and each
must really occur in some case so the list cannot go stale:

- Pi passes a backend event's extra fields through (``contentSignature`` on ``*_end``,
  ``id`` / ``toolName`` on ``toolcall_start``); our events are typed and carry only Pi's
  documented fields (the values land in the message's blocks either way).
- Pi's diagnostic error (``pi_messages_response_failure``) carries the JavaScript ``stack``;
  ours has the same name, message and code without a stack.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from pi_ai.api.pi_messages import PiMessagesOptions
from tests.support import wire_cases

API = "pi-messages"
NAMES = wire_cases.case_names(API)
PASSED_THROUGH = {
    "text_end": {"contentSignature"},
    "thinking_end": {"contentSignature"},
    "toolcall_start": {"id", "toolName"},
}
applied: set[str] = set()


def _as_we_type_it(pi: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(pi)
    for event in out["events"]:
        for key in PASSED_THROUGH.get(event["type"], ()):
            if event.pop(key, None) is not None:
                applied.add("event fields")
        message = event.get("error") or event.get("message")
        for diagnostic in (message or {}).get("diagnostics") or []:
            if (diagnostic.get("error") or {}).pop("stack", None) is not None:
                applied.add("diagnostic error stack")
    for diagnostic in out["final"].get("diagnostics") or []:
        (diagnostic.get("error") or {}).pop("stack", None)
    return out


def test_cases_are_recorded() -> None:
    assert len(NAMES) >= 10


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_pi(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case, pi = wire_cases.load(API, name)
    wire_cases.apply_environment(case, tmp_path, monkeypatch)
    ours = wire_cases.run(case, PiMessagesOptions)
    expected = _as_we_type_it(pi)
    assert [wire_cases.comparable_request(r) for r in ours["requests"]] == [
        wire_cases.comparable_request(r) for r in expected["requests"]
    ]
    assert ours["events"] == expected["events"]
    assert ours["final"] == expected["final"]


def test_both_differences_occur() -> None:
    applied.clear()
    for name in NAMES:
        _as_we_type_it(wire_cases.load(API, name)[1])
    assert applied == {"event fields", "diagnostic error stack"}


def test_a_message_pi_wrote_with_a_diagnostic_error_reads_and_writes_back_unchanged() -> None:
    """A session file holds Pi's messages as they are: the diagnostic's error object (its stack
    included) must decode and encode back to the same JSON."""
    import json

    from pi_ai._codec import encode, message_from_dict

    seen = 0
    for name in NAMES:
        final = wire_cases.load(API, name)[1]["final"]
        if any(diagnostic.get("error") for diagnostic in final.get("diagnostics") or []):
            seen += 1
            assert json.loads(encode(message_from_dict(final))) == final
    assert seen >= 2
