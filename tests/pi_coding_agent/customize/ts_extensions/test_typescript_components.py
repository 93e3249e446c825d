"""Custom components of TypeScript extensions in our TUI, beside Pi 1.6's own (tmux).

``fixtures/panels.ts`` (ours) has a ``ctx.ui.custom`` counter, inline and as an overlay, whose
keys reach its ``handleInput``; a widget component; a tool with ``renderCall`` /
``renderResult``; a message renderer; a command with asynchronous argument completions; and a
command that reports the theme's accent colour. The same keys go to ours and to Pi 1.6
(``pi-cli-current``) and the screens must show the same things.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import Run, launch
from tests.pi_coding_agent.app.interactive._tmux import suggestions
from tests.support.npm_packages import node_cache

PANELS = Path(__file__).resolve().parent / "fixtures" / "panels.ts"
TURNS = [
    {"tool_calls": [{"id": "d1", "name": "dice", "arguments": {"sides": 6}}]},
    {"text": "the die is cast"},
]


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _line_with(screen: str, text: str) -> str:
    return next(line.strip() for line in screen.split("\n") if text in line)


def _counter(run: Run, command: str, done: str) -> dict[str, Any]:
    pane = run.pane
    run.command(command)
    first = pane.wait_for("COUNTER 0")
    for key in ("Up", "Up", "Down", "Up"):
        pane.send(key)
    after = pane.wait_for("COUNTER 2")
    pane.send("Enter")
    closed = pane.wait_for(done)
    return {
        "first": _line_with(first, "COUNTER 0"),
        "after": _line_with(after, "COUNTER 2"),
        "help": "up/down change it" in after,
        "closed": _line_with(closed, done),
        "gone": "COUNTER" not in closed.split(done)[-1],
    }


def _scenario(tmp_path: Path, which: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with launch(tmp_path / which, which, TURNS, args=("-e", str(PANELS)), settings={"theme": "light"},
                env={"PI_NODE_CACHE": node_cache()}) as run:  # fmt: skip
        pane = run.pane
        seen["inline"] = _counter(run, "/count", "counted 2")
        seen["overlay"] = _counter(run, "/countover", "overlay counted 2")
        run.command("/panel")
        seen["widget"] = _line_with(pane.wait_for("PANEL WIDGET"), "PANEL WIDGET")
        run.command("/panel off")
        seen["widget_gone"] = "PANEL WIDGET" not in pane.wait_until_gone("PANEL WIDGET")
        run.command("/note hello there")
        seen["note"] = _line_with(pane.wait_for("NOTE RENDERED"), "NOTE RENDERED")
        run.command("/colour")
        seen["accent"] = _line_with(pane.wait_for('accent "'), 'accent "')
        run.submit("roll a die")
        screen = pane.wait_for("the die is cast")
        seen["dice"] = [_line_with(screen, "DICE CALL"), _line_with(screen, "DICE RESULT")]
        pane.type("/city L")
        seen["completions"] = [
            row.removeprefix("→ ")
            for row in suggestions(pane.wait_until(lambda s: "Lisbon" in s, "no completions for /city L"))
        ]
    return seen


def test_custom_components_of_a_typescript_extension_show_as_in_pi(tmp_path: Path) -> None:
    ours = _scenario(tmp_path, "ours")
    pi = _scenario(tmp_path, "pi16")
    assert ours == pi
    assert ours["inline"]["after"].startswith("COUNTER 2 at width")
    assert ours["overlay"]["first"].endswith("at width 40") or "width 40" in ours["overlay"]["first"]
    assert ours["dice"] == ["DICE CALL d6", "DICE RESULT 4"]
    assert ours["widget"] == "PANEL WIDGET light"
