"""The in-process harness itself: a run that stops before the interactive mode (here on an
unknown option) fails the test with what pi printed, instead of passing without its scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app


def test_a_run_that_never_reaches_the_interactive_mode_fails(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        raise AssertionError("the scenario ran")

    with pytest.raises(AssertionError, match=r"(?s)exited with 1 before its interactive mode.*--no-such-flag"):
        run_app(tmp_path, [], scenario, args=("--no-such-flag",))
