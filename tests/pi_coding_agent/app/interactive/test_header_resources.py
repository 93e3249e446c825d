"""The startup header's resource listing in tmux, ours against Pi's TUI line for line: the
"Pi can explain…" line, ``[Context]`` (the appended system prompt and the ``AGENTS.md`` files,
relative to the working folder when inside it; one per line once Ctrl+O expands it),
``[Skills]``/``[Prompts]`` (grouped by scope once expanded), and ``[Skill conflicts]`` /
``[Prompt conflicts]`` when a ``--skill``/``--prompt-template`` path names a resource already
found: there, with ``quietStartup`` too, instead of as warnings before the UI starts;
``[Themes]`` (the custom ones) and ``[Theme conflicts]`` for a ``--theme`` file with the name
of one in the user's themes folder, and missing ``--theme``/``--prompt-template`` paths; after
``/reload``, the resources found then."""

from __future__ import annotations

import json
import shutil
import tempfile
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._scenario import Run, launch, theme_document
from tests.pi_coding_agent.customize.extensions.test_interactive_header import above_first_rule
from tests.pi_coding_agent.e2e._harness import Sandbox

pytestmark = pytest.mark.timeout(600)

SIDES = ("pi", "ours")
ARGS = ("--skill", "extra/alpha", "--prompt-template", "extra/p/greet.md")


def _skill(folder: Path, name: str, description: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nDo it.\n", encoding="utf-8")


def _resources(sandbox: Sandbox) -> None:
    """Two user skills and a user template, the context files, and a second ``alpha`` skill
    and ``greet`` template under the working folder for the command line to name."""
    agent = sandbox.agent_dir
    (agent / "AGENTS.md").write_text("Global rules.\n", encoding="utf-8")
    (agent / "APPEND_SYSTEM.md").write_text("Appended.\n", encoding="utf-8")
    _skill(agent / "skills" / "alpha", "alpha", "The user's alpha")
    _skill(agent / "skills" / "beta", "beta", "The user's beta")
    (agent / "prompts").mkdir(parents=True, exist_ok=True)
    (agent / "prompts" / "greet.md").write_text("---\ndescription: Greet\n---\nHello\n", encoding="utf-8")
    extra = sandbox.work / "extra"
    _skill(extra / "alpha", "alpha", "Another alpha")
    (extra / "p").mkdir(parents=True)
    (extra / "p" / "greet.md").write_text("---\ndescription: Greet again\n---\nHi\n", encoding="utf-8")


def _themes(sandbox: Sandbox) -> None:
    """``mine`` and ``other`` in the user's themes folder, another ``mine`` in the working one."""
    (sandbox.agent_dir / "themes").mkdir()
    for folder, name in ((sandbox.agent_dir / "themes", "mine"), (sandbox.agent_dir / "themes", "other"),
                         (sandbox.work, "mine")):  # fmt: skip
        (folder / f"{name}.json").write_text(json.dumps(theme_document(name)), encoding="utf-8")


def _launch(
    stack: ExitStack, which: str, settings: dict[str, object] | None = None, themes: bool = False
) -> Run:
    # a short folder: the skipped files are shown by their absolute paths, which must not wrap
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hdr"))) / which
    folder.mkdir()
    if themes:
        return stack.enter_context(launch(folder, which, [], args=("--theme", "mine.json"), before=_themes, height=40))
    files = {"AGENTS.md": "Project rules.\n"}
    return stack.enter_context(
        launch(folder, which, [], args=ARGS, files=files, before=_resources, settings=settings, height=60)
    )


def _block(run: Run, first: str) -> list[str]:
    """From the ``first`` line to the last ``(skipped)`` one, the run's folder as ``ROOT`` and
    the version as ``vX``."""
    root = str(run.sandbox.work.parent)
    lines = [line.rstrip().replace(root, "ROOT") for line in run.pane.history().split("\n")]
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = max(i for i, line in enumerate(lines) if line.endswith("(skipped)"))
    block = lines[start : end + 1]
    block[0] = block[0].split(" v")[0] + " vX" if first == " pi v" else block[0]
    return block


def test_context_skills_prompts_and_conflicts_are_listed_as_pi_lists_them() -> None:
    """Collapsed, then (Ctrl+O, in the same runs) expanded."""
    with ExitStack() as stack:
        runs = {which: _launch(stack, which) for which in SIDES}
        for expanded in (False, True):
            blocks: dict[str, list[str]] = {}
            for which, run in runs.items():
                run.pane.wait_for("[Prompt conflicts]", everywhere=True)
                if expanded:
                    run.pane.send("C-o")
                    run.pane.wait_for("    /greet", everywhere=True)
                run.pane.wait_for("greet.md (skipped)", everywhere=True)
                blocks[which] = _block(run, " pi v")
                assert "collision: " not in run.pane.history()  # no warning before the UI
            assert blocks["ours"] == blocks["pi"]
            _check_context_block(blocks["ours"], expanded)
        for run in runs.values():
            run.quit()


def _check_context_block(ours: list[str], expanded: bool) -> None:
    onboarding = " Pi can explain its own features and look up its docs. Ask it how to use or extend Pi."
    at = ours.index(onboarding)
    assert ours[at + 1 : at + 4] == ["", "", "[Context]"]  # one more blank line above [Context]
    if expanded:
        assert ours[at + 4 : at + 7] == [
            "  ~/.pi/agent/APPEND_SYSTEM.md", "  ~/.pi/agent/AGENTS.md", "  ROOT/work/AGENTS.md"
        ]  # fmt: skip
        skills = ours.index("[Skills]")
        assert ours[skills + 1 : skills + 4] == [
            "  user", "    ~/.pi/agent/skills/alpha/SKILL.md", "    ~/.pi/agent/skills/beta/SKILL.md"
        ]  # fmt: skip
        prompts = ours.index("[Prompts]")
        assert ours[prompts + 1 : prompts + 3] == ["  user", "    /greet"]
    else:
        assert ours[at + 4] == "  ~/.pi/agent/APPEND_SYSTEM.md, ~/.pi/agent/AGENTS.md, AGENTS.md"
        assert ours[ours.index("[Skills]") + 1] == "  alpha, beta"
    conflicts = ours.index("[Skill conflicts]")
    assert ours[conflicts : conflicts + 4] == [
        "[Skill conflicts]", '  "alpha" collision:',
        "    ✓ auto (user) ~/.pi/agent/skills/alpha/SKILL.md",
        "    ✗ ROOT/work/extra/alpha/SKILL.md (skipped)",
    ]  # fmt: skip
    assert ours[-4:] == [
        "[Prompt conflicts]", '  "greet" collision:', "    ✓ auto (user) ~/.pi/agent/prompts/greet.md",
        "    ✗ ROOT/work/extra/p/greet.md (skipped)",
    ]  # fmt: skip


def test_conflicts_are_listed_with_quiet_startup_and_the_rest_is_not() -> None:
    blocks: dict[str, list[str]] = {}
    with ExitStack() as stack:
        runs = {which: _launch(stack, which, {"quietStartup": True}) for which in SIDES}
        for which, run in runs.items():
            run.pane.wait_for("greet.md (skipped)", everywhere=True)
            blocks[which] = _block(run, "[Skill conflicts]")
            history = run.pane.history()
            for absent in ("pi v", "Pi can explain", "[Context]", "[Skills]", "[Prompts]", "collision: "):
                assert absent not in history, (which, absent)
        assert blocks["ours"] == blocks["pi"]
        assert blocks["ours"][4:6] == ["", "[Prompt conflicts]"]
        for run in runs.values():
            run.quit()


def test_custom_themes_and_their_conflicts_are_listed_as_pi_lists_them() -> None:
    """Collapsed, then (Ctrl+O, in the same runs) expanded."""
    with ExitStack() as stack:
        runs = {which: _launch(stack, which, themes=True) for which in SIDES}
        for expanded in (False, True):
            blocks: dict[str, list[str]] = {}
            for which, run in runs.items():
                run.pane.wait_for("mine.json (skipped)", everywhere=True)
                if expanded:
                    run.pane.send("C-o")
                    run.pane.wait_for("    ~/.pi/agent/themes/other.json", everywhere=True)
                blocks[which] = _block(run, " pi v")
                assert "already taken" not in run.pane.history()
            assert blocks["ours"] == blocks["pi"]
            ours = blocks["ours"]
            themes = ours.index("[Themes]")
            listed = ["  user", "    ~/.pi/agent/themes/mine.json", "    ~/.pi/agent/themes/other.json"]
            assert ours[themes + 1 :] == [
                *(listed if expanded else ["  mine, other"]), "", "[Theme conflicts]", '  "mine" collision:',
                "    ✓ auto (user) ~/.pi/agent/themes/mine.json", "    ✗ ROOT/work/mine.json (skipped)",
            ]  # fmt: skip
        for run in runs.values():
            run.quit()


def test_reload_lists_the_resources_found_then(tmp_path: Path) -> None:
    """After ``/reload`` the listing is the new one: a context file added, the conflict gone with
    the user's ``alpha`` (the command line's is then the one listed)."""
    screens: dict[str, list[str]] = {}
    with ExitStack() as stack:
        runs = {which: _launch(stack, which) for which in SIDES}
        for run in runs.values():
            run.pane.wait_for("greet.md (skipped)", everywhere=True)
            shutil.rmtree(run.sandbox.agent_dir / "skills" / "alpha")
            (run.sandbox.agent_dir / "AGENTS.md").unlink()
            run.submit("/reload")
        for which, run in runs.items():
            run.pane.wait_for("Reloaded keybindings")
            root = str(run.sandbox.work.parent)
            screens[which] = [line.replace(root, "ROOT") for line in above_first_rule(run.pane.screen())]
            screens[which] = screens[which][2 : screens[which].index("[Prompt conflicts]") + 4]
        assert screens["ours"] == screens["pi"]
        ours = screens["ours"]
        assert ours[ours.index("[Context]") + 1] == "  ~/.pi/agent/APPEND_SYSTEM.md, AGENTS.md"
        assert ours[ours.index("[Skills]") + 1] == "  alpha, beta"
        assert "[Skill conflicts]" not in ours
        for run in runs.values():
            run.quit()


def test_missing_theme_and_template_paths_are_listed_as_pi_lists_them() -> None:
    blocks: dict[str, list[str]] = {}
    with ExitStack() as stack:
        for which in SIDES:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hdr"))) / which
            folder.mkdir()
            run = stack.enter_context(
                launch(folder, which, [], args=("--theme", "gone.json", "--prompt-template", "gone.md"))
            )
            run.pane.wait_for("[Theme conflicts]", everywhere=True)
            root = str(run.sandbox.work.parent)
            lines = [line.rstrip().replace(root, "ROOT") for line in run.pane.history().split("\n")]
            start = lines.index("[Prompt conflicts]")
            blocks[which] = lines[start : start + 7]
            assert "Warning:" not in run.pane.history().split("[Prompt conflicts]")[0], which
            run.quit()
    assert blocks["ours"] == blocks["pi"]
    assert blocks["ours"] == [
        "[Prompt conflicts]", "  ROOT/work/gone.md", "    Prompt template path does not exist", "",
        "[Theme conflicts]", "  ROOT/work/gone.json", "    theme path does not exist",
    ]  # fmt: skip


def test_expanded_skills_and_prompts_are_grouped_project_user_then_path() -> None:
    """A trusted project's skill and template, the user's, and a ``--skill`` one: grouped in
    Pi's order, each group sorted by path."""

    def project(sandbox: Sandbox) -> None:
        _resources(sandbox)
        _skill(sandbox.work / ".pi" / "skills" / "gamma", "gamma", "The project's gamma")
        (sandbox.work / ".pi" / "prompts").mkdir(parents=True)
        (sandbox.work / ".pi" / "prompts" / "plan.md").write_text("Plan it\n", encoding="utf-8")
        _skill(sandbox.work / "solo" / "delta", "delta", "A path's delta")

    sections: dict[str, list[str]] = {}
    with ExitStack() as stack:
        for which in SIDES:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hdr"))) / which
            folder.mkdir()
            settings = {"defaultProjectTrust": "always"}
            args = ("--skill", "solo/delta", "--verbose")
            run = stack.enter_context(launch(folder, which, [], args=args, before=project, settings=settings, height=60))
            run.pane.wait_for("    /plan", everywhere=True)
            root = str(run.sandbox.work.parent)
            lines = [line.rstrip().replace(root, "ROOT") for line in run.pane.history().split("\n")]
            start = lines.index("[Skills]")
            sections[which] = lines[start : lines.index("", lines.index("[Prompts]"))]
            run.quit()
    assert sections["ours"] == sections["pi"]
    assert sections["ours"] == [
        "[Skills]", "  project", "    ROOT/work/.pi/skills/gamma/SKILL.md",
        "  user", "    ~/.pi/agent/skills/alpha/SKILL.md", "    ~/.pi/agent/skills/beta/SKILL.md",
        "  path", "    ROOT/work/solo/delta/SKILL.md", "",
        "[Prompts]", "  project", "    /plan", "  user", "    /greet",
    ]  # fmt: skip
