"""The Radius gateways' catalogs in ``pi`` (ours in-process, Pi's own TUI in tmux), with a ``models.json`` gateway
(``"oauth": "radius"``) on 127.0.0.1 and a signed-in credential: ours asks the gateway for
``/v1/config`` once its screen is up, the screen working while the gateway holds the answer;
the answer replaces the stored catalog (``models-store.json`` as Pi's ``pi update --models``
writes it from the same gateway) and the session's models; a failing gateway is passed over
in silence. With ``PI_OFFLINE`` (which the oracle's ``pi-cli`` always sets) neither ours nor
Pi's asks anything and the stored catalog is what ``/model`` offers."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.e2e._harness import Sandbox, run_pi
from tests.support.http_thread import server_thread
from tests.support.scripted_provider import models_json

pytestmark = pytest.mark.timeout(600)

GATEWAY_MODEL = {
    "id": "stale-model",
    "name": "Stale",
    "reasoning": False,
    "input": ["text"],
    "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
    "contextWindow": 100000,
    "maxTokens": 8000,
}
CREDENTIAL = {"type": "oauth", "access": "corp-access-token", "refresh": "corp-refresh-token", "expires": 4_102_444_800_000}


@dataclass
class Gateway:
    """A Radius gateway: ``GET /v1/config`` answered with ``status`` (a fresh catalog on 200)
    once ``release`` is set; each request's path and ``authorization`` header recorded."""

    status: int = 200
    release: threading.Event = field(default_factory=threading.Event)
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    answered: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def answer(self) -> bytes:
        if self.status != 200:
            return b"gateway down"
        models = [{**GATEWAY_MODEL, "id": "fresh-model", "name": "Fresh"}]
        return json.dumps({"baseUrl": f"{self.url}/api/", "models": models}).encode()


@contextmanager
def serve(gateway: Gateway) -> Iterator[Gateway]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            gateway.requests.append((self.path, self.headers.get("authorization")))
            gateway.release.wait(60)
            body = gateway.answer()
            self.send_response(gateway.status)
            self.send_header("content-type", "application/json" if gateway.status == 200 else "text/plain")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(ConnectionError):  # the client gave up (it quit)
                self.wfile.write(body)
            gateway.answered.set()

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    gateway.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = server_thread(server)
    thread.start()
    try:
        yield gateway
    finally:
        gateway.release.set()
        server.shutdown()
        server.server_close()


def _models(gateway: Gateway) -> Any:
    def build(base_url: str) -> dict[str, Any]:
        models = models_json(base_url)
        models["providers"]["corp"] = {"name": "Corp", "baseUrl": gateway.url, "oauth": "radius"}
        return models

    return build


def _signed_in(gateway: Gateway) -> Any:
    """``before``: the credential, and the catalog stored by an earlier run."""

    def write(sandbox: Sandbox) -> None:
        auth = sandbox.agent_dir / "auth.json"
        auth.write_text(json.dumps({"corp": CREDENTIAL}), encoding="utf-8")
        auth.chmod(0o600)
        stale = {**GATEWAY_MODEL, "api": "pi-messages", "provider": "corp", "baseUrl": f"{gateway.url}/api/"}
        store = {"corp": {"models": [stale], "checkedAt": 1_700_000_000_000}}
        (sandbox.agent_dir / "models-store.json").write_text(json.dumps(store, indent=2), encoding="utf-8")

    return write


def _stored(sandbox: Sandbox) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((sandbox.agent_dir / "models-store.json").read_text(encoding="utf-8"))
    return data


def _stored_ids(sandbox: Sandbox) -> list[str]:
    try:
        return [model["id"] for model in _stored(sandbox)["corp"]["models"]]
    except (json.JSONDecodeError, KeyError):
        return []  # being replaced


async def _model_picker_shows(app: Driven, text: str) -> None:
    """``/model``, searched for ``corp``: ``text`` is among the models offered."""
    await app.command("/model")
    await app.wait_for("Enter to select")
    await app.type("corp")
    await app.wait_for(text)
    await app.send("Escape")
    await app.wait_until_gone("Enter to select")


def test_the_catalog_is_fetched_behind_a_working_screen(tmp_path: Path) -> None:
    with serve(Gateway()) as gateway:
        turns = [{"text": "answered meanwhile"}]

        async def scenario(app: Driven) -> None:
            await app.wait_until(lambda _s: bool(gateway.requests), "the gateway was never asked")
            await app.submit("hello")  # the gateway still holds its answer
            await app.wait_for("answered meanwhile")
            assert _stored_ids(app.sandbox) == ["stale-model"] and not gateway.answered.is_set()
            gateway.release.set()
            await app.wait_until(lambda _s: _stored_ids(app.sandbox) == ["fresh-model"], "the store was not refreshed")
            await _model_picker_shows(app, "fresh-model")
            assert "stale-model" not in app.screen()
            await app.quit()

        app = play(tmp_path / "ours", "ours", turns, scenario, models=_models(gateway), before=_signed_in(gateway))
        assert gateway.requests == [("/v1/config", "Bearer corp-access-token")]
        ours = _stored(app.sandbox)
        # Pi's own refresh of the same gateway (its `pi update --models`; pi-cli keeps its
        # interactive mode offline) stores the same entry.
        pis_box = Sandbox.create(tmp_path / "pi", "http://127.0.0.1:9")
        (pis_box.agent_dir / "models.json").write_text(json.dumps(_models(gateway)("http://127.0.0.1:9")), encoding="utf-8")
        _signed_in(gateway)(pis_box)
        assert run_pi(pis_box, "update", "--models").returncode == 0
    pis = _stored(pis_box)
    for data in (ours, pis):
        assert data["corp"].pop("checkedAt") > 1_700_000_000_000
    assert ours == pis


def test_a_failing_gateway_is_passed_over_in_silence(tmp_path: Path) -> None:
    gateway = Gateway(status=500)
    gateway.release.set()

    async def scenario(app: Driven) -> None:
        await app.wait_until(lambda _s: gateway.answered.is_set(), "the gateway was never asked")
        await _model_picker_shows(app, "stale-model")
        screen = app.history()
        assert "gateway down" not in screen and "Could not" not in screen and "Error" not in screen
        await app.quit()

    with serve(gateway):
        app = play(tmp_path, "ours", [], scenario, models=_models(gateway), before=_signed_in(gateway))
    assert _stored_ids(app.sandbox) == ["stale-model"]


def test_quitting_does_not_wait_for_the_gateway(tmp_path: Path) -> None:
    async def scenario(app: Driven) -> None:
        await app.wait_until(lambda _s: bool(gateway.requests), "the gateway was never asked")
        await app.quit()  # exit 0 while the gateway still holds its answer
        assert not gateway.answered.is_set()

    with serve(Gateway()) as gateway:
        app = play(tmp_path, "ours", [], scenario, models=_models(gateway), before=_signed_in(gateway))
        assert _stored_ids(app.sandbox) == ["stale-model"]


@pytest.mark.parametrize(("which", "offline"), [("ours", "1"), ("ours", ""), ("pi", "1")])
def test_offline_nothing_is_asked(tmp_path: Path, which: str, offline: str) -> None:
    """Pi keeps its models off the network when ``PI_OFFLINE`` is set at all (its model
    runtime checks ``=== undefined``), empty included; pi-cli always sets it to ``1``."""
    with serve(Gateway()) as gateway:
        gateway.release.set()
        env = {"PI_OFFLINE": offline}
        stored_before: list[dict[str, Any]] = []  # what the store held as the app started

        async def scenario(app: Driven) -> None:
            stored_before.append(_stored(app.sandbox))
            await _model_picker_shows(app, "stale-model")
            await app.quit()

        app = play(tmp_path, which, [], scenario, models=_models(gateway), before=_signed_in(gateway), env=env)
        assert gateway.requests == []
        assert [_stored(app.sandbox)] == stored_before
