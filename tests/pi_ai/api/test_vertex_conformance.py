"""google-vertex with Application Default Credentials against the real Pi 0.85: each case of
``tests/conformance/cases/wire/google-vertex`` (recorded by ``tools/gen_wire_cases.py``
through Pi's google-auth-library and ``@google/genai``, every request redirected to a
loopback server) replayed through our adapter: the token refresh (form body, then the bearer
token and quota project on the Vertex request), the regional, global and multi-region URLs,
the missing project / location errors, a revoked refresh token and an HTTP error.

The API-key (express mode) cases run with every other API's in
``tests/conformance/test_oracle_cases.py`` (``payload`` / ``parse-stream``, ``vertex_*``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_ai.api import _google_auth
from pi_ai.api.google_vertex import VertexOptions
from tests.support import wire_cases

API = "google-vertex"
NAMES = wire_cases.case_names(API)


def test_cases_are_recorded() -> None:
    assert len(NAMES) >= 7


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_pi(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case, pi = wire_cases.load(API, name)
    wire_cases.apply_environment(case, tmp_path, monkeypatch)
    monkeypatch.setattr(_google_auth, "_cache", {})  # each case refreshes its own token
    ours = wire_cases.run(case, VertexOptions)
    assert [wire_cases.comparable_request(r) for r in ours["requests"]] == [
        wire_cases.comparable_request(r) for r in pi["requests"]
    ]
    assert ours["events"] == pi["events"]
    assert ours["final"] == pi["final"]
