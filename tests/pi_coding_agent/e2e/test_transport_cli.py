"""Our ``pi`` and Pi 0.85's (through the oracle's ``pi-cli``) against the same servers on
127.0.0.1: what reaches the provider for ANTHROPIC_AUTH_TOKEN and the Cloudflare providers,
the ``httpProxy`` setting (a proxy we start), and the deadlines while a response streams
(``retry.provider.timeoutMs`` bounds the headers only; ``httpIdleTimeoutMs`` every silence).

The oracle's ``pi-cli`` unsets the proxy variables, so Pi is compared through the setting;
the variables themselves are tested on our side (and in ``tests/pi_ai/api/test_proxy.py``).
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.http_proxy import HttpProxy
from tests.support.loopback import LoopbackServer, Reply
from tests.support.scripted_provider import ScriptedProvider, _openai_events

ANTHROPIC = "anthropic/claude-sonnet-4-5"
WORKERS = "cloudflare-workers-ai/@cf/moonshotai/kimi-k2.6"
GATEWAY = "cloudflare-ai-gateway/claude-sonnet-5"  # in Pi 0.85's catalog and in 1.6's
AUTH_HEADERS = ("authorization", "x-api-key", "cf-aig-authorization")


def _sandbox(
    root: Path, base_url: str, models: dict[str, Any], settings: dict[str, Any] | None = None
) -> Sandbox:
    sandbox = Sandbox.create(root, base_url, {"retry": {"enabled": False}, **(settings or {})})
    (sandbox.agent_dir / "models.json").write_text(json.dumps({"providers": models}), encoding="utf-8")
    return sandbox


def _seen(provider: ScriptedProvider) -> list[tuple[str, dict[str, str]]]:
    return [
        (request["path"], {k: v for k, v in request["headers"].items() if k in AUTH_HEADERS})
        for request in provider.requests
    ]


def _both_against(
    tmp_path: Path, models: dict[str, Any], model: str, **env: str
) -> tuple[tuple[Completed, list[Any]], tuple[Completed, list[Any]]]:
    """Run both CLIs on ``-p hello`` with ``models`` (``{base}`` = the server) and ``env``."""
    oracle.require_live_oracle()
    results = []
    for name, run in (("ours", run_ours), ("pi", run_pi)):
        with ScriptedProvider([{"text": "ok"}]) as provider:
            text = json.dumps(models).replace("{base}", provider.base_url)
            sandbox = _sandbox(tmp_path / name, provider.base_url, json.loads(text))
            done = run(sandbox, "--model", model, "-p", "hello", **env)
            results.append((done, _seen(provider)))
    return results[0], results[1]


def test_anthropic_auth_token_is_sent_as_a_bearer_header(tmp_path: Path) -> None:
    env = {"ANTHROPIC_AUTH_TOKEN": "tok-a", "ANTHROPIC_API_KEY": "sk-ant-not-used"}
    (ours, ours_seen), (pi, pi_seen) = _both_against(
        tmp_path, {"anthropic": {"baseUrl": "{base}"}}, ANTHROPIC, **env
    )
    assert (pi.returncode, pi.stdout) == (0, "ok\n"), pi.stderr
    assert (ours.returncode, ours.stdout) == (0, "ok\n"), ours.stderr
    assert ours_seen == pi_seen == [("/v1/messages?beta=true", {"authorization": "Bearer tok-a"})]


@pytest.mark.parametrize(
    ("models", "model", "env", "path", "auth"),
    [
        (
            {"cloudflare-workers-ai": {"baseUrl": "{base}/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"}},
            WORKERS,
            {"CLOUDFLARE_API_KEY": "cfk", "CLOUDFLARE_ACCOUNT_ID": "acc-1"},
            "/client/v4/accounts/acc-1/ai/v1/chat/completions",
            {"authorization": "Bearer cfk"},
        ),
        (
            {
                "cloudflare-ai-gateway": {
                    "baseUrl": "{base}/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/anthropic"
                }
            },
            GATEWAY,
            {"CLOUDFLARE_API_KEY": "cfk", "CLOUDFLARE_ACCOUNT_ID": "acc-1", "CLOUDFLARE_GATEWAY_ID": "gw-2"},
            "/v1/acc-1/gw-2/anthropic/v1/messages?beta=true",
            {"cf-aig-authorization": "Bearer cfk"},
        ),
    ],
    ids=["workers-ai", "ai-gateway"],
)
def test_cloudflare_placeholders_are_filled_from_the_environment(  # noqa: PLR0917 (parametrized)
    tmp_path: Path, models: dict[str, Any], model: str, env: dict[str, str], path: str, auth: dict[str, str]
) -> None:
    (ours, ours_seen), (pi, pi_seen) = _both_against(tmp_path, models, model, **env)
    assert (pi.returncode, pi.stdout) == (0, "ok\n"), pi.stderr
    assert (ours.returncode, ours.stdout) == (0, "ok\n"), ours.stderr
    assert ours_seen == pi_seen == [(path, auth)]


def test_cloudflare_without_an_account_id_is_not_configured(tmp_path: Path) -> None:
    models = {"cloudflare-workers-ai": {"baseUrl": "{base}/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"}}
    (ours, ours_seen), (pi, pi_seen) = _both_against(tmp_path, models, WORKERS, CLOUDFLARE_API_KEY="cfk")
    assert pi.returncode == ours.returncode == 1
    assert pi.stderr.startswith("No API key found for cloudflare-workers-ai")
    assert ours.stderr.startswith("No API key found for cloudflare-workers-ai: set CLOUDFLARE_API_KEY (and ")
    assert ours_seen == pi_seen == []


# --------------------------------------------------------------------------- proxy


async def test_http_proxy_setting_tunnels_both_clis_alike(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    async with HttpProxy() as proxy:
        for case, env in (("proxied", {}), ("no-proxy", {"NO_PROXY": "127.0.0.1"})):
            lines = {}
            for name, run in (("ours", run_ours), ("pi", run_pi)):
                with ScriptedProvider([{"text": "ok"}]) as provider:
                    sandbox = Sandbox.create(
                        tmp_path / case / name,
                        provider.base_url,
                        {"retry": {"enabled": False}, "httpProxy": proxy.url},
                    )
                    before = len(proxy.requests)
                    args = ("--model", "scripted-openai/scripted-model", "-p", "hello")
                    done = await asyncio.to_thread(run, sandbox, *args, **env)
                    assert (done.returncode, done.stdout) == (0, "ok\n"), (name, case, done.stderr)
                    assert len(provider.requests) == 1
                    lines[name] = [
                        request.line.replace(str(provider.port), "<port>")
                        for request in proxy.requests[before:]
                    ]
            expected = ["CONNECT 127.0.0.1:<port> HTTP/1.1"] if case == "proxied" else []
            assert lines["ours"] == lines["pi"] == expected, case


async def test_proxy_environment_variable_and_setting_order_on_our_side(tmp_path: Path) -> None:
    async with HttpProxy() as from_env, HttpProxy() as from_setting:
        with ScriptedProvider([{"text": "ok"}]) as provider:
            settings = {"retry": {"enabled": False}, "httpProxy": from_setting.url}
            sandbox = Sandbox.create(tmp_path, provider.base_url, settings)
            args = ("--model", "scripted-openai/scripted-model", "-p", "hello")
            done = await asyncio.to_thread(run_ours, sandbox, *args, HTTP_PROXY=from_env.url)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    # the variable that is set wins over the setting (Pi fills HTTP_PROXY only when unset)
    assert [request.line.split()[0] for request in from_env.requests] == ["CONNECT"]
    assert from_setting.requests == []


# --------------------------------------------------------------------------- deadlines


def test_slow_live_stream_outlasts_the_provider_timeout(tmp_path: Path) -> None:
    """Events 0.6 s apart under ``retry.provider.timeoutMs`` 300: both complete (the timeout
    bounds the wait for the response headers, not the silences of a live body)."""
    oracle.require_live_oracle()
    text = "slow"  # one text chunk: the role, text, finish and end frames still come 0.6 s apart
    settings = {"retry": {"enabled": False, "provider": {"timeoutMs": 300}}}

    def outcome(name: str, run: Any) -> tuple[int, str]:
        with ScriptedProvider([{"text": text, "chunk_delay": 0.6}]) as provider:
            sandbox = Sandbox.create(tmp_path / name, provider.base_url, settings)
            done = run(sandbox, "--model", "scripted-openai/scripted-model", "-p", "hello")
            return done.returncode, done.stdout

    # Both at once: the run is mostly the provider's pauses.
    with ThreadPoolExecutor(2) as pool:
        ours, pi = pool.map(outcome, ("ours", "pi"), (run_ours, run_pi))
    assert ours == pi == (0, text + "\n")


async def test_stalled_body_fails_after_the_idle_timeout(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    frames = [f"data: {json.dumps(event) if isinstance(event, dict) else event}\n\n".encode()
              for event in _openai_events({"text": "partial answer then silence"}, "m")]  # fmt: skip
    # Long enough that a loaded machine still gets the response head in time (a timeout before
    # it is a request timeout, not a stall).
    settings = {"retry": {"enabled": False}, "httpIdleTimeoutMs": 2000}
    messages = {}

    async def message(name: str, run: Any) -> None:
        async with LoopbackServer([Reply(chunks=frames, stall_after=3)]) as server:
            sandbox = Sandbox.create(tmp_path / name, server.url, settings)
            args = ("--mode", "json", "--model", "scripted-openai/scripted-model", "hello")
            done = await asyncio.to_thread(run, sandbox, *args)
        ends = [event for event in done.json_lines() if event["type"] == "agent_end"]
        final = ends[-1]["messages"][-1]
        assert final["stopReason"] == "error", name
        messages[name] = final["errorMessage"]

    await asyncio.gather(message("ours", run_ours), message("pi", run_pi))  # both at once: mostly waiting
    assert messages["pi"] == "terminated"
    assert messages["ours"] == "terminated: no data received for 2000 ms"  # Pi's words, and why
