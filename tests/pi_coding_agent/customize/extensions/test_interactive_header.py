"""The header of the interactive UI with extensions, and an extension command during a
compaction: Pi's TUI with the TypeScript fixtures and ours with the Python ones, in tmux,
against a scripted provider on 127.0.0.1.

* ``[Extensions]`` (names, then paths by scope once Ctrl+O expands it) and
  ``[Extension issues]``: shortcut conflicts (a reserved key, another built-in key, two
  extensions on one key) and a command with a built-in's name, listed under the header in
  Pi's words, with ``quietStartup`` too; the keys then do what the block says.
* ``ctx.ui.set_header``: in the built-in header's place, the resource listing below it; with
  ``quietStartup`` the first thing on the screen, and putting the built-in one back leaves
  nothing there.
* An extension command typed while ``/compact`` waits for its summary runs at once (with
  Enter and with Alt+Enter), while a plain message waits for the compaction.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import Run, launch
from tests.pi_coding_agent.customize.extensions._support import FIXTURES
from tests.support.scripted_provider import ScriptedProvider, Turn

pytestmark = pytest.mark.timeout(600)

SIDES = (("pi", ".ts"), ("ours", ".py"))


def _fixtures(suffix: str, *names: str) -> tuple[str, ...]:
    return tuple(part for name in names for part in ("-e", str(FIXTURES / f"{name}{suffix}")))


def section(run: Run, heading: str, suffix: str) -> list[str]:
    """The last ``heading`` section's lines up to the blank line after it, with the fixture's
    file suffix made neutral (``.ts``/``.py``)."""
    lines = [line.rstrip() for line in run.pane.history().split("\n")]
    first = max(i for i, line in enumerate(lines) if line == heading)
    last = next(i for i in range(first, len(lines)) if not lines[i])
    return [line.replace(suffix, ".EXT") for line in lines[first:last]]


def issues_block(run: Run, suffix: str) -> list[str]:
    return section(run, "[Extension issues]", suffix)


def above_first_rule(screen: str) -> list[str]:
    lines = [line.rstrip() for line in screen.split("\n")]
    return lines[: next(i for i, line in enumerate(lines) if line.startswith("──"))]


@pytest.mark.parametrize("quiet", [False, True], ids=["header", "quietStartup"])
def test_extension_issues_are_listed_under_the_header_as_pi_lists_them(tmp_path: Path, quiet: bool) -> None:
    runs: dict[str, Run] = {}
    blocks: dict[str, list[str]] = {}
    with ExitStack() as stack:
        for which, suffix in SIDES:
            folder = tmp_path / which
            folder.mkdir()
            args = _fixtures(suffix, "shortcut_issues", "shortcut_twin")
            settings = {"quietStartup": quiet}
            runs[which] = stack.enter_context(launch(folder, which, [], args=args, settings=settings, height=50))
        for which, suffix in SIDES:
            run = runs[which]
            run.pane.wait_for("[Extension issues]", everywhere=True)
            run.pane.wait_for("registered by both", everywhere=True)
            blocks[which] = issues_block(run, suffix)
            assert ("pi v" in run.pane.history()) is not quiet
            assert "Warning: Extension shortcut" not in run.pane.history()
        assert blocks["ours"] == blocks["pi"]
        text = " ".join(" ".join(blocks["ours"]).split())  # the messages wrap at the terminal's width
        for said in ("Extension shortcut 'ctrl+c' from", "conflicts with built-in shortcut. Skipping.",
                     "'ctrl+v' is built-in shortcut for app.clipboard.pasteImage and",
                     "'alt+j' registered by both", "Extension command '/model' conflicts with built-in interactive command"):  # fmt: skip
            assert said in text, said
        assert text.count("path (temp) ") == 4  # each issue names its -e extension so
        if not quiet:  # the [Extensions] listing above the block: names, then (Ctrl+O) paths by scope
            assert section(runs["ours"], "[Extensions]", ".py") == section(runs["pi"], "[Extensions]", ".ts")
            assert section(runs["ours"], "[Extensions]", ".py")[1] == "  shortcut_issues.EXT, shortcut_twin.EXT"
            for run in runs.values():
                run.pane.send("C-o")
                run.pane.wait_for("Tool output: expanded")
            expanded = {which: section(run, "[Extensions]", suffix) for (which, suffix), run in zip(SIDES, runs.values(), strict=True)}
            assert expanded["ours"] == expanded["pi"]
            assert expanded["ours"][1:3] == ["  path", f"    {FIXTURES}/shortcut_issues.EXT"]
            assert issues_block(runs["ours"], ".py") == blocks["ours"]  # unchanged once expanded
        # the keys do what the block says: ctrl+c stays the editor's, the others are the extensions'
        for run in runs.values():
            run.pane.type("typed text")
            run.pane.wait_for("typed text", region="editor")
            run.pane.send("C-c")
            run.pane.wait_until(lambda s, run=run: "typed text" not in run.editor_text(s), "ctrl+c did not clear")
            run.pane.send("C-v")
            run.pane.wait_for("ISSUES ctrl+v ran")
            run.pane.send("M-j")
            run.pane.wait_for("TWIN alt+j second")
            assert "ISSUES alt+j first" not in run.pane.screen() and "ISSUES ctrl+c ran" not in run.pane.screen()
        for run in runs.values():
            run.quit()


@pytest.mark.parametrize("quiet", [False, True], ids=["header", "quietStartup"])
def test_an_extension_header_with_and_without_quiet_startup_is_pis(tmp_path: Path, quiet: bool) -> None:
    runs: dict[str, Run] = {}
    with ExitStack() as stack:
        for which, suffix in SIDES:
            folder = tmp_path / which
            folder.mkdir()
            args = _fixtures(suffix, "header_ping")
            runs[which] = stack.enter_context(launch(folder, which, [], args=args, settings={"quietStartup": quiet}))
        tops = {}
        for (which, suffix), run in zip(SIDES, runs.values(), strict=True):
            run.pane.wait_for("PAIR-HEADER second")
            tops[which] = [line.replace(suffix, ".EXT") for line in above_first_rule(run.pane.screen())]
        if quiet:  # in the quiet header's place: nothing around it, no listing
            assert tops["ours"][:2] == tops["pi"][:2] == ["PAIR-HEADER top", "PAIR-HEADER second"]
        else:  # in the built-in header's place, the listing below it
            expected = ["", "PAIR-HEADER top", "PAIR-HEADER second", "", "[Extensions]", "  header_ping.EXT", ""]
            assert tops["ours"][:7] == tops["pi"][:7] == expected
        assert not any("pi v" in line for top in tops.values() for line in top)
        for run in runs.values():
            run.command("/plainheader")
            run.pane.wait_for("header restored")
        for which, run in runs.items():  # the built-in header is back: Pi's, or the quiet one (nothing)
            top = above_first_rule(run.pane.screen())
            assert "PAIR-HEADER top" not in run.pane.screen(), which
            assert any(line.startswith(" pi v") for line in top) is not quiet, which
        for run in runs.values():
            run.quit()


def _held_summaries(gate: threading.Event, arrived: threading.Event) -> Any:
    """A provider route that holds each compaction summary request (``arrived`` says one came)
    until ``gate`` is set; the provider records a request once its route lets it through."""
    turns: list[Turn] = [{"text": "first answer"}, {"text": "after the compaction"}]

    def route(body: dict[str, Any]) -> tuple[str, list[Turn]]:
        if ScriptedProvider._is_summary_request(body):
            arrived.set()
            gate.wait(120)
        return "", turns

    return route


@pytest.mark.parametrize("which", ["ours", "pi"])
def test_an_extension_command_runs_at_once_during_a_compaction(tmp_path: Path, which: str) -> None:
    gate, arrived = threading.Event(), threading.Event()
    suffix = dict(SIDES)[which]
    args = _fixtures(suffix, "header_ping")
    settings = {"compaction": {"keepRecentTokens": 1}}
    try:
        with launch(tmp_path, which, [], args=args, settings=settings, summary="SHORT SUMMARY",
                    route=_held_summaries(gate, arrived), height=40) as run:  # fmt: skip
            run.submit("hello there")
            run.pane.wait_for("first answer")
            run.command("/compact")
            run.pane.wait_for("Compacting context")
            run.pane.wait_until(lambda _: arrived.is_set(), "no summary request")
            run.submit("plain words")  # a message waits for the compaction
            run.pane.wait_for("Queued message for after compaction")
            run.submit("/ping with enter")
            run.pane.wait_for("PING-RAN with enter")
            run.submit("/ping with alt", key="M-Enter")
            run.pane.wait_for("PING-RAN with alt")
            assert "Compacting context" in run.pane.screen()  # still waiting for its summary
            assert len(run.provider.requests) == 1  # the first answer; the summary request is held
            gate.set()
            run.pane.wait_for("after the compaction")
            last = run.provider.requests[-1]["body"]
            assert "plain words" in str(last["messages"]) and "/ping" not in str(last["messages"])
            run.quit()
    finally:
        gate.set()


def test_the_resource_listing_under_an_extension_header_is_pis(tmp_path: Path) -> None:
    """A skill, a prompt template and an extension: the sections in Pi's order, at Pi's column,
    under the extension's header."""
    skill = tmp_path / "skills" / "demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo skill\n---\nDo it.\n", encoding="utf-8")
    prompt = tmp_path / "prompts" / "review.md"
    prompt.parent.mkdir()
    prompt.write_text("---\ndescription: Review things\n---\nReview $1\n", encoding="utf-8")
    runs: dict[str, Run] = {}
    with ExitStack() as stack:
        for which, suffix in SIDES:
            folder = tmp_path / which
            folder.mkdir()
            args = ("--skill", str(skill), "--prompt-template", str(prompt), *_fixtures(suffix, "header_ping"))
            runs[which] = stack.enter_context(launch(folder, which, [], args=args))
        tops = {}
        for (which, suffix), run in zip(SIDES, runs.values(), strict=True):
            run.pane.wait_for("[Extensions]")
            tops[which] = [line.replace(suffix, ".EXT") for line in above_first_rule(run.pane.screen())][:11]
        assert tops["ours"] == tops["pi"]
        assert tops["ours"][4:11] == ["[Skills]", "  demo-skill", "", "[Prompts]", "  /review", "", "[Extensions]"]
        for run in runs.values():
            run.quit()
