"""The git branch after the working directory in the footer, as Pi shows it: ``<cwd> (master)``,
``(detached)`` for a detached HEAD, a worktree's own branch, and a checkout made elsewhere
showing while pi runs; nothing outside a repository. Ours in-process, once beside Pi's TUI."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app
from tests.pi_coding_agent.app.interactive._scenario import launch
from tests.pi_coding_agent.e2e._harness import Sandbox

pytestmark = pytest.mark.timeout(600)


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=master", *args],
        cwd=folder, check=True, capture_output=True,
    )  # fmt: skip


def _repository(sandbox: Sandbox) -> None:
    _git(sandbox.work, "init", "-q")
    _git(sandbox.work, "commit", "-q", "--allow-empty", "-m", "first")


def _footer_path(screen: str) -> str:
    """The footer's first line: the working directory and what follows it."""
    rows = [row for row in screen.splitlines() if row.strip()]
    return rows[-2].strip()


def test_branch_switches_detached_head_and_no_repository(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        work = str(app.sandbox.work)
        await app.wait_until(lambda s: _footer_path(s) == f"{work} (master)", "no (master) in the footer")
        _git(app.sandbox.work, "checkout", "-q", "-b", "feature")
        await app.wait_until(lambda s: _footer_path(s) == f"{work} (feature)", "the checkout never showed")
        _git(app.sandbox.work, "checkout", "-q", "--detach")
        await app.wait_until(
            lambda s: _footer_path(s) == f"{work} (detached)", "the detached HEAD never showed"
        )

    run_app(tmp_path / "repo", [], scenario, before=_repository)

    async def outside(app: App) -> None:
        assert _footer_path(app.screen()) == str(app.sandbox.work)

    run_app(tmp_path / "plain", [], outside)


def test_a_worktree_shows_its_own_branch(tmp_path: Path) -> None:
    def worktree(sandbox: Sandbox) -> None:
        _repository(sandbox)
        main = sandbox.work.with_name("main")
        sandbox.work.rename(main)
        _git(main, "worktree", "add", "-q", "-b", "topic", str(sandbox.work))

    async def scenario(app: App) -> None:
        work = str(app.sandbox.work)
        await app.wait_until(lambda s: _footer_path(s) == f"{work} (topic)", "no (topic) in the footer")

    run_app(tmp_path, [], scenario, before=worktree)


def test_pi_shows_the_branch_the_same_way(tmp_path: Path) -> None:
    shown = {}
    for which in ("pi", "ours"):
        root = tmp_path / which
        with launch(root, which, [], before=_repository) as run:
            screen = run.pane.wait_until(lambda s: "(master)" in s, "no branch in the footer", 90)
            shown[which] = _footer_path(screen).replace(str(root), "<root>")
    assert shown["ours"] == shown["pi"] == "<root>/work (master)"
