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

LEFT_OUT = {"Session share destination", "Cache warming", "Default thinking level per model"}
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
