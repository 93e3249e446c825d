"""``/settings`` lists Pi 1.6's rows, in its order, with its values: ours in-process and Pi
1.6's own TUI in tmux (``pi-cli-current``), each row read by moving the cursor down the list.
The rows we leave out on purpose (settings with nothing behind them here) are named, and
documented in docs/tui/README.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play

pytestmark = pytest.mark.timeout(600)

LEFT_OUT = {"Session share destination", "Cache warming"}
ROW = re.compile(r"^→ (\S.*?)\s{2,}(\S.*?)\s*$", re.MULTILINE)


def rows_of(tmp_path: Path, which: str) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []

    async def scenario(app: Driven) -> None:
        await app.command("/settings")
        await app.wait_for("Esc to cancel")
        while True:
            screen = await app.wait_until(lambda s: ROW.search(s) is not None, "no selected row")
            found = ROW.search(screen)
            assert found is not None
            row = (found[1], found[2])
            if (rows and row == rows[0]) or len(rows) > 50:
                break
            rows.append(row)
            await app.send("Down")
            await app.wait_until(lambda s, row=row: (m := ROW.search(s)) is not None and (m[1], m[2]) != row,
                                 "the cursor did not move")  # fmt: skip
        await app.send("Escape")

    play(tmp_path / which, which, [], scenario, settings={"fullscreenScrollbar": "always"})
    return rows


@pytest.mark.parametrize("which", ["pi16"])
def test_settings_rows_are_pi_1_6s(tmp_path: Path, which: str) -> None:
    theirs = rows_of(tmp_path, which)
    ours = rows_of(tmp_path, "ours")
    assert len(theirs) == 33  # Pi 1.6 in tmux: no image rows (tmux draws no images)
    expected = [(label, value) for label, value in theirs if label not in LEFT_OUT]
    assert [label for label, _ in ours] == [label for label, _ in expected]
    differing = {label: (a, b) for (label, a), (_, b) in zip(ours, expected, strict=True) if a != b}
    # 1.6's default we do not follow (yet): the fullscreen mode (the "system" theme is ours too)
    assert differing == {"TUI mode": ("regular", "fullscreen")}, differing


def _thinking_frames(tmp_path: Path, which: str) -> tuple[list[list[str]], dict[str, object]]:
    """``/settings`` → Default thinking level per model: the model step, the level step, the
    model step after ``off`` was chosen (the scripted model has no reasoning), and the row's value after Escape; the saved file."""
    frames: list[list[str]] = []

    def frame(screen: str, first: str, last: str) -> list[str]:
        lines = [line.rstrip() for line in screen.splitlines()]
        start = next(i for i, line in enumerate(lines) if first in line)
        end = next(i for i in range(start, len(lines)) if last in lines[i])
        return [
            line for line in lines[start : end + 1] if "[local]" not in line
        ]  # ours lists the embedded models too

    async def scenario(app: Driven) -> None:
        await app.command("/settings")
        await app.wait_for("Esc to cancel")
        await app.type("per model")  # the list's search
        await app.wait_until(lambda s: (m := ROW.search(s)) is not None and m[1].startswith("Default thinking"),
                             "the row is not selected")  # fmt: skip
        await app.send("Enter")
        frames.append(frame(await app.wait_for("Per-Model Thinking Level"), "Per-Model", "Esc to go back"))
        await app.send("Enter")
        frames.append(frame(await app.wait_for("Step 2/2"), "Thinking Level for", "Esc to go back"))
        await app.send("Enter")
        screen = await app.wait_for("Step 1/2")
        frames.append(frame(screen, "Per-Model", "Esc to go back"))
        await app.send("Escape")
        screen = await app.wait_until(lambda s: "Default thinking level per model" in s and "Step 1/2" not in s,
                                      "the submenu did not close")  # fmt: skip
        frames.append(
            [line.rstrip() for line in screen.splitlines() if "Default thinking level per model" in line]
        )
        await app.send("Escape")

    app = play(tmp_path / which, which, [], scenario)
    return frames, app.settings_file()


def test_the_per_model_thinking_picker_is_pis(tmp_path: Path) -> None:
    theirs, their_file = _thinking_frames(tmp_path, "pi")
    ours, our_file = _thinking_frames(tmp_path, "ours")
    assert ours == theirs
    assert our_file["modelThinkingLevels"] == their_file["modelThinkingLevels"]
    assert our_file["modelThinkingLevels"] == {"scripted-openai/scripted-model": "off"}
