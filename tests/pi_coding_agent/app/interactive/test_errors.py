"""Provider errors on screen (ours in-process, Pi's own TUI in tmux): a 503 that the
automatic retry gets past (the retry line counting down, then the answer), one that
outlasts the retries (the error shown in the transcript, the editor usable after it), and a
retry cancelled with Escape during its countdown."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play

pytestmark = pytest.mark.timeout(600)

UNAVAILABLE = {"status": 503, "body": {"error": {"message": "upstream is overloaded", "type": "server_error"}}}
TURNS = [
    {"text": "made it after a retry", "fail": [UNAVAILABLE]},
    {"text": "never served", "fail": [UNAVAILABLE] * 5},
]
SHOWN = 'Error: 503: {"message":"upstream is overloaded","type":"server_error"}'
RETRY = {"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 2000}}


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_a_503_is_retried_with_a_countdown_then_a_final_error(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.submit("first")
        await app.wait_for("Retrying (1/2) in 2s... (escape to cancel)")
        await app.wait_for("Retrying (1/2) in 1s... (escape to cancel)")
        screen = await app.wait_for("made it after a retry")
        assert "Retrying" not in screen  # the retry line goes once the answer comes
        assert screen.count(SHOWN) == 1  # the failed attempt stays in the transcript
        await app.wait_until_gone("Working")  # the run is over: the next prompt is not a steer
        await app.submit("second")
        await app.wait_for("Retrying (1/2) in 2s...")
        await app.wait_for("Retrying (2/2) in 4s...")
        screen = await app.wait_for("Error: Retry failed after 2 attempts: 503:", limit=60)
        await app.wait_until_gone("Retrying")
        assert screen.count(SHOWN) == 4  # the first prompt's failure, this one's and its two retries
        await app.submit("after the error")  # the editor takes a prompt again (its answer fails too)
        await app.wait_for("Retrying (1/2) in 2s...")
        await app.send("Escape")  # cancels the retry
        await app.wait_until_gone("Retrying")
        await app.wait_for("Error: Retry failed after 1 attempts: Retry cancelled")  # Pi's words, "1 attempts" too
        await app.quit()

    app = play(tmp_path, which, TURNS, scenario, settings=RETRY, height=40)
    failed = [m for m in app.messages() if m["role"] == "assistant" and m.get("stopReason") == "error"]
    assert failed and all("upstream is overloaded" in m["errorMessage"] for m in failed)
    assert [m["content"][0]["text"] for m in app.messages() if m["role"] == "user"] == [
        "first", "second", "after the error"
    ]
