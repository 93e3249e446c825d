"""``/share`` in the TUI, in tmux: with a ``radius`` token Radius is tried before the gist,
as Pi 0.85 does. Ours posts to a stand-in gateway on 127.0.0.1 (``PI_OAUTH_RADIUS_BASE_URL``)
and shows the artifact's URL; Escape while the upload runs cancels it (``Share cancelled``)
and gives the editor back.

Pi 0.85's gateway is fixed (``https://radius.pi.dev``, no override) and its oracle refuses
every non-loopback host, so Pi cannot reach the stand-in: beside Pi, both get the same
unreachable gateway and must say the same line (and neither falls back to the gist)."""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import Run, launch
from tests.pi_coding_agent.app.interactive._tmux import editor_text
from tests.pi_coding_agent.e2e._harness import Sandbox
from tests.support.http_thread import server_thread

pytestmark = pytest.mark.timeout(300)

FAILED = "Error: Failed to upload Radius artifact: fetch failed"
GIST_WORDS = ("GitHub CLI", "gist")


@dataclass
class Gateway:
    url: str
    hold: bool
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)


@contextmanager
def stand_in_gateway(hold: bool = False) -> Iterator[Gateway]:
    """Radius's ``/v1/artifacts`` on 127.0.0.1: records each upload and answers with an
    artifact URL, or (``hold``) keeps the request open until the test ends."""
    state = Gateway("", hold)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.requests.append({"path": self.path, "auth": self.headers["Authorization"], "body": body})
            state.arrived.set()
            if state.hold:
                state.release.wait(120)
            answer = json.dumps({"artifact": {"canonical_url": "https://radius.example/a/42"}}).encode()
            try:
                self.send_response(201)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            except OSError:  # the client gave up (Escape)
                pass

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = server_thread(server)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()


def _radius_token(sandbox: Sandbox) -> None:
    path = sandbox.agent_dir / "auth.json"
    path.write_text(json.dumps({"radius": {"type": "api_key", "key": "tok-share"}}), encoding="utf-8")
    path.chmod(0o600)


@contextmanager
def _run(tmp_path: Path, which: str, gateway: str) -> Iterator[Run]:
    with launch(
        tmp_path / which, which, [{"text": "SHARED-ANSWER"}], before=_radius_token,
        env={"PI_OAUTH_RADIUS_BASE_URL": gateway},
    ) as run:  # fmt: skip
        run.submit("hello")
        run.pane.wait_for("SHARED-ANSWER")
        yield run


def test_radius_is_tried_first_and_fails_in_pis_words(tmp_path: Path) -> None:
    with stand_in_gateway() as closed:
        unreachable = closed.url  # the port is closed once the block ends
    with ExitStack() as stack:
        runs = [stack.enter_context(_run(tmp_path, which, unreachable)) for which in ("pi", "ours")]
        lines = {}
        for run in runs:
            run.command("/share")
            screen = run.pane.wait_for("Failed to upload Radius artifact")
            lines[run.which] = [line.strip() for line in screen.splitlines() if "Radius" in line]
            assert not any(word in screen for word in GIST_WORDS), screen
    assert lines["ours"] == lines["pi"] == [FAILED]


def test_the_session_is_uploaded_and_its_url_shown(tmp_path: Path) -> None:
    with stand_in_gateway() as gateway, _run(tmp_path, "ours", gateway.url) as run:
        run.command("/share")
        screen = run.pane.wait_for("Share URL: https://radius.example/a/42")
        assert not any(word in screen for word in GIST_WORDS), screen
        [request] = gateway.requests
        assert request["path"] == "/v1/artifacts?visibility=organization&title=Pi+session"
        assert request["auth"] == "Bearer tok-share"
        entries = [json.loads(line) for line in request["body"].decode().splitlines()]
        assert entries[0]["type"] == "session"
        assert any(e.get("message", {}).get("role") == "assistant" for e in entries)
        assert (entries[-1]["type"], entries[-1]["customType"]) == ("custom", "pi.share")
        assert [tool["name"] for tool in entries[-1]["data"]["tools"]] == ["read", "bash", "edit", "write"]


def test_escape_cancels_the_upload(tmp_path: Path) -> None:
    with stand_in_gateway(hold=True) as gateway, _run(tmp_path, "ours", gateway.url) as run:
        run.command("/share")
        screen = run.pane.wait_for("Uploading to Radius...")
        assert "escape/ctrl+c cancel" in screen
        assert gateway.arrived.wait(30)
        run.pane.send("Escape")
        screen = run.pane.wait_for("Share cancelled")
        assert "Uploading to Radius" not in screen and "Share URL" not in screen
        run.pane.type("typed after")  # the editor is back and takes keys
        run.pane.wait_for("typed after", region="editor")
        assert "typed after" in editor_text(run.pane.screen())


FAKE_GH = """#!/bin/sh
# A logged-in GitHub CLI: `gist create` prints a gist's URL, or (GH_HOLD) waits, its pid noted.
case "$1 $2" in
  "auth status") exit 0 ;;
  "gist create")
    if [ -n "$GH_HOLD" ]; then echo $$ > "$GH_HOLD"; exec sleep 120; fi
    echo "https://gist.github.com/someone/0123abcd"; exit 0 ;;
esac
exit 1
"""


def _gh_env(tmp_path: Path, hold: Path | None) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH, encoding="utf-8")
    gh.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    return {**env, "GH_HOLD": str(hold)} if hold is not None else env


@contextmanager
def _gist_run(tmp_path: Path, which: str, hold: Path | None) -> Iterator[Run]:
    with launch(tmp_path / which, which, [{"text": "SHARED-ANSWER"}], env=_gh_env(tmp_path, hold)) as run:
        run.submit("hello")
        run.pane.wait_for("SHARED-ANSWER")
        yield run


def test_without_a_radius_token_the_gist_is_made_as_pi_does(tmp_path: Path) -> None:
    lines = {}
    for which in ("pi", "ours"):
        with _gist_run(tmp_path, which, None) as run:
            run.command("/share")
            screen = run.pane.wait_for("Gist: ")
            lines[which] = [
                line.strip() for line in screen.splitlines() if "Share URL" in line or "Gist:" in line
            ]
    assert (
        lines["ours"]
        == lines["pi"]
        == [
            "Share URL: https://pi.dev/session/#0123abcd",
            "Gist: https://gist.github.com/someone/0123abcd",
        ]
    )


def _loader_frame(screen: str) -> list[str]:
    lines = [line.rstrip() for line in screen.splitlines()]
    at = next(i for i, line in enumerate(lines) if "Creating gist..." in line)
    return [re.sub(r"^ \S ", " * ", line) for line in lines[at - 2 : at + 5]]  # the spinner's frame varies


def _cancel_gist(tmp_path: Path, which: str) -> tuple[list[str], list[str]]:
    """The loader's frame while ``gh gist create`` runs, and what Escape leaves on screen; the
    ``gh`` process must be gone and the editor back."""
    hold = tmp_path / f"{which}-gh.pid"
    with _gist_run(tmp_path, which, hold) as run:
        run.command("/share")
        frame = _loader_frame(run.pane.wait_for("Creating gist..."))
        run.pane.wait_until(lambda _: hold.exists() and hold.read_text().strip() != "", "gh never started")
        pid = int(hold.read_text())
        run.pane.send("Escape")
        screen = run.pane.wait_for("Share cancelled")
        outcome = [
            line.strip() for line in screen.splitlines() if "cancelled" in line or "Creating gist" in line
        ]
        run.pane.wait_until(lambda _: not Path(f"/proc/{pid}").exists(), "gh was not stopped")
        run.pane.type("typed after")
        run.pane.wait_for("typed after", region="editor")
    return frame, outcome


def test_escape_stops_the_gist_as_pi_does(tmp_path: Path) -> None:
    (pi_frame, pi_outcome), (our_frame, our_outcome) = (_cancel_gist(tmp_path, w) for w in ("pi", "ours"))
    assert our_frame == pi_frame
    assert pi_frame[1:6] == ["", " * Creating gist...", "", " escape/ctrl+c cancel", ""]
    assert our_outcome == pi_outcome == ["Share cancelled"]
