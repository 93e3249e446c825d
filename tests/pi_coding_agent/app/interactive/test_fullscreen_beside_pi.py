"""Fullscreen mode beside Pi 1.6's (``--tui-mode fullscreen``), both in tmux after two turns:
the scrollbar after a wheel scroll, the "Jump to latest message" label and the transcript
search panel are drawn as Pi draws them. The rest of the screen differs where documented
(the header's version, the footer's paths), so the parts are compared, not whole screens."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._scenario import launch

pytestmark = pytest.mark.timeout(600)

LINES = [f"line {n:02d} of the answer" for n in range(1, 41)]
TURNS = [{"text": "\n\n".join(LINES)}, {"text": "second answer ends here"}]
WHEEL_UP = "\x1b[<64;11;6M"
SEARCH = "\x1b[102;6u"  # ctrl+shift+f


def _scrollbar(rows: list[str]) -> list[str]:
    """The glyphs of the transcript's last column (the rows above the editor's border)."""
    border = next(i for i, row in enumerate(rows) if row.strip() and set(row.strip()) == {"─"})
    return sorted({row[-1:] for row in rows[:border]})


def _parts(tmp_path: Path, which: str) -> dict[str, object]:
    parts: dict[str, object] = {}
    with launch(tmp_path / which, which, TURNS, args=("--tui-mode", "fullscreen"), extended_keys=True,
                settings={"fullscreenWheelScrollLines": 2}) as run:  # fmt: skip
        pane = run.pane
        run.submit("first question")
        pane.wait_for("line 40 of the answer")
        run.submit("second question")
        pane.wait_for("second answer ends here")
        for _ in range(3):
            pane.type(WHEEL_UP)
        screen = pane.wait_for("Jump to latest message")
        rows = screen.splitlines()
        label = next(row for row in rows if "Jump to latest" in row)
        # where it is, what it says (the last column is the scrollbar's)
        parts["label"] = (label.index("↓"), label[label.index("↓") : -1].rstrip())
        parts["scrollbar"] = _scrollbar(rows)
        parts["first row"] = rows[0].rstrip()
        pane.type(SEARCH)
        pane.wait_for("Find in transcript")
        pane.type("of the answer")
        screen = pane.wait_for("/40")
        rows = screen.splitlines()
        top = next(i for i, row in enumerate(rows) if "┌" in row)  # the panel's box, and where it is
        left = rows[top].index("┌")
        parts["search panel"] = [(left, row[left:-1]) for row in rows[top : top + 3]]
        parts["scrollbar while searching"] = _scrollbar(rows)
        pane.send("Escape")
        pane.wait_until_gone("/40")
    return parts


def test_fullscreen_scrollbar_label_and_search_are_pi_1_6s(tmp_path: Path) -> None:
    theirs = _parts(tmp_path, "pi16")
    ours = _parts(tmp_path, "ours")
    assert ours == theirs
    # what was compared is there: the label with Pi 1.6's key, a track and a thumb, the panel
    assert "↓ Jump to latest message · Ctrl+End" in str(theirs["label"])
    assert {"┃", "│"} <= set(theirs["scrollbar"])  # type: ignore[call-overload]
    assert "↑ Shift+Enter · ↓ Enter" in str(theirs["search panel"])
