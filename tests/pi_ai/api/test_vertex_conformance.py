"""google-vertex with Application Default Credentials against the real Pi 0.85: each case of
``tests/conformance/cases/wire/google-vertex`` (recorded by ``tools/gen_wire_cases.py``
through Pi's google-auth-library and ``@google/genai``, every request redirected to a
loopback server) replayed through our adapter: the token refresh (form body, then the bearer
token and quota project on the Vertex request), the regional, global and multi-region URLs,
the missing project / location errors, a revoked refresh token and an HTTP error; and a
service-account key, which goes through google-auth (the ``google`` extra): its signed JWT is
traded for a token as Pi's google-auth-library trades its own.

The API-key (express mode) cases run with every other API's in
``tests/conformance/test_oracle_cases.py`` (``payload`` / ``parse-stream``, ``vertex_*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from pi_ai.api import _google_auth
from pi_ai.api.google_vertex import VertexOptions
from tests.support import wire_cases

API = "google-vertex"
NAMES = wire_cases.case_names(API)


def test_cases_are_recorded() -> None:
    assert len(NAMES) >= 8


JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def _jwt_grant(request: dict[str, Any], key_file: str) -> dict[str, Any]:
    """A service account's token request as far as Pi and google-auth must agree: the grant, the
    JWT's algorithm and claims (its times as a lifetime), and that the key file's key signed it.
    The JWT header's ``typ`` / ``kid`` and the HTTP headers are each library's own
    (docs/providers/google-vertex.md)."""
    import base64
    import json
    from urllib.parse import parse_qs

    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    def part(text: str) -> bytes:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    form = {name: values[0] for name, values in parse_qs(request["bodyText"]).items()}
    header, claims, signature = form["assertion"].split(".")
    payload = json.loads(part(claims))
    key = serialization.load_pem_private_key(json.loads(key_file)["private_key"].encode(), password=None)
    key.public_key().verify(  # type: ignore[union-attr, call-arg]
        part(signature), f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256()  # type: ignore[arg-type]
    )
    lifetime = payload.pop("exp") - payload.pop("iat")
    return {
        "method": request["method"],
        "url": request["url"],
        "grant_type": form["grant_type"],
        "alg": json.loads(part(header))["alg"],
        "claims": payload,
        "lifetime": lifetime,
    }


def _comparable(request: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    if f"grant_type={JWT_BEARER}" in unquote(request["bodyText"]):
        return _jwt_grant(request, case["files"]["adc.json"])
    return wire_cases.comparable_request(request)


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_pi(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case, pi = wire_cases.load(API, name)
    wire_cases.apply_environment(case, tmp_path, monkeypatch)
    monkeypatch.setattr(_google_auth, "_cache", {})  # each case refreshes its own token
    ours = wire_cases.run(case, VertexOptions)
    assert [_comparable(r, case) for r in ours["requests"]] == [_comparable(r, case) for r in pi["requests"]]
    assert ours["events"] == pi["events"]
    assert ours["final"] == pi["final"]
