"""Capture what ``pi`` looks like in a terminal, for ``docs/tui/screens.md``.

Runs our ``pi`` in tmux (100x34) against the scripted provider on 127.0.0.1 in a throwaway
home, goes through a session with tool calls (read, bash, an edit shown as a diff), opens
``/tree`` and ends on the footer, and writes each screen as text (``capture-pane``) into the
page, between its markers. Run it again after changing how things look:

    .venv/bin/python tools/tui_screens.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.pi_coding_agent.interactive._scenario import launch  # noqa: E402

PAGE = REPO / "docs" / "tui" / "screens.md"
NOTES = "first line\nsecond line\nthird line\n"
TURNS = [
    {
        "text": "I'll look at the notes, count the files and fix the second line.",
        "tool_calls": [
            {"id": "call_1", "name": "read", "arguments": {"path": "notes.txt"}},
            {"id": "call_2", "name": "bash", "arguments": {"command": "ls | wc -l"}},
            {"id": "call_3", "name": "edit", "arguments": {"path": "notes.txt", "edits": [
                {"oldText": "second line", "newText": "second line, now fixed"}]}},
        ],
    },
    {"text": "## Done\n\nThe second line now reads **second line, now fixed**.\n\n| file | change |\n|---|---|\n"
             "| notes.txt | line 2 edited |\n"},
    {"text": "Nothing else to do."},
]  # fmt: skip


def _trim(screen: str, work: Path) -> str:
    """Trailing blanks off; the throwaway working directory shown as ``~/project``."""
    lines = (line.replace(str(work), "~/project").rstrip() for line in screen.rstrip("\n").split("\n"))
    return "\n".join(lines)


def capture() -> dict[str, str]:
    screens: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder, launch(
        Path(folder), "ours", TURNS, files={"notes.txt": NOTES}, height=34
    ) as run:
        pane, work = run.pane, run.sandbox.work
        run.submit("fix the second line of notes.txt")
        pane.wait_for("line 2 edited")
        pane.wait_until_gone("Working")
        screens["session"] = _trim(pane.history(), work).split("\n", 1)[-1]
        run.submit("anything else?")
        pane.wait_for("Nothing else to do.")
        run.command("/tree")
        pane.wait_for("Session Tree")
        screens["tree"] = _trim(pane.screen(), work)
        pane.send("Escape")
        pane.wait_until_gone("Session Tree")
        run.command("/name notes fix")
        pane.wait_for("Session name set: notes fix")
        screens["footer"] = "\n".join(_trim(pane.screen(), work).split("\n")[-5:])
        run.quit()
    return screens


def main() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for name, screen in capture().items():
        start, end = f"<!-- screen:{name} -->", f"<!-- /screen:{name} -->"
        before, _, rest = page.partition(start)
        _, _, after = rest.partition(end)
        page = f"{before}{start}\n```text\n{screen}\n```\n{end}{after}"
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(REPO)}")


if __name__ == "__main__":
    main()
