"""Signed-in credentials shared with the real Pi 0.85 (its CLI through ``../shared/oracle/pi-cli``):
Pi uses a file we wrote as it is, we use a file Pi's CLI wrote (after refreshing a token
against the fake authorization server) as it is, the same credential makes the same request
in both, and a refresh Pi is running holds ours off until Pi's token is in the file."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_coding_agent.core.auth import AuthStorage, Credentials, login
from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support.fake_auth_server import FakeAuthServer, ScriptedUser
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.oracle


@pytest.fixture
def provider() -> Iterator[ScriptedProvider]:
    with ScriptedProvider([{"text": "hello from the model"}]) as server:
        yield server


def _now_ms() -> int:
    return int(time.time() * 1000)


async def _sign_in(sandbox: Sandbox, server: FakeAuthServer, provider: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    monkeypatch.setenv(server.override_variable, server.url)
    monkeypatch.setenv("PI_OAUTH_CALLBACK_PORT", "0")
    credentials = Credentials(AuthStorage.load(sandbox.agent_dir / "auth.json"))
    user = ScriptedUser(server)
    credential = await login(credentials, provider, user.callbacks())
    await user.browser_done()
    return credential


async def test_pi_uses_credentials_we_signed_in_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    with FakeAuthServer("anthropic") as anthropic, FakeAuthServer("github-copilot") as copilot:
        claude = await _sign_in(sandbox, anthropic, "anthropic", monkeypatch)
        await _sign_in(sandbox, copilot, "github-copilot", monkeypatch)
    bearer = await asyncio.to_thread(run_pi, sandbox, "auth", "print-bearer-token", "--provider", "anthropic", "--min-expiry", "1h")
    assert (bearer.returncode, bearer.stdout) == (0, f"{claude['access']}\n"), bearer.stderr
    check = await asyncio.to_thread(run_pi, sandbox, "auth", "check", "--provider", "github-copilot", "--json")
    assert json.loads(check.stdout) == {"status": "ready", "provider": "github-copilot", "authType": "oauth"}
    # The account's model list stored at sign-in limits Pi's list as it limits ours.
    theirs = await asyncio.to_thread(run_pi, sandbox, "--list-models", "github-copilot")
    ours = await asyncio.to_thread(run_ours, sandbox, "--list-models", "github-copilot")
    assert theirs.stdout == ours.stdout and len(ours.stdout.splitlines()) == 3


def _kimi_auth(sandbox: Sandbox, credential: dict[str, object]) -> Path:
    path = sandbox.agent_dir / "auth.json"
    path.write_text(json.dumps({"kimi-coding": credential}, indent=2), encoding="utf-8")
    path.chmod(0o600)
    return path


def test_a_file_pi_refreshed_is_used_as_it_is(tmp_path: Path, provider: ScriptedProvider) -> None:
    sandbox = Sandbox.create(tmp_path, provider.base_url)
    (sandbox.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"kimi-coding": {"baseUrl": provider.base_url}}}), encoding="utf-8"
    )
    with FakeAuthServer("kimi-coding") as kimi:
        kimi.refresh_tokens["rt-ours"] = True
        path = _kimi_auth(sandbox, {"type": "oauth", "access": "at-ours", "refresh": "rt-ours", "expires": 0})
        env = {"KIMI_CODE_OAUTH_HOST": kimi.url}
        pis = run_pi(sandbox, "auth", "print-bearer-token", "--provider", "kimi-coding", **env)
        assert pis.returncode == 0, pis.stderr
        written_by_pi = path.read_text(encoding="utf-8")
        token = json.loads(written_by_pi)["kimi-coding"]["access"]
        assert pis.stdout == f"{token}\n" and token == kimi.access_tokens[-1]
        assert [r.body["refresh_token"] for r in kimi.token_requests("refresh_token")] == ["rt-ours"]

        ours = run_ours(sandbox, "auth", "print-bearer-token", "--provider", "kimi-coding", **env)
        run = run_ours(sandbox, "--model", "kimi-coding/kimi-for-coding", "-p", "hi", **env)
        assert len(kimi.token_requests("refresh_token")) == 1  # Pi's token was used, not renewed
    assert ours.stdout == f"{token}\n"
    assert run.returncode == 0, run.stderr
    assert provider.requests[0]["headers"]["authorization"] == f"Bearer {token}"
    assert path.read_text(encoding="utf-8") == written_by_pi  # read, never rewritten


def _request(run: Completed, provider: ScriptedProvider) -> dict[str, object]:
    assert run.returncode == 0, run.stderr
    return provider.requests[-1]


@pytest.mark.parametrize(
    ("model", "credential"),
    [
        ("anthropic/claude-sonnet-4-5", {"type": "oauth", "refresh": "r", "access": "sk-ant-oat01-shared", "expires": 0}),
        ("kimi-coding/kimi-for-coding", {"type": "oauth", "access": "kimi-shared", "refresh": "r", "expires": 0}),
    ],
)
def test_the_same_credential_makes_the_same_request(
    tmp_path: Path, provider: ScriptedProvider, model: str, credential: dict[str, object]
) -> None:
    sandbox = Sandbox.create(tmp_path, provider.base_url)
    name = model.split("/", 1)[0]
    entry: dict[str, object] = {"baseUrl": provider.base_url}
    if name == "kimi-coding":  # Pi 1.6 moved it to Chat Completions: both Pis get 0.85's definition
        entry |= {"api": "anthropic-messages", "models": [{"id": "kimi-for-coding", "reasoning": True}]}
    (sandbox.agent_dir / "models.json").write_text(json.dumps({"providers": {name: entry}}), encoding="utf-8")
    credential = {**credential, "expires": _now_ms() + 3_600_000}
    (sandbox.agent_dir / "auth.json").write_text(json.dumps({name: credential}), encoding="utf-8")
    (sandbox.agent_dir / "auth.json").chmod(0o600)
    theirs = _request(run_pi(sandbox, "--model", model, "-p", "hi"), provider)
    ours = _request(run_ours(sandbox, "--model", model, "-p", "hi"), provider)
    volatile = {"content-length", "host", "user-agent", "connection", "accept-encoding", "x-stainless-arch",
                "x-stainless-os", "x-stainless-runtime", "x-stainless-runtime-version", "x-stainless-package-version",
                "x-stainless-retry-count", "x-stainless-timeout", "x-stainless-lang", "accept-language", "sec-fetch-mode"}
    their_headers = {k: v for k, v in theirs["headers"].items() if k not in volatile}  # type: ignore[attr-defined]
    our_headers = {k: v for k, v in ours["headers"].items() if k not in volatile}  # type: ignore[attr-defined]
    assert our_headers == their_headers
    assert ("x-api-key" in our_headers) is False
    if name == "anthropic":  # the subscription token's identity block comes first in both
        assert ours["body"]["system"][0] == theirs["body"]["system"][0]  # type: ignore[index]
        assert theirs["body"]["system"][0]["text"].startswith("You are Claude Code")  # type: ignore[index]
    assert ours["body"]["model"] == theirs["body"]["model"]  # type: ignore[index]
    our_agent, their_agent = ours["headers"]["user-agent"], theirs["headers"]["user-agent"]  # type: ignore[index]
    if their_agent.startswith("pi ("):  # Pi 0.85's own; ours has Pi 1.6's form (``pi/1.6.0 (...)``)
        assert our_agent.startswith("pi/1.6.0 (")
    else:  # a subscription's client name (``claude-cli/...``)
        assert our_agent.split("/")[0] == their_agent.split("/")[0]


async def test_our_refresh_waits_for_pis_and_uses_its_token(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    with FakeAuthServer("kimi-coding") as kimi:
        kimi.refresh_tokens["rt-shared"] = True
        kimi.token_gate = threading.Event()
        path = _kimi_auth(sandbox, {"type": "oauth", "access": "at-old", "refresh": "rt-shared", "expires": 0})
        env = {"KIMI_CODE_OAUTH_HOST": kimi.url}
        pis = asyncio.ensure_future(
            asyncio.to_thread(run_pi, sandbox, "auth", "print-bearer-token", "--provider", "kimi-coding", **env)
        )
        deadline = time.monotonic() + 60
        while not kimi.token_requests("refresh_token"):  # Pi holds the lock and waits for the server
            assert time.monotonic() < deadline and not pis.done(), "Pi never asked for a refresh"
            await asyncio.sleep(0.05)
        import os

        os.environ["KIMI_CODE_OAUTH_HOST"] = kimi.url
        try:
            credentials = Credentials(AuthStorage.load(path))
            ours = asyncio.ensure_future(credentials.refresh("kimi-coding"))
            await asyncio.sleep(1.0)
            assert not ours.done() and len(kimi.token_requests("refresh_token")) == 1
            kimi.token_gate.set()
            done = await pis
            await asyncio.wait_for(ours, 30)
        finally:
            del os.environ["KIMI_CODE_OAUTH_HOST"]
    assert done.returncode == 0, done.stderr
    assert len(kimi.token_requests("refresh_token")) == 1
    assert credentials.request_auth("kimi-coding").headers == {"Authorization": f"Bearer {done.stdout.strip()}"}  # type: ignore[union-attr]


def test_pis_own_sign_in_writes_a_file_we_use(tmp_path: Path, provider: ScriptedProvider) -> None:
    """Pi's ``/login`` (its terminal UI, in tmux) signs in to Kimi against the fake server
    (Pi reads ``KIMI_CODE_OAUTH_HOST``); our ``pi`` then uses the file Pi wrote, untouched."""
    from tests.pi_coding_agent.app.interactive._tmux import TmuxPane
    from tests.support import oracle

    folder = oracle.require_live_oracle()
    sandbox = Sandbox.create(tmp_path, provider.base_url)
    (sandbox.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"kimi-coding": {"baseUrl": provider.base_url}}}), encoding="utf-8"
    )
    with FakeAuthServer("kimi-coding") as kimi:
        env = {**sandbox.env(KIMI_CODE_OAUTH_HOST=kimi.url), "TERM": "xterm-256color"}
        pane = TmuxPane([str(folder / "pi-cli")], sandbox.work, env)
        try:
            pane.wait_for("/login", limit=90, everywhere=True)
            pane.type("/login kimi-coding")
            pane.wait_for("→ kimi-coding")
            pane.send("Enter")  # completes the provider's name; the command does not run yet
            pane.wait_until_gone("→ kimi-coding")
            pane.send("Enter")
            pane.wait_for("Sign in with Kimi Code", limit=30)
            pane.send("Enter")
            shown = pane.wait_for("Enter code:", limit=30)
            user_code = shown.split("Enter code:", 1)[1].split()[0]
            kimi.approve(user_code)
            pane.wait_for("Logged in to Kimi For Coding", limit=60, everywhere=True)
        finally:
            pane._run("kill-server")
        path = sandbox.agent_dir / "auth.json"
        written_by_pi = path.read_text(encoding="utf-8")
        token = json.loads(written_by_pi)["kimi-coding"]["access"]
        assert token == kimi.access_tokens[-1]
        env_ours = {"KIMI_CODE_OAUTH_HOST": kimi.url}
        printed = run_ours(sandbox, "auth", "print-bearer-token", "--provider", "kimi-coding", **env_ours)
        run = run_ours(sandbox, "--model", "kimi-coding/kimi-for-coding", "-p", "hi", **env_ours)
        assert len(kimi.token_requests("refresh_token")) == 0
    assert printed.stdout == f"{token}\n", printed.stderr
    assert run.returncode == 0, run.stderr
    assert provider.requests[-1]["headers"]["authorization"] == f"Bearer {token}"
    assert path.read_text(encoding="utf-8") == written_by_pi
