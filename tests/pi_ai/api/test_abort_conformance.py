"""Abort mid-stream against the real Pi 0.85: each case of ``tests/conformance/cases/wire/aborts``
(recorded by ``tools/gen_wire_cases.py`` through ``tools/pi_wire_driver.mjs``: the answer
stops after two text deltas, the connection stays open, the caller aborts after the first)
replayed through our adapter: the same events and the same final message, its error text
included, for Bedrock, Vertex (ADC), Mistral, Codex over SSE and pi-messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_ai import StreamOptions
from pi_ai.api import _google_auth
from pi_ai.api.bedrock_converse_stream import BedrockOptions
from pi_ai.api.google_vertex import VertexOptions
from pi_ai.api.openai_codex_responses import OpenAICodexResponsesOptions
from pi_ai.api.pi_messages import PiMessagesOptions
from tests.support import wire_cases

API = "aborts"
NAMES = wire_cases.case_names(API)
OPTIONS = {
    "amazon-bedrock": BedrockOptions,
    "google-vertex": VertexOptions,
    "mistral": StreamOptions,
    "openai-codex": OpenAICodexResponsesOptions,
    "radius": PiMessagesOptions,
}


def _provider(case: dict) -> str:  # type: ignore[type-arg]
    model = case["model"]
    return str(model["ref"].split("/")[0] if "ref" in model else model["provider"])


def test_cases_are_recorded() -> None:
    assert {_provider(wire_cases.load(API, name)[0]) for name in NAMES} == set(OPTIONS)


@pytest.mark.parametrize("name", NAMES)
def test_abort_matches_pi(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case, pi = wire_cases.load(API, name)
    wire_cases.apply_environment(case, tmp_path, monkeypatch)
    monkeypatch.setattr(_google_auth, "_cache", {})
    ours = wire_cases.run(case, OPTIONS[_provider(case)])
    assert ours["events"] == pi["events"]
    assert ours["final"] == pi["final"]
