"""Provider errors on screen in the real ``pi`` in tmux (ours and Pi's own): a 503 that the
automatic retry gets past (the retry line counting down, then the answer), one that
outlasts the retries (the error shown in the transcript, the editor usable after it), and a
retry cancelled with Escape during its countdown."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._scenario import launch

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
    with launch(tmp_path, which, TURNS, settings=RETRY, height=40) as run:
        pane = run.pane
        run.submit("first")
        pane.wait_for("Retrying (1/2) in 2s... (escape to cancel)", poll=0.01)
        pane.wait_for("Retrying (1/2) in 1s... (escape to cancel)", poll=0.01)
        screen = pane.wait_for("made it after a retry")
        assert "Retrying" not in screen  # the retry line goes once the answer comes
        assert screen.count(SHOWN) == 1  # the failed attempt stays in the transcript
        run.submit("second")
        pane.wait_for("Retrying (1/2) in 2s...", poll=0.01)
        pane.wait_for("Retrying (2/2) in 4s...", poll=0.01)
        screen = pane.wait_for("Error: Retry failed after 2 attempts: 503:", limit=60)
        pane.wait_until_gone("Retrying")
        assert screen.count(SHOWN) == 4  # the first prompt's failure, this one's and its two retries
        run.submit("after the error")  # the editor takes a prompt again (its answer fails too)
        pane.wait_for("Retrying (1/2) in 2s...", poll=0.01)
        pane.send("Escape")  # cancels the retry
        pane.wait_until_gone("Retrying")
        pane.wait_for("Error: Retry failed after 1 attempts: Retry cancelled")  # Pi's words, "1 attempts" too
        run.quit()
    failed = [m for m in run.messages() if m["role"] == "assistant" and m.get("stopReason") == "error"]
    assert failed and all("upstream is overloaded" in m["errorMessage"] for m in failed)
    assert [m["content"][0]["text"] for m in run.messages() if m["role"] == "user"] == [
        "first", "second", "after the error"
    ]
