"""Signed-in providers through the real ``pi`` command: a one-shot run refreshes a token about
to expire and sends what the credential implies; a revoked token fails in one line; ``pi
auth`` prints and checks OAuth credentials as Pi's does."""

from __future__ import annotations

import concurrent.futures
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours
from tests.support.fake_auth_server import FakeAuthServer
from tests.support.scripted_provider import ScriptedProvider


@pytest.fixture
def provider() -> Iterator[ScriptedProvider]:
    with ScriptedProvider([{"text": "hello from the model"}]) as server:
        yield server


def _write_auth(sandbox: Sandbox, data: dict[str, object]) -> Path:
    path = sandbox.agent_dir / "auth.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    path.chmod(0o600)
    return path


def _now_ms() -> int:
    return int(time.time() * 1000)


def _anthropic_models_json(sandbox: Sandbox, base_url: str) -> None:
    (sandbox.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"anthropic": {"baseUrl": base_url}}}), encoding="utf-8"
    )


def _seed(server: FakeAuthServer, refresh: str) -> None:
    """A refresh token the fake server accepts (as if issued by an earlier sign-in)."""
    server.refresh_tokens[refresh] = True


def test_expiring_anthropic_token_is_refreshed_before_the_request(tmp_path: Path, provider: ScriptedProvider) -> None:
    sandbox = Sandbox.create(tmp_path, provider.base_url)
    _anthropic_models_json(sandbox, provider.base_url)
    with FakeAuthServer("anthropic") as auth:
        _seed(auth, "sk-ant-ort01-seed")
        path = _write_auth(
            sandbox,
            {"anthropic": {"type": "oauth", "refresh": "sk-ant-ort01-seed", "access": "sk-ant-oat01-old",
                           "expires": _now_ms() + 60_000}},
        )
        done = run_ours(
            sandbox, "--model", "anthropic/claude-sonnet-4-5", "-p", "hi", **{auth.override_variable: auth.url}
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello from the model"
    stored = json.loads(path.read_text(encoding="utf-8"))["anthropic"]
    assert stored["access"] == auth.access_tokens[-1] != "sk-ant-oat01-old"
    request = provider.requests[0]
    # A Claude subscription token: bearer auth with Claude Code's identity, as Pi sends it.
    assert request["headers"]["authorization"] == f"Bearer {stored['access']}"
    assert "x-api-key" not in request["headers"]
    assert "oauth-2025-04-20" in request["headers"]["anthropic-beta"]
    assert request["headers"]["x-app"] == "cli"
    assert request["body"]["system"][0]["text"] == "You are Claude Code, Anthropic's official CLI for Claude."


def test_revoked_token_fails_the_run_in_one_line(tmp_path: Path, provider: ScriptedProvider) -> None:
    sandbox = Sandbox.create(tmp_path, provider.base_url)
    _anthropic_models_json(sandbox, provider.base_url)
    credential = {"type": "oauth", "refresh": "sk-ant-ort01-revoked", "access": "sk-ant-oat01-old", "expires": 0}
    with FakeAuthServer("anthropic") as auth:
        path = _write_auth(sandbox, {"anthropic": credential})
        done = run_ours(
            sandbox, "--model", "anthropic/claude-sonnet-4-5", "-p", "hi", **{auth.override_variable: auth.url}
        )
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("OAuth refresh failed for anthropic: "), done.stderr
    assert "invalid_grant" in lines[0] and "Traceback" not in done.stderr
    assert not provider.requests
    assert json.loads(path.read_text(encoding="utf-8")) == {"anthropic": credential}


def test_copilot_requests_go_to_the_tokens_endpoint_with_copilot_headers(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    with FakeAuthServer("github-copilot") as copilot:
        _write_auth(
            sandbox,
            {"github-copilot": {"type": "oauth", "refresh": "gho_seed",
                                "access": "tid=1;exp=1;proxy-ep=proxy.individual.githubcopilot.com;",
                                "expires": _now_ms() + 3_600_000, "availableModelIds": ["gpt-5.6-sol", "claude-sonnet-4.6"]}},
        )
        env = {copilot.override_variable: copilot.url}
        listed = run_ours(sandbox, "--list-models", "github-copilot", **env)
        done = run_ours(sandbox, "--model", "github-copilot/claude-sonnet-4.6", "-p", "hi", **env)
    # Only the models the account has.
    assert [line.split()[1] for line in listed.stdout.splitlines()[1:]] == ["claude-sonnet-4.6", "gpt-5.6-sol"]
    assert done.returncode == 0, done.stderr
    chat = next(r for r in copilot.requests if r.method == "POST" and r.path == "/v1/messages")
    assert chat.headers["authorization"] == "Bearer tid=1;exp=1;proxy-ep=proxy.individual.githubcopilot.com;"
    assert chat.headers["copilot-integration-id"] == "vscode-chat"
    assert chat.headers["editor-version"].startswith("vscode/")


def test_pi_auth_with_oauth_credentials(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    with FakeAuthServer("kimi-coding") as kimi:
        _seed(kimi, "rt-seed")
        path = _write_auth(
            sandbox, {"kimi-coding": {"type": "oauth", "access": "at-old", "refresh": "rt-seed", "expires": _now_ms() + 600_000}}
        )
        env = {"KIMI_CODE_OAUTH_HOST": kimi.url}
        # Ten minutes left: usable for a check without refreshing...
        check = run_ours(sandbox, "auth", "check", "--provider", "kimi-coding", "--json", "--credentials", **env)
        assert (check.returncode, json.loads(check.stdout)) == (
            0, {"status": "ready", "provider": "kimi-coding", "authType": "oauth", "credentials": "at-old"}
        )
        assert not kimi.requests
        # ...but a bearer token must last 30 minutes: it is refreshed first.
        bearer = run_ours(sandbox, "auth", "print-bearer-token", "--provider", "kimi-coding", **env)
        assert bearer.returncode == 0, bearer.stderr
        assert bearer.stdout == f"{kimi.access_tokens[-1]}\n"
        assert json.loads(path.read_text(encoding="utf-8"))["kimi-coding"]["refresh"] != "rt-seed"
        key = run_ours(sandbox, "auth", "print-api-key", "--provider", "kimi-coding", **env)
        assert (key.returncode, key.stderr) == (1, 'Error: Provider "kimi-coding" is configured with OAuth, not an API key\n')
        # Expired and revoked: a check says invalid (exit 2), a bearer token cannot be printed.
        kimi.revoke_all()
        _write_auth(sandbox, {"kimi-coding": {"type": "oauth", "access": "at-x", "refresh": "rt-gone", "expires": 0}})
        check = run_ours(sandbox, "auth", "check", "--provider", "kimi-coding", **env)
        assert (check.returncode, check.stdout) == (2, "invalid\n")
        unchecked = run_ours(sandbox, "auth", "check", "--provider", "kimi-coding", "--no-refresh", **env)
        assert (unchecked.returncode, unchecked.stdout) == (0, "ready\n")
        bearer = run_ours(sandbox, "auth", "print-bearer-token", "--provider", "kimi-coding", **env)
        assert (bearer.returncode, bearer.stdout, bearer.stderr) == (1, "", "Error: Failed to resolve credential\n")


def test_two_processes_refresh_one_token_once(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    with FakeAuthServer("kimi-coding") as kimi:
        _seed(kimi, "rt-seed")
        kimi.token_delay = 1.0
        _write_auth(sandbox, {"kimi-coding": {"type": "oauth", "access": "at-old", "refresh": "rt-seed", "expires": 0}})
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            runs = list(
                pool.map(
                    lambda _n: run_ours(
                        sandbox, "auth", "print-bearer-token", "--provider", "kimi-coding", KIMI_CODE_OAUTH_HOST=kimi.url
                    ),
                    range(2),
                )
            )
    assert [run.returncode for run in runs] == [0, 0], [run.stderr for run in runs]
    assert runs[0].stdout == runs[1].stdout == f"{kimi.access_tokens[0]}\n"
    assert len(kimi.token_requests("refresh_token")) == 1


def test_private_permissions_are_restored_with_a_warning(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    path = _write_auth(sandbox, {})
    path.chmod(0o644)
    done = run_ours(sandbox, "--list-models")
    assert path.stat().st_mode & 0o777 == 0o600
    warnings = [line for line in done.stderr.splitlines() if "auth.json" in line]
    assert len(warnings) == 1 and "was readable by others (mode 0644)" in warnings[0]
