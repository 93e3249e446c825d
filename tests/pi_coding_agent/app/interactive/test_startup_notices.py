"""What Pi says as its TUI starts: ``Model scope: ... (Ctrl+P to cycle)`` above the UI for
``--models``/``enabledModels`` (not with ``quietStartup``, unless ``--verbose``), and a warning
when the tmux pi runs in drops modified keys. Beside Pi's TUI in tmux, and ours in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app
from tests.pi_coding_agent.app.interactive._scenario import launch

pytestmark = pytest.mark.timeout(600)

SCOPE = "Model scope: scripted-model (Ctrl+P to cycle)"
TMUX_WARNING = "Warning: tmux extended-keys is off. Modified Enter keys may not work."


def _shown(history: str) -> list[str]:
    """The scope line and the tmux warning as they appear, in order (its wrapped line joined)."""
    text = " ".join(history.split())
    found = [(text.find(line), line) for line in (SCOPE, TMUX_WARNING) if line in text]
    return [line for _, line in sorted(found)]


def test_pi_and_we_say_the_same_at_startup_in_tmux(tmp_path: Path) -> None:
    shown = {}
    for which in ("pi", "ours"):
        with launch(
            tmp_path / which, which, [], args=("--models", "scripted-model"), probe=False, tmux_env=True
        ) as run:
            run.pane.wait_for("extended-keys", limit=90, everywhere=True)
            history = run.pane.history()
            shown[which] = _shown(history)
            assert history.lstrip().startswith(SCOPE)  # printed before the UI
    assert shown["ours"] == shown["pi"] == [SCOPE, TMUX_WARNING]


@pytest.mark.parametrize(
    ("settings", "args", "expected"),
    [
        ({}, ("--models", "scripted-model"), True),
        ({"enabledModels": ["scripted-model"]}, (), True),
        ({}, (), False),
        ({"quietStartup": True}, ("--models", "scripted-model"), False),
        ({"quietStartup": True}, ("--models", "scripted-model", "--verbose"), True),
    ],
)
def test_the_model_scope_line(
    tmp_path: Path, settings: dict[str, object], args: tuple[str, ...], expected: bool
) -> None:
    async def look(app: App) -> None:
        await app.wait_for("scripted-model")

    app = run_app(tmp_path, [], look, settings=settings, args=args)
    assert (SCOPE in app.history()) is expected
    assert TMUX_WARNING not in app.history()  # not in tmux
