"""Project trust during a run, as Pi 1.6 decides it: ``/resume`` into another project's folder
that needs trust asks "Trust project folder?" inside the terminal UI with Pi's five answers,
saves the answer as the startup prompt does, and that project's resources load (or are
ignored) for the resumed session; and ``/reload`` saves the trust of a folder whose ``.pi``
resources appeared during the run. In-process, with real files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_coding_agent.core.session import encode_cwd
from tests.pi_coding_agent.app.interactive._inprocess import App, run_app
from tests.pi_coding_agent.app.interactive._scenario import launch
from tests.pi_coding_agent.e2e._harness import Sandbox

pytestmark = pytest.mark.timeout(300)

UNTRUSTED_WARNING = "This project is not trusted."
RELOADED = "Reloaded keybindings, extensions, skills, prompts, themes, and context files"


def _hello_template(folder: Path) -> None:
    prompts = folder / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "hello.md").write_text(
        "---\ndescription: say hi\n---\nSay hi from the template", encoding="utf-8"
    )


def _other_project(sandbox: Sandbox) -> None:
    """A second project with a prompt template, and a session of it to resume."""
    other = sandbox.root / "other"
    _hello_template(other)
    folder = sandbox.agent_dir / "sessions" / encode_cwd(str(other))
    folder.mkdir(parents=True)
    header = {"type": "session", "version": 3, "id": "0198aaaa-0000-7000-8000-000000000001",
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(other)}  # fmt: skip
    message = {"type": "message", "id": "a0000001", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
               "message": {"role": "user", "content": [{"type": "text", "text": "question in other"}],
                           "timestamp": 1767225601000}}  # fmt: skip
    lines = [json.dumps(header), json.dumps(message)]
    (folder / "2026-01-01T00-00-00-000Z_0198aaaa.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _trust_file(sandbox: Sandbox) -> dict[str, bool] | None:
    path = sandbox.agent_dir / "trust.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _sent_texts(app: App) -> str:
    return json.dumps([request["body"].get("messages") for request in app.provider.requests])


async def _resume_other(app: App) -> str:
    await app.command("/resume")
    await app.wait_for("Resume Session")
    await app.send("Tab")
    await app.wait_for("question in other")
    await app.send("Enter")
    return await app.wait_for("Trust project folder?")


@pytest.mark.parametrize(
    ("presses", "saved", "trusted"),
    [(0, "other", True), (2, None, True), (3, "other-false", False), (4, None, False)],
    ids=["trust", "this-session-only", "do-not-trust", "do-not-trust-this-session"],
)
def test_resume_into_a_project_asks_its_trust_and_loads_it_accordingly(
    tmp_path: Path, presses: int, saved: str | None, trusted: bool
) -> None:
    shown: list[str] = []

    async def scenario(app: App) -> None:
        shown.append(await _resume_other(app))
        await app.send(*["Down"] * presses, "Enter")
        screen = await app.wait_for("Resumed session")
        assert (UNTRUSTED_WARNING in screen) is not trusted
        await app.submit("/hello")
        await app.wait_for("answer")
        await app.quit()

    app = run_app(tmp_path, [{"text": "answer"}], scenario, before=_other_project)
    other = os.path.realpath(app.sandbox.root / "other")
    lines = [
        line.strip() for line in shown[0].split("Trust project folder?")[-1].splitlines() if line.strip()
    ]
    assert lines[:1] == [str(app.sandbox.root / "other")]
    assert [line.removeprefix("→ ") for line in lines if "rust" in line][-5:] == [
        "Trust", f"Trust parent folder ({os.path.dirname(other)})", "Trust (this session only)",
        "Do not trust", "Do not trust (this session only)",
    ]  # fmt: skip
    expected = {"other": {other: True}, "other-false": {other: False}, None: None}[saved]
    assert _trust_file(app.sandbox) == expected
    assert ("Say hi from the template" in _sent_texts(app)) is trusted


def test_a_saved_decision_asks_nothing_on_resume(tmp_path: Path) -> None:
    def decided(sandbox: Sandbox) -> None:
        _other_project(sandbox)
        other = os.path.realpath(sandbox.root / "other")
        (sandbox.agent_dir / "trust.json").write_text(json.dumps({other: False}), encoding="utf-8")

    async def scenario(app: App) -> None:
        await app.command("/resume")
        await app.wait_for("Resume Session")
        await app.send("Tab")
        await app.wait_for("question in other")
        await app.send("Enter")
        screen = await app.wait_for("Resumed session")
        assert "Trust project folder?" not in screen and UNTRUSTED_WARNING in screen
        await app.quit()

    run_app(tmp_path, [], scenario, before=decided)


def test_reload_saves_the_trust_of_a_folder_whose_pi_resources_appeared(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        _hello_template(app.sandbox.work)
        await app.command("/reload")
        await app.wait_for(f"{RELOADED}; saved project trust")
        await app.submit("/hello")
        await app.wait_for("answer")
        await app.command("/reload")  # saved once: the second reload says nothing of trust
        screen = await app.wait_until(
            lambda s: RELOADED in s.split("answer")[-1], "the second reload's status"
        )
        assert "saved project trust" not in screen.split("answer")[-1]
        await app.quit()

    app = run_app(tmp_path, [{"text": "answer"}], scenario)
    assert _trust_file(app.sandbox) == {os.path.realpath(app.sandbox.work): True}
    assert "Say hi from the template" in _sent_texts(app)


def test_reload_saves_nothing_when_a_decision_is_saved_or_given_on_the_command_line(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        _hello_template(app.sandbox.work)
        await app.command("/reload")
        screen = await app.wait_for(RELOADED)
        assert "saved project trust" not in screen
        await app.quit()

    approved = run_app(tmp_path / "a", [], scenario, args=("--approve",))
    assert _trust_file(approved.sandbox) is None

    def parent_trusted(sandbox: Sandbox) -> None:
        parent = os.path.dirname(os.path.realpath(sandbox.work))
        (sandbox.agent_dir / "trust.json").write_text(json.dumps({parent: True}), encoding="utf-8")

    saved = run_app(tmp_path / "b", [], scenario, before=parent_trusted)
    assert _trust_file(saved.sandbox) == {os.path.dirname(os.path.realpath(saved.sandbox.work)): True}


def test_resume_asks_the_same_question_as_pi_16_and_saves_the_same_file(tmp_path: Path) -> None:
    """Both in tmux: the dialog on ``/resume`` into the other project, line for line; "Trust
    parent folder" writes the same ``trust.json``; the project's template is listed after."""
    dialogs: dict[str, list[str]] = {}
    files: dict[str, dict[str, bool]] = {}
    for which in ("pi16", "ours"):
        root = tmp_path / which
        with launch(root, which, [], before=_other_project) as run:
            run.pane.type("/resume")
            run.pane.send("Enter")
            run.pane.wait_for("Resume Session")
            run.pane.send("Tab")
            run.pane.wait_for("question in oth")  # the long path shortens the title
            run.pane.send("Enter")
            screen = run.pane.wait_for("escape/ctrl+c cancel", limit=60)
            lines = [line.rstrip().replace(str(root), "<root>") for line in screen.splitlines()]
            start = next(i for i, line in enumerate(lines) if "Trust project folder?" in line)
            end = next(i for i in range(start, len(lines)) if "escape/ctrl+c cancel" in lines[i])
            dialogs[which] = lines[start : end + 1]
            run.pane.send("Down", "Enter")
            shown = run.pane.wait_for("Resumed session", limit=60)
            assert "/hello" in shown and UNTRUSTED_WARNING not in shown
            saved = json.loads((run.sandbox.agent_dir / "trust.json").read_text(encoding="utf-8"))
            files[which] = {
                key.replace(os.path.realpath(root), "<root>"): value for key, value in saved.items()
            }
    assert dialogs["ours"] == dialogs["pi16"]
    assert dialogs["pi16"][:2] == [" Trust project folder?", " <root>/other"]
    assert files["ours"] == files["pi16"] == {"<root>": True}
