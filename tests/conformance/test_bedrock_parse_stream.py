"""``tools/conformance.py parse-stream`` runs Bedrock too: the event-stream body of each recorded
Bedrock wire case (one 200 reply; ``bodyBase64``, binary frames) through the conformance tool,
with both ``fn``s, gives the events and final message Pi 0.85 gave for it
(``tests/conformance/cases/wire/bedrock-converse-stream``, recorded through Pi's AWS SDK)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import pi16, wire_cases
from tests.support.oracle import conformance_in_process, run_conformance

API = "bedrock-converse-stream"


def _streamed_cases() -> list[str]:
    names = []
    for name in wire_cases.case_names(API):
        case, _ = wire_cases.load(API, name)
        replies = case.get("replies") or []
        if len(replies) == 1 and replies[0].get("status") == 200 and "bodyBase64" in replies[0]:
            names.append(name)
    return names


NAMES = _streamed_cases()


def _parse_stream_request(case: dict[str, Any]) -> dict[str, Any]:
    reply = case["replies"][0]
    request = {
        "api": API,
        "model": case["model"],
        "context": case["context"],
        "fn": case.get("fn") or "streamSimple",
        "options": case.get("options") or {},
        "bodyBase64": reply["bodyBase64"],
        "contentType": reply["headers"]["content-type"],
        "responseHeaders": {
            name: value for name, value in reply["headers"].items() if name != "content-type"
        },
    }
    if reply.get("chunkSize"):
        request["chunkSize"] = reply["chunkSize"]
    return request


def test_the_streamed_cases_include_a_midway_exception() -> None:
    loaded = {name: wire_cases.load(API, name)[0] for name in NAMES}
    assert len(loaded) >= 10
    assert "bedrock_throttling_exception_mid_stream" in loaded  # "Part" streamed, then the exception


@pytest.mark.parametrize("fn", ["streamSimple", "stream"])
@pytest.mark.parametrize("name", NAMES)
def test_parse_stream_gives_pis_events(
    name: str, fn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, pi = wire_cases.load(API, name)
    if case.get("options"):
        fn = case.get("fn") or "streamSimple"  # options are written for one fn
    wire_cases.apply_environment(case, tmp_path, monkeypatch)
    code, ours = conformance_in_process("parse-stream", {**_parse_stream_request(case), "fn": fn})
    assert code == 0, ours
    ours = pi16.as_pi085(ours)  # the recorded answers are Pi 0.85's: no message fields of 1.6
    assert ours["events"] == pi["events"]
    assert ours["final"] == pi["final"]


def test_the_command_line_reads_a_binary_body(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case, pi = wire_cases.load(API, "bedrock_thinking_budget_tools")
    wire_cases.apply_environment(case, tmp_path, monkeypatch)
    code, ours = run_conformance("parse-stream", {**_parse_stream_request(case), "fn": "stream"})
    assert code == 0, ours
    ours = pi16.as_pi085(ours)
    assert (ours["events"], ours["final"]) == (pi["events"], pi["final"])


def test_a_body_that_is_not_base64_is_refused() -> None:
    code, answer = conformance_in_process(
        "parse-stream", {"api": API, "model": "amazon-bedrock/amazon.nova-pro-v1:0", "bodyBase64": "**"}
    )
    assert code == 1 and answer["error"]["message"] == "input.bodyBase64 is not base64"
