"""Application Default Credentials for Vertex: gcloud's well-known file, the token kept until
shortly before it expires, and clear errors when a credential kind needs the google extra."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pi_ai.api import _google_auth
from pi_ai.api._google_auth import AdcError, access_token
from pi_ai.api._http import redirect_requests
from tests.support.loopback import LoopbackServer, Reply

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
