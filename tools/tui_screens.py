"""Capture what ``pi`` looks like in a terminal, for ``docs/tui/screens.md``.

Runs our ``pi`` in tmux (100x34) against the scripted provider on 127.0.0.1 in a throwaway
home, goes through a session with tool calls (read, bash, an edit shown as a diff), opens
``/tree`` and ends on the footer, and writes each screen as text (``capture-pane``) into the
page, between its markers. The same screens with their colours (``capture-pane -e``) are
turned into HTML and photographed by headless Chromium into ``docs/images/tui-<name>.png``
(skipped, with a note, when no ``chromium`` is installed). Run it again after changing how
things look:

    .venv/bin/python tools/tui_screens.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.pi_coding_agent.app.interactive._scenario import launch  # noqa: E402
from tests.support import chromium  # noqa: E402
from tests.support.ansi_html import ansi_page, standalone_lines, visible  # noqa: E402

PAGE = REPO / "docs" / "tui" / "screens.md"
IMAGES = REPO / "docs" / "images"
COLUMNS = 100
CELL_PX = (8.45, 17)  # DejaVu Sans Mono at 14 px, 17 px lines (see ansi_page)
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


def _styled(capture: str, work: Path, last: int | None = None) -> str:
    """A styled capture without the blank lines at its end (the last ``last`` lines of it)."""
    lines = [line.replace(str(work), "~/project") for line in standalone_lines(capture)]
    while lines and not visible(lines[-1]).strip():
        lines.pop()
    return "\n".join(lines[-last:] if last else lines)


def capture() -> tuple[dict[str, str], dict[str, str]]:
    """Each scene as text and as styled text (``capture-pane -e``)."""
    screens: dict[str, str] = {}
    styled: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder, launch(
        Path(folder), "ours", TURNS, files={"notes.txt": NOTES}, height=34, env={"COLORTERM": "truecolor"}
    ) as run:
        pane, work = run.pane, run.sandbox.work
        run.submit("fix the second line of notes.txt")
        pane.wait_for("line 2 edited")
        pane.wait_until_gone("Working")
        screens["session"] = _trim(pane.history(), work).split("\n", 1)[-1]
        styled["session"] = _styled(pane.styled_history(blanks=True), work).split("\n", 1)[-1]
        run.submit("anything else?")
        pane.wait_for("Nothing else to do.")
        run.command("/tree")
        pane.wait_for("Session Tree")
        screens["tree"] = _trim(pane.screen(), work)
        styled["tree"] = _styled(pane.styled_screen(blanks=True), work)
        pane.send("Escape")
        pane.wait_until_gone("Session Tree")
        run.command("/name notes fix")
        pane.wait_for("Session name set: notes fix")
        screens["footer"] = "\n".join(_trim(pane.screen(), work).split("\n")[-5:])
        styled["footer"] = _styled(pane.styled_screen(blanks=True), work, last=12)  # headless Chromium draws a window this small only in part
        run.quit()
    return screens, styled


def photograph(name: str, text: str, folder: Path) -> Path:
    """``text`` (with SGR styles) drawn by Chromium into ``docs/images/tui-<name>.png``."""
    page = folder / f"{name}.html"
    page.write_text(ansi_page(text), encoding="utf-8")
    output = IMAGES / f"tui-{name}.png"
    rows = text.count("\n") + 1
    chromium.screenshot(page, output, width=round(COLUMNS * CELL_PX[0]) + 24, height=round(rows * CELL_PX[1]) + 24)
    return output


def main() -> None:
    page = PAGE.read_text(encoding="utf-8")
    screens, styled = capture()
    for name, screen in screens.items():
        start, end = f"<!-- screen:{name} -->", f"<!-- /screen:{name} -->"
        before, _, rest = page.partition(start)
        _, _, after = rest.partition(end)
        page = f"{before}{start}\n```text\n{screen}\n```\n{end}{after}"
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(REPO)}")
    if not any(shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")):
        print("no chromium installed: the images in docs/images were left as they are")
        return
    IMAGES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        for name, text in styled.items():
            print(f"wrote {photograph(name, text, Path(folder)).relative_to(REPO)}")


if __name__ == "__main__":
    main()
