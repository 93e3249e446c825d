"""The startup question in a project with ``.pi`` resources: "Trust project folder?" with
Pi's five answers. What each answer saves in ``trust.json`` (the file Pi shares) and how the
project then loads in the same run (its prompt template listed, or the untrusted warning);
ours in-process for every answer, and once beside Pi's own TUI in tmux."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app
from tests.pi_coding_agent.app.interactive._scenario import launch
from tests.pi_coding_agent.e2e._harness import Sandbox

pytestmark = pytest.mark.timeout(600)

UNTRUSTED_WARNING = "This project is not trusted."
ANSWERS = [
    "Trust",
    "Trust parent folder",
    "Trust (this session only)",
    "Do not trust",
    "Do not trust (this session only)",
]


def _project(sandbox: Sandbox) -> None:
    prompts = sandbox.work / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "hello.md").write_text("---\ndescription: say hi\n---\nSay hi", encoding="utf-8")


def _trust_file(sandbox: Sandbox) -> dict[str, bool] | None:
    path = sandbox.agent_dir / "trust.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _answer(presses: int) -> object:
    async def choose(app: App) -> None:
        await app.wait_for("Trust project folder?")
        for _ in range(presses):
            await app.send("Down")
        await app.send("Enter")

    return choose


async def _look(app: App) -> None:
    await app.wait_for("scripted-model")


@pytest.mark.parametrize("answer", range(len(ANSWERS)), ids=ANSWERS)
def test_each_answer_is_saved_as_pi_saves_it_and_the_project_loads_at_once(
    tmp_path: Path, answer: int
) -> None:
    app = run_app(tmp_path, [], _look, before=_project, startup=_answer(answer))  # type: ignore[arg-type]
    work = os.path.realpath(app.sandbox.work)
    trusted = answer < 3
    expected = [
        {work: True},
        {os.path.dirname(work): True},
        None,
        {work: False},
        None,
    ][answer]
    assert _trust_file(app.sandbox) == expected
    screen = app.history()
    assert ("/hello" in screen) is trusted
    assert (UNTRUSTED_WARNING in screen) is not trusted


def test_the_dialog_shows_pi_s_question_and_escape_trusts_nothing(tmp_path: Path) -> None:
    shown: list[str] = []

    async def dismiss(app: App) -> None:
        shown.append(await app.wait_for("escape/ctrl+c cancel"))
        await app.send("Escape")

    app = run_app(tmp_path, [], _look, before=_project, startup=dismiss)
    work = str(app.sandbox.work)
    lines = [line.strip() for line in shown[0].splitlines() if line.strip() and not line.startswith("──")]
    assert lines == [
        "Trust project folder?",
        work,
        "This allows pi to load .pi settings and resources, install missing project packages, and execute",
        "project extensions.",
        "→ Trust",
        f"Trust parent folder ({os.path.dirname(os.path.realpath(work))})",
        "Trust (this session only)",
        "Do not trust",
        "Do not trust (this session only)",
        "↑↓ navigate  enter select  escape/ctrl+c cancel",
    ]
    assert _trust_file(app.sandbox) is None
    assert UNTRUSTED_WARNING in app.history() and "/hello" not in app.history()


def test_a_saved_decision_or_the_default_trust_asks_nothing(tmp_path: Path) -> None:
    """A parent folder's saved decision applies below it; ``defaultProjectTrust`` decides when
    nothing is saved (the harness fails on any startup dialog here)."""

    def trusted_parent(sandbox: Sandbox) -> None:
        _project(sandbox)
        parent = os.path.dirname(os.path.realpath(sandbox.work))
        (sandbox.agent_dir / "trust.json").write_text(json.dumps({parent: True}), encoding="utf-8")

    assert "/hello" in run_app(tmp_path / "a", [], _look, before=trusted_parent).history()
    never = run_app(tmp_path / "b", [], _look, before=_project, settings={"defaultProjectTrust": "never"})
    assert UNTRUSTED_WARNING in never.history()
    always = run_app(tmp_path / "c", [], _look, before=_project, settings={"defaultProjectTrust": "always"})
    assert "/hello" in always.history() and _trust_file(always.sandbox) is None


def test_pi_asks_the_same_question_and_we_read_its_answer(tmp_path: Path) -> None:
    """Pi's TUI and ours show the same dialog; "Trust parent folder" writes the same
    ``trust.json``, and ours, started below the folder Pi trusted with Pi's file, asks nothing."""
    screens: dict[str, list[str]] = {}
    files: dict[str, str] = {}
    # Folder names of one length: the parent folder's path is in an option, and a long
    # temporary path wraps it, alike on both sides only if both paths are as long.
    folder = {"pi": "pi", "ours": "us"}
    for which in ("pi", "ours"):
        root = tmp_path / folder[which]
        with launch(root, which, [], ready=None, probe=False, before=_project) as run:
            screen = run.pane.wait_for("escape/ctrl+c cancel", limit=90)
            screens[which] = [line.replace(str(root), "<root>").rstrip() for line in screen.splitlines()]
            run.pane.send("Down")
            run.pane.send("Enter")
            shown = run.pane.wait_for("/hello", limit=90)
            assert UNTRUSTED_WARNING not in shown
            files[which] = (run.sandbox.agent_dir / "trust.json").read_text(encoding="utf-8")
    assert screens["ours"] == screens["pi"]
    pi_file = files["pi"]
    assert files["ours"].replace(os.path.realpath(tmp_path / "us"), "<root>") == pi_file.replace(
        os.path.realpath(tmp_path / "pi"), "<root>"
    )
    assert json.loads(pi_file) == {os.path.realpath(tmp_path / "pi"): True}

    def with_pis_decision(sandbox: Sandbox) -> None:
        _project(sandbox)
        (sandbox.agent_dir / "trust.json").write_text(pi_file, encoding="utf-8")

    below = run_app(tmp_path / "pi" / "below", [], _look, before=with_pis_decision)
    assert "/hello" in below.history()
