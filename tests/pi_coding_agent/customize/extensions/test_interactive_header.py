"""The header of the interactive UI with extensions, and an extension command during a
compaction: Pi's TUI with the TypeScript fixtures in tmux and ours with the Python ones
in-process on a virtual terminal (``main`` with ``-e``), one scenario played on each, against
a scripted provider on 127.0.0.1.

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
from collections.abc import Callable, Coroutine
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._tmux import editor_text
from tests.pi_coding_agent.customize.extensions._support import FIXTURES
from tests.support.scripted_provider import ScriptedProvider, Turn

# Pi's TUI alone takes seconds to start on a loaded machine (the suite-wide limit is 120 s).
pytestmark = pytest.mark.timeout(600)

SIDES = (("pi", ".ts"), ("ours", ".py"))
Seen = dict[str, Any]


def _fixtures(suffix: str, *names: str) -> tuple[str, ...]:
    return tuple(part for name in names for part in ("-e", str(FIXTURES / f"{name}{suffix}")))


def _each_side(tmp_path: Path, scenario: Callable[[Driven, str, Seen], Coroutine[Any, Any, None]],
               *names: str, extra: tuple[str, ...] = (), **options: Any) -> dict[str, Seen]:  # fmt: skip
    """``scenario(app, suffix, seen)`` played on Pi's TUI with the ``names`` fixtures in
    TypeScript and on ours with them in Python, each in a folder of its own; what each side
    saw."""
    seen: dict[str, Seen] = {}
    for which, suffix in SIDES:
        folder = tmp_path / which
        folder.mkdir()
        seen[which] = {}
        args = (*extra, *_fixtures(suffix, *names))
        play(folder, which, [], partial(scenario, suffix=suffix, seen=seen[which]), args=args, **options)
    return seen


def section(history: str, heading: str, suffix: str) -> list[str]:
    """The last ``heading`` section's lines up to the blank line after it, with the fixture's
    file suffix made neutral (``.ts``/``.py``)."""
    lines = [line.rstrip() for line in history.split("\n")]
    first = max(i for i, line in enumerate(lines) if line == heading)
    last = next(i for i in range(first, len(lines)) if not lines[i])
    return [line.replace(suffix, ".EXT") for line in lines[first:last]]


def above_first_rule(screen: str) -> list[str]:
    lines = [line.rstrip() for line in screen.split("\n")]
    return lines[: next(i for i, line in enumerate(lines) if line.startswith("──"))]


async def _issues(app: Driven, quiet: bool, suffix: str, seen: Seen) -> None:
    await app.wait_for("[Extension issues]", everywhere=True)
    history = await app.wait_for("registered by both", everywhere=True)
    seen["issues"] = section(history, "[Extension issues]", suffix)
    assert ("pi v" in history) is not quiet
    assert "Warning: Extension shortcut" not in history
    if not quiet:  # the [Extensions] listing above the block: names, then (Ctrl+O) paths by scope
        seen["extensions"] = section(history, "[Extensions]", suffix)
        await app.send("C-o")
        await app.wait_for("Tool output: expanded")
        seen["expanded"] = section(app.history(), "[Extensions]", suffix)
        assert section(app.history(), "[Extension issues]", suffix) == seen["issues"]  # unchanged once expanded
    # the keys do what the block says: ctrl+c stays the editor's, the others are the extensions'
    await app.type("typed text")
    await app.wait_for("typed text", region="editor")
    await app.send("C-c")
    await app.wait_until(lambda s: "typed text" not in editor_text(s), "ctrl+c did not clear")
    await app.send("C-v")
    await app.wait_for("ISSUES ctrl+v ran")
    await app.send("M-j")
    screen = await app.wait_for("TWIN alt+j second")
    assert "ISSUES alt+j first" not in screen and "ISSUES ctrl+c ran" not in screen
    await app.quit()


@pytest.mark.parametrize("quiet", [False, True], ids=["header", "quietStartup"])
def test_extension_issues_are_listed_under_the_header_as_pi_lists_them(tmp_path: Path, quiet: bool) -> None:
    seen = _each_side(tmp_path, partial(_issues, quiet=quiet), "shortcut_issues", "shortcut_twin",
                      settings={"quietStartup": quiet}, height=50)  # fmt: skip
    assert seen["ours"] == seen["pi"]
    text = " ".join(" ".join(seen["ours"]["issues"]).split())  # the messages wrap at the terminal's width
    for said in ("Extension shortcut 'ctrl+c' from", "conflicts with built-in shortcut. Skipping.",
                 "'ctrl+v' is built-in shortcut for app.clipboard.pasteImage and",
                 "'alt+j' registered by both", "Extension command '/model' conflicts with built-in interactive command"):  # fmt: skip
        assert said in text, said
    assert text.count("path (temp) ") == 4  # each issue names its -e extension so
    if not quiet:
        assert seen["ours"]["extensions"][1] == "  shortcut_issues.EXT, shortcut_twin.EXT"
        assert seen["ours"]["expanded"][1:3] == ["  path", f"    {FIXTURES}/shortcut_issues.EXT"]


async def _header(app: Driven, quiet: bool, suffix: str, seen: Seen) -> None:
    screen = await app.wait_for("PAIR-HEADER second")
    seen["top"] = [line.replace(suffix, ".EXT") for line in above_first_rule(screen)]
    assert not any("pi v" in line for line in seen["top"])
    await app.command("/plainheader")
    screen = await app.wait_for("header restored")
    # the built-in header is back: Pi's, or the quiet one (nothing)
    assert "PAIR-HEADER top" not in screen
    assert any(line.startswith(" pi v") for line in above_first_rule(screen)) is not quiet
    await app.quit()


@pytest.mark.parametrize("quiet", [False, True], ids=["header", "quietStartup"])
def test_an_extension_header_with_and_without_quiet_startup_is_pis(tmp_path: Path, quiet: bool) -> None:
    seen = _each_side(tmp_path, partial(_header, quiet=quiet), "header_ping", settings={"quietStartup": quiet})
    tops = {which: seen[which]["top"] for which in seen}
    if quiet:  # in the quiet header's place: nothing around it, no listing
        assert tops["ours"][:2] == tops["pi"][:2] == ["PAIR-HEADER top", "PAIR-HEADER second"]
    else:  # in the built-in header's place, the listing below it
        expected = ["", "PAIR-HEADER top", "PAIR-HEADER second", "", "[Extensions]", "  header_ping.EXT", ""]
        assert tops["ours"][:7] == tops["pi"][:7] == expected


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


async def _compaction(app: Driven, arrived: threading.Event, gate: threading.Event) -> None:
    await app.submit("hello there")
    await app.wait_for("first answer")
    await app.wait_until_gone("Working")  # the run is over: /compact does not abort it
    await app.command("/compact")
    await app.wait_for("Compacting context")
    await app.wait_until(lambda _: arrived.is_set(), "no summary request")
    await app.submit("plain words")  # a message waits for the compaction
    await app.wait_for("Queued message for after compaction")
    await app.submit("/ping with enter")
    await app.wait_for("PING-RAN with enter")
    await app.submit("/ping with alt", key="M-Enter")
    screen = await app.wait_for("PING-RAN with alt")
    assert "Compacting context" in screen  # still waiting for its summary
    assert len(app.provider.requests) == 1  # the first answer; the summary request is held
    gate.set()
    await app.wait_for("after the compaction")
    last = app.provider.requests[-1]["body"]
    assert "plain words" in str(last["messages"]) and "/ping" not in str(last["messages"])
    await app.quit()


@pytest.mark.parametrize("which", ["ours", "pi"])
def test_an_extension_command_runs_at_once_during_a_compaction(tmp_path: Path, which: str) -> None:
    gate, arrived = threading.Event(), threading.Event()
    args = _fixtures(dict(SIDES)[which], "header_ping")
    settings = {"compaction": {"keepRecentTokens": 1}}
    try:
        play(tmp_path, which, [], partial(_compaction, arrived=arrived, gate=gate), args=args, settings=settings,
             summary="SHORT SUMMARY", route=_held_summaries(gate, arrived), height=40)  # fmt: skip
    finally:
        gate.set()


async def _listing(app: Driven, suffix: str, seen: Seen) -> None:
    screen = await app.wait_for("[Extensions]")
    seen["top"] = [line.replace(suffix, ".EXT") for line in above_first_rule(screen)][:11]
    await app.quit()


def test_the_resource_listing_under_an_extension_header_is_pis(tmp_path: Path) -> None:
    """A skill, a prompt template and an extension: the sections in Pi's order, at Pi's column,
    under the extension's header."""
    skill = tmp_path / "skills" / "demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo skill\n---\nDo it.\n", encoding="utf-8")
    prompt = tmp_path / "prompts" / "review.md"
    prompt.parent.mkdir()
    prompt.write_text("---\ndescription: Review things\n---\nReview $1\n", encoding="utf-8")
    extra = ("--skill", str(skill), "--prompt-template", str(prompt))
    seen = _each_side(tmp_path, _listing, "header_ping", extra=extra)
    assert seen["ours"]["top"] == seen["pi"]["top"]
    assert seen["ours"]["top"][4:11] == ["[Skills]", "  demo-skill", "", "[Prompts]", "  /review", "", "[Extensions]"]
