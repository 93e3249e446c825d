"""Radius gateway models through our ``pi`` and Pi 0.85's, with a ``pi-messages`` gateway on
127.0.0.1: the catalog a Radius sign-in left in ``auth.json`` (``gatewayConfig``) is moved to
``models-store.json`` as Pi moves it and listed; the stored catalog is used with a key from
the environment; a ``models.json`` gateway of one's own (``"oauth": "radius"``) has its own
catalog; a ``-p`` run sends the same request to the gateway's ``baseUrl``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support.loopback import LoopbackServer, Recorded, Reply

pytestmark = pytest.mark.oracle

GATEWAY_MODELS = [
    {
        "id": "radius-coder",
        "name": "Radius Coder",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 0},
        "contextWindow": 200000,
        "maxTokens": 32000,
    },
    {"id": "not-a-gateway-model", "name": "lacks the limits"},
]
ANSWER = "Radius says hi."


def _credential(base_url: str, model_id: str = "radius-coder") -> dict[str, Any]:
    models = json.loads(json.dumps(GATEWAY_MODELS))
    models[0]["id"] = model_id
    return {
        "type": "oauth",
        "access": "radius-access-token",
        "refresh": "radius-refresh-token",
        "expires": 4_102_444_800_000,
        "gatewayConfig": {"baseUrl": base_url, "models": models},
    }


def _sandbox(root: Path, auth: dict[str, Any], models: dict[str, Any] | None = None) -> Sandbox:
    sandbox = Sandbox.create(root, "http://127.0.0.1:9")
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models or {"providers": {}}), encoding="utf-8")
    path = sandbox.agent_dir / "auth.json"
    path.write_text(json.dumps(auth, indent=2), encoding="utf-8")
    path.chmod(0o600)
    return sandbox


def _store(sandbox: Sandbox) -> dict[str, Any]:
    """``models-store.json`` without its clock (``checkedAt``), and its mode."""
    path = sandbox.agent_dir / "models-store.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for entry in data.values():
        assert isinstance(entry.pop("checkedAt"), int)
    return {"mode": oct(path.stat().st_mode & 0o777), "data": data}


def _both(tmp_path: Path, auth: dict[str, Any], *args: str, models: dict[str, Any] | None = None, **env: str) -> tuple[tuple[Completed, Sandbox], tuple[Completed, Sandbox]]:
    ours_box, pis_box = _sandbox(tmp_path / "ours", auth, models), _sandbox(tmp_path / "pi", auth, models)
    return (run_ours(ours_box, *args, **env), ours_box), (run_pi(pis_box, *args, **env), pis_box)


def test_a_sign_in_catalog_is_moved_to_the_store_and_listed(tmp_path: Path) -> None:
    (ours, ours_box), (pi, pis_box) = _both(
        tmp_path, {"radius": _credential("https://gateway.example/api/")}, "--list-models", "radius"
    )
    assert ours.returncode == pi.returncode == 0, (ours.stderr, pi.stderr)
    assert ours.stdout == pi.stdout
    assert "radius-coder" in ours.stdout and "not-a-gateway-model" not in ours.stdout
    stored = _store(ours_box)
    assert stored == _store(pis_box)
    assert stored["mode"] == "0o600"
    (model,) = stored["data"]["radius"]["models"]
    assert (model["api"], model["provider"], model["baseUrl"]) == ("pi-messages", "radius", "https://gateway.example/api/")


def test_a_stored_catalog_is_used_with_a_key_from_the_environment(tmp_path: Path) -> None:
    auth = {"radius": _credential("https://gateway.example/api/")}
    (_, ours_box), (_, pis_box) = _both(tmp_path, auth, "--list-models", "radius")  # writes the store
    for box in (ours_box, pis_box):
        (box.agent_dir / "auth.json").write_text("{}", encoding="utf-8")
        store = json.loads((box.agent_dir / "models-store.json").read_text(encoding="utf-8"))
        stranger = {**store["radius"]["models"][0], "id": "elsewhere", "provider": "other"}
        store["radius"]["models"].append(stranger)  # another provider's model: not Radius's
        (box.agent_dir / "models-store.json").write_text(json.dumps(store), encoding="utf-8")
    ours = run_ours(ours_box, "--list-models", "radius", RADIUS_API_KEY="radius-env-key")
    pi = run_pi(pis_box, "--list-models", "radius", RADIUS_API_KEY="radius-env-key")
    assert ours.returncode == pi.returncode == 0
    assert ours.stdout == pi.stdout and "radius-coder" in ours.stdout and "elsewhere" not in ours.stdout


def test_a_gateway_of_ones_own_in_models_json(tmp_path: Path) -> None:
    models = {"providers": {"corp": {"name": "Corp Gateway", "baseUrl": "https://corp.example", "oauth": "radius"}}}
    auth = {"corp": _credential("https://corp.example/api/", "corp-coder")}
    (ours, ours_box), (pi, pis_box) = _both(tmp_path, auth, "--list-models", "corp", models=models)
    assert ours.returncode == pi.returncode == 0, (ours.stderr, pi.stderr)
    assert ours.stdout == pi.stdout and "corp-coder" in ours.stdout
    assert _store(ours_box) == _store(pis_box)


def _gateway_answer(_recorded: Recorded) -> Reply:
    events = [
        {"type": "start"},
        {"type": "text_start", "contentIndex": 0},
        {"type": "text_delta", "contentIndex": 0, "delta": ANSWER},
        {"type": "text_end", "contentIndex": 0, "content": ANSWER},
        {"type": "done", "reason": "stop", "usage": {"input": 5, "output": 3, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 8}},
    ]
    body = "".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events)
    return Reply(200, {"content-type": "text/event-stream"}, body=body.encode())


async def test_a_print_run_asks_the_gateway(tmp_path: Path) -> None:
    import asyncio

    async with LoopbackServer(respond=_gateway_answer) as server:
        auth = {"radius": _credential(server.url + "/api/")}
        args = ("--model", "radius/radius-coder", "--no-session", "-p", "hi")
        (ours, _), (pi, _) = await asyncio.to_thread(_both, tmp_path, auth, *args)
    assert ours.returncode == pi.returncode == 0, (ours.stderr, pi.stderr)
    assert ours.stdout == pi.stdout == ANSWER + "\n"
    mine, theirs = server.requests
    for recorded in (mine, theirs):
        assert recorded.path == "/api/messages"
        assert recorded.headers["authorization"] == "Bearer radius-access-token"

    def comparable(recorded: Recorded) -> dict[str, Any]:
        body = recorded.json()
        context = body["context"]
        options = {key: value for key, value in body["options"].items() if key != "sessionId"}  # per run
        return {
            "model": body["model"],
            "options": options,
            "messages": [message["content"] for message in context["messages"]],
        }

    assert comparable(mine) == comparable(theirs)


# --------------------------------------------------------------------------- pi update --models


def _config_reply(base_url: str) -> Reply:
    models = [{**GATEWAY_MODELS[0], "id": "fresh-model", "name": "Fresh"}, GATEWAY_MODELS[1]]
    return Reply.json(200, {"baseUrl": base_url, "models": models})


async def _update_both(tmp_path: Path, reply: Any, auth: dict[str, Any], *, gateway: str | None = None) -> tuple[Any, ...]:
    """``pi update --models`` by ours and Pi's, each against the same gateway on 127.0.0.1 (a
    ``models.json`` Radius provider ``corp``); what each printed, its store, and the requests."""
    import asyncio

    async with LoopbackServer(respond=reply) as server:
        base = gateway or server.url
        models = {"providers": {"corp": {"name": "Corp", "baseUrl": base, "oauth": "radius"}}}
        (ours, ours_box), (pi, pis_box) = await asyncio.to_thread(_both, tmp_path, auth, "update", "--models", models=models)
        requests = list(server.requests)
    return ours, ours_box, pi, pis_box, requests


async def test_update_models_fetches_the_gateway_catalog(tmp_path: Path) -> None:
    def reply(recorded: Recorded) -> Reply:
        return _config_reply(f"http://{recorded.headers['host']}/api/")

    auth = {"corp": _credential("https://stale.example/api/", "stale-model")}
    ours, ours_box, pi, pis_box, requests = await _update_both(tmp_path, reply, auth)
    assert (ours.returncode, ours.stdout) == (pi.returncode, pi.stdout) == (0, "Model catalogs refreshed\n")
    assert len(requests) == 2
    for recorded in requests:
        assert (recorded.method, recorded.path) == ("GET", "/v1/config")
        assert recorded.headers["authorization"] == "Bearer radius-access-token"
        assert recorded.headers["accept"] == "application/json"
    assert _store(ours_box) == _store(pis_box)
    assert [m["id"] for m in _store(ours_box)["data"]["corp"]["models"]] == ["fresh-model"]
    listed = [run(box, "--list-models", "corp") for run, box in ((run_ours, ours_box), (run_pi, pis_box))]
    assert listed[0].stdout == listed[1].stdout and "fresh-model" in listed[0].stdout


@pytest.mark.parametrize(
    "answer",
    [
        Reply(500, {"content-type": "text/plain"}, body=b"  upstream exploded  "),
        Reply.json(200, {"models": []}),
        Reply(200, {"content-type": "application/json"}, body=b"{not json"),
    ],
    ids=["http-500", "not-a-config", "bad-json"],
)
async def test_update_models_failures_read_as_pis(tmp_path: Path, answer: Reply) -> None:
    auth = {"corp": _credential("https://stale.example/api/")}
    ours, ours_box, pi, pis_box, _ = await _update_both(tmp_path, lambda _r: answer, auth)
    assert ours.returncode == pi.returncode == 1
    assert ours.stdout == pi.stdout == ""
    # Pi's line names its own gateway URL; both ran against the same server.
    assert ours.stderr == pi.stderr and ours.stderr.startswith("Error: Could not refresh model catalogs: corp: ")
    assert _store(ours_box) == _store(pis_box)  # the catalog the sign-in stored, kept


async def test_update_models_unreachable_gateway_and_no_credential(tmp_path: Path) -> None:
    auth = {"corp": _credential("https://stale.example/api/")}
    ours, _, pi, _, _ = await _update_both(tmp_path / "down", lambda _r: Reply(), auth, gateway="http://127.0.0.1:9")
    assert ours.returncode == pi.returncode == 1
    assert ours.stderr == pi.stderr == "Error: Could not refresh model catalogs: corp: fetch failed\n"
    ours, _, pi, _, requests = await _update_both(tmp_path / "none", lambda _r: Reply(), {})
    assert (ours.returncode, ours.stdout) == (pi.returncode, pi.stdout) == (0, "Model catalogs refreshed\n")
    assert requests == []  # nothing to ask without a credential
