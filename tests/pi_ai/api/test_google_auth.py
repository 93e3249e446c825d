"""Application Default Credentials for Vertex: gcloud's well-known file, the token kept until
shortly before it expires, clear errors when a credential kind needs the google extra; and
through to a Vertex request on 127.0.0.1: a service-account key through google-auth (the
``google`` extra; the JWT it signs is checked and traded for a token at the key file's
``token_uri``, ours), a user's refresh token through our own refresh."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_ai.api import _google_auth
from pi_ai.api._google_auth import AdcError, access_token
from pi_ai.api._http import redirect_requests
from tests.support.loopback import LoopbackServer, Recorded, Reply

USER = {"type": "authorized_user", "client_id": "c", "client_secret": "s", "refresh_token": "r"}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_google_auth, "_cache", {})
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "gcloud"))


async def test_well_known_file_and_token_reuse(tmp_path: Path) -> None:
    (tmp_path / "gcloud").mkdir()
    (tmp_path / "gcloud" / "application_default_credentials.json").write_text(json.dumps(USER))
    token = Reply.json(200, {"access_token": "tok-1", "expires_in": 3600})
    async with LoopbackServer(
        [token, Reply.json(200, {"access_token": "tok-2", "expires_in": 3600})]
    ) as server:
        with redirect_requests(server.url):
            first = await access_token(None)
            second = await access_token(None)
    assert first.token == second.token == "tok-1"
    assert len(server.requests) == 1
    assert server.requests[0].body == b"refresh_token=r&client_id=c&client_secret=s&grant_type=refresh_token"


async def test_a_token_near_expiry_is_refreshed(tmp_path: Path) -> None:
    path = tmp_path / "adc.json"
    path.write_text(json.dumps(USER))
    env = {"GOOGLE_APPLICATION_CREDENTIALS": str(path)}
    replies = [
        Reply.json(200, {"access_token": "short", "expires_in": 60}),
        Reply.json(200, {"access_token": "next", "expires_in": 3600}),
    ]
    async with LoopbackServer(replies) as server:
        with redirect_requests(server.url):
            assert (await access_token(env)).token == "short"
            assert (await access_token(env)).token == "next"


async def test_other_kinds_need_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google", None)
    path = tmp_path / "sa.json"
    path.write_text(json.dumps({"type": "service_account", "client_email": "x@y", "private_key": "k"}))
    with pytest.raises(AdcError, match=r"need google-auth: pip install 'pi-for-python\[google\]'"):
        await access_token({"GOOGLE_APPLICATION_CREDENTIALS": str(path)})
    with pytest.raises(AdcError, match="Could not load the default credentials"):
        await access_token(None)


async def test_a_missing_or_broken_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(AdcError, match="no such file or directory"):
        await access_token({"GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "nope.json")})
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(AdcError, match=r"Could not read Google credentials .*broken\.json"):
        await access_token({"GOOGLE_APPLICATION_CREDENTIALS": str(broken)})


# --------------------------------------------------------------------------- through to Vertex


def _key_file(tmp_path: Path, token_uri: str) -> tuple[Path, Any]:
    """A service-account key file whose ``token_uri`` is ours, and its RSA key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    info = {
        "type": "service_account",
        "project_id": "sa-project",
        "private_key_id": "key-1",
        "private_key": pem,
        "client_email": "robot@sa-project.iam.gserviceaccount.com",
        "token_uri": token_uri,
    }
    path = tmp_path / "sa.json"
    path.write_text(json.dumps(info))
    return path, key


def _verified_claims(form: dict[str, str], key: Any) -> dict[str, Any]:
    """The JWT's claims, once its RS256 signature checks out with ``key``'s public half."""
    import base64

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    def part(text: str) -> bytes:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    header, claims, signature = form["assertion"].split(".")
    assert json.loads(part(header))["alg"] == "RS256"
    key.public_key().verify(part(signature), f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    return dict(json.loads(part(claims)))


def _vertex_answer(text: str) -> Reply:
    chunk = {"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP"}]}
    return Reply(200, {"content-type": "text/event-stream"}, body=f"data: {json.dumps(chunk)}\r\n\r\n".encode())


async def _ask_vertex(base_url: str, env: dict[str, str]) -> Any:
    from msgspec.structs import replace

    from pi_ai import Context, UserMessage, stream
    from pi_ai.api.google_vertex import VertexOptions
    from pi_ai.models import get_model

    model = get_model("google-vertex", "gemini-2.5-flash")
    assert model is not None
    context = Context(messages=[UserMessage(content="hi", timestamp=0)])
    options = VertexOptions(env={"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1", **env})
    return await stream(replace(model, base_url=f"{base_url}/v1"), context, options).result()


async def test_a_service_account_key_is_traded_for_a_token_used_on_vertex(tmp_path: Path) -> None:
    """google-auth signs a JWT with the key and posts it to the file's ``token_uri`` (ours);
    the token it gets back is the Vertex request's bearer, and is kept for the next request."""
    from urllib.parse import parse_qs

    claims: list[dict[str, Any]] = []

    def respond(recorded: Recorded) -> Reply:
        if recorded.path == "/token":
            form = {name: values[0] for name, values in parse_qs(recorded.body.decode()).items()}
            assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
            claims.append(_verified_claims(form, key))
            return Reply.json(200, {"access_token": "sa-token", "expires_in": 3600, "token_type": "Bearer"})
        if recorded.headers.get("authorization") != "Bearer sa-token":
            return Reply.json(401, {"error": {"code": 401, "message": "no token", "status": "UNAUTHENTICATED"}})
        return _vertex_answer("from a service account")

    async with LoopbackServer(respond=respond) as server:
        token_uri = f"{server.url}/token"
        path, key = _key_file(tmp_path, token_uri)
        env = {"GOOGLE_APPLICATION_CREDENTIALS": str(path)}
        first = await _ask_vertex(server.url, env)
        second = await _ask_vertex(server.url, env)
    for final in (first, second):
        assert final.stop_reason == "stop", final.error_message
        assert final.content[0].text == "from a service account"
    (claim,) = claims  # the second request reused the token
    assert claim["iss"] == "robot@sa-project.iam.gserviceaccount.com"
    assert claim["aud"] == "https://oauth2.googleapis.com/token"  # as Pi's, wherever it is posted
    assert claim["scope"] == "https://www.googleapis.com/auth/cloud-platform"
    assert claim["exp"] - claim["iat"] == 3600
    vertex = [r for r in server.requests if r.path != "/token"]
    # A custom base URL is the collection root as it is (docs/providers/google-vertex.md).
    assert [r.path for r in vertex] == ["/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"] * 2
    assert all("x-goog-user-project" not in r.headers for r in vertex)  # no quota project in the key


async def test_a_refused_service_account_key_is_one_line(tmp_path: Path) -> None:
    refused = Reply.json(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
    async with LoopbackServer([refused]) as server:
        path, _ = _key_file(tmp_path, f"{server.url}/token")
        final = await _ask_vertex(server.url, {"GOOGLE_APPLICATION_CREDENTIALS": str(path)})
    assert final.stop_reason == "error"
    assert final.error_message == "invalid_grant: Invalid JWT Signature."  # Pi's words (a recorded case)
    assert [r.path for r in server.requests] == ["/token"]


async def test_a_malformed_service_account_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "sa.json"
    path.write_text(json.dumps({"type": "service_account", "client_email": "x@y", "private_key": "not a key"}))
    with pytest.raises(AdcError) as caught:
        await access_token({"GOOGLE_APPLICATION_CREDENTIALS": str(path)})
    assert "\n" not in str(caught.value) and str(caught.value)


async def test_a_user_refresh_token_reaches_vertex_as_the_bearer(tmp_path: Path) -> None:
    """``authorized_user`` (gcloud's file): our own refresh, then the Vertex request with the
    token and the file's quota project."""
    path = tmp_path / "adc.json"
    path.write_text(json.dumps({**USER, "quota_project_id": "billing-project"}))
    replies = [Reply.json(200, {"access_token": "user-token", "expires_in": 3600}), _vertex_answer("hello")]
    async with LoopbackServer(replies) as server:
        with redirect_requests(server.url):
            final = await _ask_vertex("https://us-central1-aiplatform.googleapis.com", {"GOOGLE_APPLICATION_CREDENTIALS": str(path)})
    assert final.stop_reason == "stop", final.error_message
    token, vertex = server.requests
    assert token.path == "/token" and b"grant_type=refresh_token" in token.body
    assert vertex.headers["authorization"] == "Bearer user-token"
    assert vertex.headers["x-goog-user-project"] == "billing-project"
