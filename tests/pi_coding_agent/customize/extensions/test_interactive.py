"""Extensions in the interactive UI: our real ``pi`` in tmux against a scripted provider on
127.0.0.1, with the fixture ``tui_showcase.py`` (every ``ctx.ui`` call) and the examples
(permission gate, plan mode, the todo tool's renderer, the notification role)."""

from __future__ import annotations

import json
import subprocess
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._scenario import Run, launch, pi_reads_the_same
from tests.pi_coding_agent.app.interactive._tmux import TmuxPane
from tests.pi_coding_agent.customize.extensions._support import EXAMPLES, FIXTURES, records, user_texts

READ_ONLY_TOOLS = {"read", "grep", "find", "ls"}

pytestmark = pytest.mark.timeout(600)


def pane_title(pane: TmuxPane) -> str:
    done = subprocess.run([pane.tmux, "-L", pane.socket, "display-message", "-p", "-t", "t", "#{pane_title}"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    return done.stdout.strip()


def below_editor(screen: str) -> str:
    lines = screen.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("──")]
    return "\n".join(lines[rules[-1] + 1 :])


def above_editor(screen: str) -> str:
    lines = screen.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("──")]
    return "\n".join(lines[: rules[-2]])


def test_every_ui_call_of_an_extension_command_reaches_the_screen(tmp_path: Path) -> None:
    args = ("-e", str(FIXTURES / "tui_showcase.py"))
    turns = [{"text": "fine --> done, slowly", "chunk_delay": 0.25}]
    with launch(tmp_path, "ours", turns, args=args, height=40) as run:
        pane = run.pane
        pane.wait_for("[Extension issues]", everywhere=True)  # the refused ctrl+c, under the header
        pane.wait_for("Extension shortcut 'ctrl+c' from", everywhere=True)
        # extension commands are offered by / completion, with their descriptions
        pane.type("/cou")
        pane.wait_for("A custom component")
        pane.send("C-u")
        pane.wait_until_gone("A custom component")
        # and their arguments, from get_argument_completions
        pane.type("/ask g")
        pane.wait_for("the color green")
        assert "the color red" not in pane.screen()
        pane.send("Tab")
        pane.wait_for("/ask green", region="editor")
        pane.send("C-u")
        pane.wait_until_gone("the color green")

        run.command("/ask")
        pane.wait_for("Pick a color")
        pane.send("Down")
        pane.send("Enter")
        pane.wait_for("picked green")
        pane.wait_for("Keep the color?")
        pane.send("Enter")  # "Yes" is first
        pane.wait_for("Warning: confirmed True")
        pane.wait_for("Your name")
        pane.type("Ada")
        pane.send("Enter")
        pane.wait_for("hello Ada")
        pane.wait_for("Edit the note")
        pane.wait_for("first line")
        pane.type(" and more")
        pane.send("Enter")
        pane.wait_for("Error: note 'first line and more'")

        run.command("/decorate")
        screen = pane.wait_for("WIDGET-BELOW")
        assert "WIDGET-ABOVE" in above_editor(screen)
        # a component as the header (at the top, instead of pi's) and as a widget
        assert screen.count("CUSTOM-HEADER-OR-WIDGET") == 2 and "pi v" not in screen
        assert "WIDGET-BELOW" in below_editor(screen)
        assert "DECO-STATUS" in below_editor(screen)  # the footer's status line
        pane.wait_for("prefilled by the extension", region="editor")
        pane.wait_until(lambda _: pane_title(pane) == "PI-SHOWCASE-TITLE", "the terminal title was not set")
        pane.send("C-u")

        run.command("/footer")
        screen = pane.wait_for("CUSTOM-FOOTER deco=DECO-STATUS")
        assert "CUSTOM-FOOTER" in below_editor(screen)

        pane.send("M-k")
        pane.wait_for("shortcut alt+k pressed")
        run.command("/hotkeys")
        shown = pane.wait_for("Say so")
        extensions = shown.split("Extensions")[-1]
        assert "Alt+K" in extensions and "Ctrl+C" not in extensions  # the refused one is not listed

        run.command("/counter")
        pane.wait_for("Counter: 0 (+ to count")
        pane.type("+++")
        pane.wait_for("Counter: 3")
        pane.send("Enter")
        pane.wait_for("counter result 3")
        assert run.editor_text(pane.screen()).strip() == ""  # the editor came back

        run.command("/counter overlay")
        pane.wait_for("Overlay counter: 0")
        pane.type("+")
        pane.wait_for("Overlay counter: 1")
        pane.send("Escape")
        pane.wait_for("overlay counter result None")

        run.command("/card")
        screen = pane.wait_for("MARK-ENTRY 7")
        assert "[card]" in screen and "CARD-TEXT for the user" in screen  # Pi's default card
        assert "BADGE-RENDERED (badge)" in screen and "ignored text" not in screen
        run.command("/swap")
        pane.wait_for("SHOUT-EDITOR (type and press enter)")
        run.submit("hello --> there")  # through the replacement editor
        pane.wait_for("Crunching the numbers")  # set_working_message, while the answer streams
        pane.wait_for("fine →[assistant] done")
        pane.wait_for("hello →[user] there")  # display only: the model got the text as typed
        assert "hello --> there" in user_texts(run.provider.requests[-1]["body"])
        run.command("/bye")  # ctx.shutdown(): pi quits (the agent is idle)
        pane.wait_for("[exit 0]")
        session = run.session_files()[0]
    entries = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    assert [e["customType"] for e in entries if e["type"] == "custom_message"] == ["card", "badge"]
    assert [e["data"] for e in entries if e["type"] == "custom"] == [{"n": 7}]


def test_a_resumed_session_draws_its_custom_messages_and_entries_again(tmp_path: Path) -> None:
    args = ("-e", str(FIXTURES / "tui_showcase.py"))
    with launch(tmp_path, "ours", [{"text": "fine"}], args=args, height=40) as run:
        run.command("/card")
        run.pane.wait_for("MARK-ENTRY 7")
        run.submit("hello")
        run.pane.wait_for("fine")
        run.quit()
    with launch(tmp_path / "again", "ours", [], args=(*args, "--session", str(run.session_files()[0]))) as again:
        screen = again.pane.wait_for("MARK-ENTRY 7")
        assert screen.index("CARD-TEXT") < screen.index("BADGE-RENDERED") < screen.index("MARK-ENTRY 7")
        assert screen.index("MARK-ENTRY 7") < screen.index("fine")


def test_permission_gate_asks_in_the_tui(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": "rm -rf ./scratch"}}]},
        {"tool_calls": [{"id": "call_2", "name": "bash", "arguments": {"command": "sudo rm -rf ./scratch"}}]},
        {"text": "all done"},
    ]
    args = ("-e", str(EXAMPLES / "permission_gate.py"))
    with launch(tmp_path, "ours", turns, args=args, before=lambda box: (box.work / "scratch").mkdir()) as run:
        run.submit("clean up")
        run.pane.wait_for("Allow `rm -rf ./scratch`?")
        run.pane.send("Enter")  # Yes
        run.pane.wait_for("Allow `sudo rm -rf ./scratch`?")
        run.pane.send("Down")
        run.pane.send("Enter")  # No
        run.pane.wait_for("all done")
        assert not (run.sandbox.work / "scratch").exists()
        results = [m for m in run.messages() if m["role"] == "toolResult"]
        assert not results[0]["isError"]
        assert results[1]["isError"] and "Blocked by user" in json.dumps(results[1]["content"])
        run.quit()


def test_plan_mode_flag_status_and_command_in_the_tui(tmp_path: Path) -> None:
    args = ("-e", str(EXAMPLES / "plan_mode"), "--plan")
    with launch(tmp_path, "ours", [{"text": "planned"}, {"text": "doing"}], args=args) as run:
        run.pane.wait_for("plan mode")
        run.submit("make a plan")
        run.pane.wait_for("planned")
        first = run.provider.requests[0]["body"]
        assert {t["function"]["name"] for t in first["tools"]} <= READ_ONLY_TOOLS
        run.command("/plan")
        run.pane.wait_for("Plan mode off")
        run.pane.wait_until(lambda s: "plan mode" not in below_editor(s), "the plan mode status stayed")
        run.submit("now do it")
        run.pane.wait_for("doing")
        second = run.provider.requests[-1]["body"]
        assert "bash" in {t["function"]["name"] for t in second["tools"]}
        run.quit()


def test_custom_tool_renderer_and_notification_role_in_the_tui(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [{"id": "call_1", "name": "todo", "arguments": {"action": "add", "text": "write tests"}}]},
        {"text": "added it"},
        {"text": "second answer"},
    ]
    args = ("-e", str(EXAMPLES / "todo_tool.py"), "-e", str(EXAMPLES / "notification.py"))
    with launch(tmp_path, "ours", turns, args=args, height=40) as run:
        run.submit("track my work")
        screen = run.pane.wait_for("added it")
        assert "todo add write tests" in screen  # render_call
        assert "✓ 0/1 done" in screen  # render_result, collapsed
        assert "(empty list)" not in screen and "1. [ ] write tests" not in screen  # not the raw text
        run.pane.wait_for("🔔 Turn 1 finished (1 tool results)")
        run.pane.send("C-o")  # expanded: the renderer lists the items
        run.pane.wait_for("○ write tests")
        run.submit("again")
        run.pane.wait_for("second answer")
        run.quit()
        requests = [r["body"] for r in run.provider.requests]
    for body in requests:
        assert not any("finished (" in text for text in user_texts(body)), "a notification reached the model"
    assert len(requests) == 3


def test_a_command_replacing_the_session_redraws_the_screen(tmp_path: Path) -> None:
    record = tmp_path / "handoff.jsonl"
    args = ("-e", str(FIXTURES / "handoff.py"))
    # the provider answers by the number of assistant messages: a fresh session starts over
    turns = [{"text": "first answer"}, {"text": "second answer"}]
    with launch(tmp_path, "ours", turns, args=args, env={"PI_TEST_RECORD": str(record)}) as run:
        run.submit("before the handoff")
        run.pane.wait_for("first answer")
        run.command("/handoff the plan")
        screen = run.pane.wait_for("kickoff")
        run.pane.wait_for("first answer")
        # the new session's transcript only: setup's message, with_session's prompt, its answer
        assert "carried over: the plan" in screen and "before the handoff" not in screen
        run.submit("and on")
        run.pane.wait_for("second answer")
        run.command("/forkit")  # before the first user message: its text comes back to the editor
        run.pane.wait_for("Forked to new session")
        run.pane.wait_for("carried over: the plan", region="editor")
        run.pane.wait_for("fork note")  # with_session's message, in the fork's transcript
        assert "second answer" not in run.pane.screen()
        run.pane.send("C-u")
        run.command("/reloadit")  # ctx.reload(): the TUI's /reload
        run.pane.wait_for("Reloaded keybindings, extensions, skills, prompts, themes, and context files")
        run.pane.wait_until(lambda _: records(record)[-1]["event"] == "reloaded", "ctx.reload() did not return")
        run.quit()
        files = run.session_files()
    assert len(files) == 2  # the fork holds no answer yet: not written (Pi's rule)
    events = [r["event"] for r in records(record) if r["event"] != "resources_discover"]
    assert events[:6] == ["session_start", "session_shutdown", "setup", "session_start", "with_session", "returned"]
    reload = [(r["event"], r.get("reason")) for r in records(record)][-5:]
    assert reload == [("session_shutdown", "reload"), ("session_start", "reload"),
                      ("resources_discover", "reload"), ("reloaded", None), ("session_shutdown", "quit")]


PAIR_TURNS = [
    {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": "echo allowed"}}]},
    {"tool_calls": [{"id": "call_2", "name": "bash", "arguments": {"command": "echo refused"}}]},
    {"text": "PAIR-DONE"},
]


def _lines(run: Run, start: str, end: str) -> list[str]:
    lines = [line.rstrip() for line in run.pane.history().split("\n")]
    first = max(i for i, line in enumerate(lines) if start in line)
    last = max(i for i, line in enumerate(lines) if end in line)
    return lines[first : last + 1]


def test_extension_ui_looks_like_pis(tmp_path: Path) -> None:
    """Pi's TUI with ``tui_pair.ts`` and ours with ``tui_pair.py``, side by side: notices, the
    default custom message card, the footer status, the confirm dialog, the blocked call."""
    runs: dict[str, Run] = {}
    with ExitStack() as stack:
        for which, fixture in (("pi", "tui_pair.ts"), ("ours", "tui_pair.py")):
            folder = tmp_path / which
            folder.mkdir()
            args = ("-e", str(FIXTURES / fixture))
            runs[which] = stack.enter_context(launch(folder, which, PAIR_TURNS, args=args, height=50))
        for run in runs.values():
            run.command("/hello")
        for run in runs.values():
            run.pane.wait_for("CARD-TEXT for the user")
            run.pane.wait_for("PAIR-STATUS")
        notices = {which: _lines(run, "hello as info", "CARD-TEXT") for which, run in runs.items()}
        assert notices["ours"] == notices["pi"]
        footers = {which: below_editor(run.pane.screen()) for which, run in runs.items()}
        assert footers["ours"].split("\n")[-1] == footers["pi"].split("\n")[-1]
        for run in runs.values():
            run.submit("run them")
        for run in runs.values():
            run.pane.wait_for("Allow `echo allowed`?")
        dialogs = {which: above_editor_area(run.pane.screen(), "Dangerous command") for which, run in runs.items()}
        assert dialogs["ours"] == dialogs["pi"]
        for run in runs.values():
            run.pane.send("Enter")
        for run in runs.values():
            run.pane.wait_for("Allow `echo refused`?")
            run.pane.send("Down")
            run.pane.send("Enter")
        for run in runs.values():
            run.pane.wait_for("PAIR-DONE")
        results = {
            which: [(m["isError"], json.dumps(m["content"])) for m in run.messages() if m["role"] == "toolResult"]
            for which, run in runs.items()
        }
        assert results["ours"] == results["pi"]
        assert results["pi"][1][0] is True and "Blocked by user" in results["pi"][1][1]
        files = [run.session_files()[0] for run in runs.values()]
        for run in runs.values():
            run.quit()
    pi_reads_the_same(files)


def above_editor_area(screen: str, start: str) -> list[str]:
    """The dialog in the editor's place: from the line holding ``start`` to the footer (its
    first line is the working directory)."""
    lines = [line.rstrip() for line in screen.split("\n")]
    first = next(i for i, line in enumerate(lines) if start in line)
    footer = next(i for i, line in enumerate(lines) if i > first and line.endswith("/work"))
    return lines[first:footer]


def test_a_throwing_extension_is_named_in_the_transcript_and_the_tui_goes_on(tmp_path: Path) -> None:
    thrower = FIXTURES / "thrower.py"
    turns = [{"text": "Still here."}, {"text": "And again."}]
    with launch(tmp_path, "ours", turns, args=("-e", str(thrower)), height=40) as run:
        run.submit("go")
        run.pane.wait_for("Still here.")
        run.submit("more")
        run.pane.wait_for("And again.")
        shown = " ".join(run.pane.history().split())  # error lines wrap at the terminal's width
        for event in ("session_start", "input", "before_agent_start", "turn_start", "context", "turn_end", "agent_end"):
            assert f'Extension "{thrower}" error: failed in {event}' in shown, event
        run.quit()
