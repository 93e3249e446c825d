"""Extensions in the interactive UI: our ``pi`` in-process on a virtual terminal (``main``
with ``-e``, loading the extensions from their files as the command does) against a
scripted provider on 127.0.0.1, with the fixture ``tui_showcase.py`` (every ``ctx.ui`` call)
and the examples (permission gate, plan mode, the todo tool's renderer, the notification
role); and one scenario played on Pi 0.85's own TUI in tmux too, screens compared."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app
from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._scenario import pi_reads_the_same
from tests.pi_coding_agent.customize.extensions._support import EXAMPLES, FIXTURES, records, user_texts

READ_ONLY_TOOLS = {"read", "grep", "find", "ls"}

# Pi's TUI alone takes seconds to start on a loaded machine (the suite-wide limit is 120 s).
pytestmark = pytest.mark.timeout(600)


def below_editor(screen: str) -> str:
    lines = screen.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("──")]
    return "\n".join(lines[rules[-1] + 1 :])


def above_editor(screen: str) -> str:
    lines = screen.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("──")]
    return "\n".join(lines[: rules[-2]])


async def _every_ui_call(app: App) -> None:
    await app.wait_for("[Extension issues]", everywhere=True)  # the refused ctrl+c, under the header
    await app.wait_for("Extension shortcut 'ctrl+c' from", everywhere=True)
    # extension commands are offered by / completion, with their descriptions
    await app.type("/cou")
    await app.wait_for("A custom component")
    await app.send("C-u")
    await app.wait_until_gone("A custom component")
    # and their arguments, from get_argument_completions
    await app.type("/ask g")
    await app.wait_for("the color green")
    assert "the color red" not in app.screen()
    await app.send("Tab")
    await app.wait_for("/ask green", region="editor")
    await app.send("C-u")
    await app.wait_until_gone("the color green")

    await app.command("/ask")
    await app.wait_for("Pick a color")
    await app.send("Down")
    await app.send("Enter")
    await app.wait_for("picked green")
    await app.wait_for("Keep the color?")
    await app.send("Enter")  # "Yes" is first
    await app.wait_for("Warning: confirmed True")
    await app.wait_for("Your name")
    await app.type("Ada")
    await app.send("Enter")
    await app.wait_for("hello Ada")
    await app.wait_for("Edit the note")
    await app.wait_for("first line")
    await app.type(" and more")
    await app.send("Enter")
    await app.wait_for("Error: note 'first line and more'")

    await app.command("/decorate")
    screen = await app.wait_for("WIDGET-BELOW")
    assert "WIDGET-ABOVE" in above_editor(screen)
    # a component as the header (at the top, instead of pi's) and as a widget
    assert screen.count("CUSTOM-HEADER-OR-WIDGET") == 2 and "pi v" not in screen
    assert "WIDGET-BELOW" in below_editor(screen)
    assert "DECO-STATUS" in below_editor(screen)  # the footer's status line
    await app.wait_for("prefilled by the extension", region="editor")
    await app.wait_until(lambda _: app.terminal.title == "PI-SHOWCASE-TITLE", "the terminal title was not set")
    await app.send("C-u")

    await app.command("/footer")
    screen = await app.wait_for("CUSTOM-FOOTER deco=DECO-STATUS")
    assert "CUSTOM-FOOTER" in below_editor(screen)

    await app.send("M-k")
    await app.wait_for("shortcut alt+k pressed")
    await app.command("/hotkeys")
    shown = await app.wait_for("Say so")
    extensions = shown.split("Extensions")[-1]
    assert "Alt+K" in extensions and "Ctrl+C" not in extensions  # the refused one is not listed

    await app.command("/counter")
    await app.wait_for("Counter: 0 (+ to count")
    await app.type("+++")
    await app.wait_for("Counter: 3")
    await app.send("Enter")
    await app.wait_for("counter result 3")
    assert app.editor() == ""  # the editor came back

    await app.command("/counter overlay")
    await app.wait_for("Overlay counter: 0")
    await app.type("+")
    await app.wait_for("Overlay counter: 1")
    await app.send("Escape")
    await app.wait_for("overlay counter result None")

    await app.command("/card")
    screen = await app.wait_for("MARK-ENTRY 7")
    assert "[card]" in screen and "CARD-TEXT for the user" in screen  # Pi's default card
    assert "BADGE-RENDERED (badge)" in screen and "ignored text" not in screen
    await app.command("/swap")
    await app.wait_for("SHOUT-EDITOR (type and press enter)")
    await app.submit("hello --> there")  # through the replacement editor
    await app.wait_for("Crunching the numbers")  # set_working_message, while the answer streams
    await app.wait_for("fine →[assistant] done")
    await app.wait_for("hello →[user] there")  # display only: the model got the text as typed
    await app.wait_until_gone("Crunching the numbers")  # the run is over
    assert "hello --> there" in user_texts(app.provider.requests[-1]["body"])
    await app.command("/bye")  # ctx.shutdown(): pi quits (the agent is idle)
    await app.wait_exit()


def test_every_ui_call_of_an_extension_command_reaches_the_screen(tmp_path: Path) -> None:
    args = ("-e", str(FIXTURES / "tui_showcase.py"))
    turns = [{"text": "fine --> done, slowly", "chunk_delay": 0.1}]  # streams long enough to show the working message
    app = run_app(tmp_path, turns, _every_ui_call, args=args, height=40)
    entries = app.entries()
    assert [e["customType"] for e in entries if e["type"] == "custom_message"] == ["card", "badge"]
    assert [e["data"] for e in entries if e["type"] == "custom"] == [{"n": 7}]


async def _card_and_answer(app: App) -> None:
    await app.command("/card")
    await app.wait_for("MARK-ENTRY 7")
    await app.submit("hello")
    await app.wait_for("fine")
    await app.wait_until_gone("Working")  # the run is over: the answer is stored
    await app.quit()


async def _drawn_again(app: App) -> None:
    screen = await app.wait_for("MARK-ENTRY 7")
    assert screen.index("CARD-TEXT") < screen.index("BADGE-RENDERED") < screen.index("MARK-ENTRY 7")
    assert screen.index("MARK-ENTRY 7") < screen.index("fine")
    await app.quit()


def test_a_resumed_session_draws_its_custom_messages_and_entries_again(tmp_path: Path) -> None:
    args = ("-e", str(FIXTURES / "tui_showcase.py"))
    first = run_app(tmp_path, [{"text": "fine"}], _card_and_answer, args=args, height=40)
    [session] = first.session_files()
    run_app(tmp_path / "again", [], _drawn_again, args=(*args, "--session", str(session)))


async def _gate(app: App) -> None:
    await app.submit("clean up")
    await app.wait_for("Allow `rm -rf ./scratch`?")
    await app.send("Enter")  # Yes
    await app.wait_for("Allow `sudo rm -rf ./scratch`?")
    await app.send("Down")
    await app.send("Enter")  # No
    await app.wait_for("all done")
    assert not (app.sandbox.work / "scratch").exists()
    results = [m for m in app.messages() if m["role"] == "toolResult"]
    assert not results[0]["isError"]
    assert results[1]["isError"] and "Blocked by user" in json.dumps(results[1]["content"])
    await app.quit()


def test_permission_gate_asks_in_the_tui(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": "rm -rf ./scratch"}}]},
        {"tool_calls": [{"id": "call_2", "name": "bash", "arguments": {"command": "sudo rm -rf ./scratch"}}]},
        {"text": "all done"},
    ]
    args = ("-e", str(EXAMPLES / "permission_gate.py"))
    run_app(tmp_path, turns, _gate, args=args, before=lambda box: (box.work / "scratch").mkdir())


async def _plan_mode(app: App) -> None:
    await app.wait_for("plan mode")
    await app.submit("make a plan")
    await app.wait_for("planned")
    await app.wait_until_gone("Working")  # the run is over before the command
    first = app.provider.requests[0]["body"]
    assert {t["function"]["name"] for t in first["tools"]} <= READ_ONLY_TOOLS
    await app.command("/plan")
    await app.wait_for("Plan mode off")
    await app.wait_until(lambda s: "plan mode" not in below_editor(s), "the plan mode status stayed")
    await app.submit("now do it")
    await app.wait_for("doing")
    second = app.provider.requests[-1]["body"]
    assert "bash" in {t["function"]["name"] for t in second["tools"]}
    await app.quit()


def test_plan_mode_flag_status_and_command_in_the_tui(tmp_path: Path) -> None:
    args = ("-e", str(EXAMPLES / "plan_mode"), "--plan")
    run_app(tmp_path, [{"text": "planned"}, {"text": "doing"}], _plan_mode, args=args)


async def _todo_and_notification(app: App) -> None:
    await app.submit("track my work")
    screen = await app.wait_for("added it")
    assert "todo add write tests" in screen  # render_call
    assert "✓ 0/1 done" in screen  # render_result, collapsed
    assert "(empty list)" not in screen and "1. [ ] write tests" not in screen  # not the raw text
    await app.wait_for("🔔 Turn 1 finished (1 tool results)")
    await app.wait_until_gone("Working")  # the run is over: the next prompt is not a steer
    await app.send("C-o")  # expanded: the renderer lists the items
    await app.wait_for("○ write tests")
    await app.submit("again")
    await app.wait_for("second answer")
    await app.quit()


def test_custom_tool_renderer_and_notification_role_in_the_tui(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [{"id": "call_1", "name": "todo", "arguments": {"action": "add", "text": "write tests"}}]},
        {"text": "added it"},
        {"text": "second answer"},
    ]
    args = ("-e", str(EXAMPLES / "todo_tool.py"), "-e", str(EXAMPLES / "notification.py"))
    app = run_app(tmp_path, turns, _todo_and_notification, args=args, height=40)
    requests = [r["body"] for r in app.provider.requests]
    for body in requests:
        assert not any("finished (" in text for text in user_texts(body)), "a notification reached the model"
    assert len(requests) == 3


async def _handoff_fork_reload(app: App, record: Path) -> None:
    await app.submit("before the handoff")
    await app.wait_for("first answer")
    await app.wait_until_gone("Working")  # the run is over before the session is replaced
    await app.command("/handoff the plan")
    screen = await app.wait_for("kickoff")
    await app.wait_for("first answer")
    # the new session's transcript only: setup's message, with_session's prompt, its answer
    assert "carried over: the plan" in screen and "before the handoff" not in screen
    await app.submit("and on")
    await app.wait_for("second answer")
    await app.wait_until_gone("Working")
    await app.command("/forkit")  # before the first user message: its text comes back to the editor
    await app.wait_for("Forked to new session")
    await app.wait_for("carried over: the plan", region="editor")
    await app.wait_for("fork note")  # with_session's message, in the fork's transcript
    assert "second answer" not in app.screen()
    await app.send("C-u")
    await app.command("/reloadit")  # ctx.reload(): the TUI's /reload
    await app.wait_for("Reloaded keybindings, extensions, skills, prompts, themes, and context files")
    await app.wait_until(lambda _: records(record)[-1]["event"] == "reloaded", "ctx.reload() did not return")
    await app.quit()


def test_a_command_replacing_the_session_redraws_the_screen(tmp_path: Path) -> None:
    record = tmp_path / "handoff.jsonl"
    args = ("-e", str(FIXTURES / "handoff.py"))
    # the provider answers by the number of assistant messages: a fresh session starts over
    turns = [{"text": "first answer"}, {"text": "second answer"}]
    scenario = partial(_handoff_fork_reload, record=record)
    app = run_app(tmp_path, turns, scenario, args=args, env={"PI_TEST_RECORD": str(record)})
    assert len(app.session_files()) == 2  # the fork holds no answer yet: not written (Pi's rule)
    events = [r["event"] for r in records(record) if r["event"] != "resources_discover"]
    assert events[:6] == ["session_start", "session_shutdown", "setup", "session_start", "with_session", "returned"]
    reload = [(r["event"], r.get("reason")) for r in records(record)][-5:]
    assert reload == [("session_shutdown", "reload"), ("session_start", "reload"),
                      ("resources_discover", "reload"), ("reloaded", None), ("session_shutdown", "quit")]  # fmt: skip


PAIR_TURNS = [
    {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": "echo allowed"}}]},
    {"tool_calls": [{"id": "call_2", "name": "bash", "arguments": {"command": "echo refused"}}]},
    {"text": "PAIR-DONE"},
]


def _lines(text: str, start: str, end: str) -> list[str]:
    lines = [line.rstrip() for line in text.split("\n")]
    first = max(i for i, line in enumerate(lines) if start in line)
    last = max(i for i, line in enumerate(lines) if end in line)
    return lines[first : last + 1]


def above_editor_area(screen: str, start: str) -> list[str]:
    """The dialog in the editor's place: from the line holding ``start`` to the footer (its
    first line is the working directory)."""
    lines = [line.rstrip() for line in screen.split("\n")]
    first = next(i for i, line in enumerate(lines) if start in line)
    footer = next(i for i, line in enumerate(lines) if i > first and line.endswith("/work"))
    return lines[first:footer]


async def _pair(app: Driven, seen: dict[str, Any]) -> None:
    """Notices, the default custom message card, the footer status, the confirm dialog, the
    blocked call; what each looks like goes into ``seen``."""
    await app.command("/hello")
    await app.wait_for("CARD-TEXT for the user")
    screen = await app.wait_for("PAIR-STATUS")
    seen["notices"] = _lines(app.history(), "hello as info", "CARD-TEXT")
    seen["status"] = [line.rstrip() for line in below_editor(screen).split("\n") if "PAIR-STATUS" in line]
    await app.submit("run them")
    screen = await app.wait_for("Allow `echo allowed`?")
    seen["dialog"] = above_editor_area(screen, "Dangerous command")
    await app.send("Enter")
    await app.wait_for("Allow `echo refused`?")
    await app.send("Down")
    await app.send("Enter")
    await app.wait_for("PAIR-DONE")
    await app.wait_until_gone("Working")  # the run is over: the answer is stored
    seen["results"] = [(m["isError"], json.dumps(m["content"])) for m in app.messages() if m["role"] == "toolResult"]
    await app.quit()


def test_extension_ui_looks_like_pis(tmp_path: Path) -> None:
    """Pi's TUI (tmux) with ``tui_pair.ts`` and ours (in-process) with ``tui_pair.py``, one
    scenario each: the same notices, status line, dialog and tool results."""
    seen: dict[str, dict[str, Any]] = {}
    files = []
    for which, fixture in (("pi", "tui_pair.ts"), ("ours", "tui_pair.py")):
        folder = tmp_path / which
        folder.mkdir()
        seen[which] = {}
        args = ("-e", str(FIXTURES / fixture))
        app = play(folder, which, PAIR_TURNS, partial(_pair, seen=seen[which]), args=args, height=50)
        files.append(app.session_files()[0])
    assert seen["ours"] == seen["pi"]
    assert len(seen["pi"]["status"]) == 1 and len(seen["pi"]["dialog"]) > 1
    assert seen["pi"]["results"][1][0] is True and "Blocked by user" in seen["pi"]["results"][1][1]
    pi_reads_the_same(files)


async def _thrower(app: App, thrower: Path) -> None:
    await app.submit("go")
    await app.wait_for("Still here.")
    await app.wait_until_gone("Working")  # the run is over: the next prompt is not a steer
    await app.submit("more")
    await app.wait_for("And again.")
    shown = " ".join(app.history().split())  # error lines wrap at the terminal's width
    for event in ("session_start", "input", "before_agent_start", "turn_start", "context", "turn_end", "agent_end"):
        assert f'Extension "{thrower}" error: failed in {event}' in shown, event
    await app.quit()


def test_a_throwing_extension_is_named_in_the_transcript_and_the_tui_goes_on(tmp_path: Path) -> None:
    thrower = FIXTURES / "thrower.py"
    turns = [{"text": "Still here."}, {"text": "And again."}]
    run_app(tmp_path, turns, partial(_thrower, thrower=thrower), args=("-e", str(thrower)), height=40)
