"""Custom components of TypeScript extensions in our TUI, beside Pi 1.6's own (tmux).

``fixtures/panels.ts`` (ours) has a ``ctx.ui.custom`` counter, inline and as an overlay, whose
keys reach its ``handleInput``; a widget component; a tool with ``renderCall`` /
``renderResult``; a message renderer; a command with asynchronous argument completions; and a
command that reports the theme's accent colour. The same keys go to ours and to Pi 1.6
(``pi-cli-current``) and the screens must show the same things.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import Run, launch
from tests.pi_coding_agent.app.interactive._tmux import suggestions
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox
from tests.support import oracle
from tests.support.npm_packages import node_cache, npm_package
from tests.support.scripted_provider import ScriptedProvider

PANELS = Path(__file__).resolve().parent / "fixtures" / "panels.ts"
TURNS = [
    {"tool_calls": [{"id": "d1", "name": "dice", "arguments": {"sides": 6}}]},
    {"text": "the die is cast"},
    {"text": "heard the shout"},
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
        run.command("/chrome")
        screen = pane.wait_until(
            lambda s: "CUSTOM HEADER" in s and "CUSTOM FOOTER" in s, "no header or footer"
        )
        seen["chrome"] = [_line_with(screen, "CUSTOM HEADER"), _line_with(screen, "CUSTOM FOOTER")]
        run.command("/chrome off")
        screen = pane.wait_until(lambda s: "CUSTOM FOOTER" not in s, "the footer stayed")
        seen["chrome_gone"] = "CUSTOM HEADER" not in screen
        run.command("/mark")
        seen["mark"] = _line_with(pane.wait_for("MARK ENTRY"), "MARK ENTRY")
        run.command("/note hello there")
        seen["note"] = _line_with(pane.wait_for("NOTE RENDERED"), "NOTE RENDERED")
        run.command("/note plain words")  # the renderer gives nothing: Pi's default card
        screen = pane.wait_for("plain words")
        seen["card"] = [_line_with(screen, "[panel-note]"), _line_with(screen, "plain words")]
        run.command("/colour")
        seen["accent"] = _line_with(pane.wait_for('accent "'), 'accent "')
        run.submit("roll a die")
        # The result's renderer answers from Node, so its line may follow the model's reply.
        screen = pane.wait_until(
            lambda s: "the die is cast" in s and "DICE RESULT" in s, "no reply or no rendered result"
        )
        seen["dice"] = [_line_with(screen, "DICE CALL"), _line_with(screen, "DICE RESULT")]
        run.command("/expand")
        seen["expand"] = _line_with(pane.wait_for("expanded false ->"), "expanded false ->")
        run.command("/expand")
        seen["collapse"] = _line_with(pane.wait_for("expanded true ->"), "expanded true ->")
        run.command("/shout")
        pane.wait_for("SHOUT EDITOR")
        run.submit("typed in node")
        screen = pane.wait_for("heard the shout")
        seen["shout"] = ["SHOUT EDITOR" in screen, "typed in node" in screen]
        last_user = [m for m in run.provider.requests[-1]["body"]["messages"] if m["role"] == "user"][-1]
        content = last_user["content"]
        seen["sent"] = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
        run.command("/shout off")
        seen["shout_gone"] = "SHOUT EDITOR" not in pane.wait_until_gone("SHOUT EDITOR")
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
    assert ours["chrome"] == ["CUSTOM HEADER", "CUSTOM FOOTER null 0"]
    assert ours["mark"] == "MARK ENTRY 7"
    assert ours["shout"] == [True, True]
    assert ours["sent"] == "typed in node"
    assert (ours["expand"], ours["collapse"]) == ("expanded false -> true", "expanded true -> false")


def _rpc_records(command: list[str], box: Any, prompts: list[str]) -> list[dict[str, Any]]:
    """Each prompt in turn over RPC; the UI requests and responses until the last is answered."""
    process = subprocess.Popen(
        [*command, "--mode", "rpc", "--model", OPENAI_MODEL, "-e", str(PANELS)],
        cwd=box.work,
        env={**box.env(), "PI_NODE_CACHE": node_cache()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    records: list[dict[str, Any]] = []
    for number, prompt in enumerate(prompts, 1):
        process.stdin.write(json.dumps({"id": str(number), "type": "prompt", "message": prompt}) + "\n")
        process.stdin.flush()
        for line in process.stdout:
            record = json.loads(line)
            if record.get("type") in ("extension_ui_request", "response"):
                records.append({k: v for k, v in record.items() if k != "id" or record["type"] == "response"})
            if record.get("type") == "response" and record.get("id") == str(number):
                break
    process.stdin.close()
    process.wait(timeout=60)
    return records


def test_components_over_rpc_do_what_pi_does(tmp_path: Path) -> None:
    """Over RPC ``custom`` resolves ``undefined`` without a component and widget factories are
    ignored (string widgets and notices still reach the client), as in Pi 1.6."""
    folder = oracle.require_live_oracle(current=True)
    seen = {}
    prompts = ["/count", "/panel", "/countover", "/panel off"]
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / "pi-cli-current")])):
        with ScriptedProvider([{"text": "unused"}]) as provider:
            box = Sandbox.create(tmp_path / who, provider.base_url)
            seen[who] = _rpc_records(command, box, prompts)
    assert seen["ours"] == seen["pi"], (seen["ours"], seen["pi"])
    notices = [record.get("message") for record in seen["ours"] if record.get("method") == "notify"]
    assert notices == ["counted nothing", "overlay counted nothing"]


def _picker_rows(screen: str) -> list[str]:
    """The rows of pi-markdown-preview's picker: its title, the responses and its key help."""
    rows = [" ".join(row.split()) for row in screen.split("\n")]
    start = next(i for i, row in enumerate(rows) if "Select Response to Preview" in row)
    end = next(i for i in range(start, len(rows)) if "esc cancel" in rows[i])
    return rows[start : end + 1]


def _pick_scenario(tmp_path: Path, which: str) -> dict[str, Any]:
    package = npm_package("pi-markdown-preview", "0.16.0")
    turns = [{"text": "# Alpha heading\nfirst answer"}, {"text": "# Beta heading\nsecond answer"}]
    seen: dict[str, Any] = {}
    with launch(tmp_path / which, which, turns, args=("-e", str(package)),
                env={"PI_NODE_CACHE": node_cache()}) as run:  # fmt: skip
        pane = run.pane
        run.submit("one")
        pane.wait_for("first answer")
        run.submit("two")
        pane.wait_for("second answer")
        run.command("/preview --pick")
        seen["opened"] = _picker_rows(pane.wait_for("Select Response to Preview"))
        pane.send("Up")
        seen["moved"] = _picker_rows(pane.wait_until(lambda s: "→ Response 1" in s, "Up never moved"))
        pane.send("Escape")
        seen["closed"] = "Select Response" not in pane.wait_until_gone("Select Response to Preview")
    return seen


def test_a_published_packages_custom_picker_works_as_in_pi(tmp_path: Path) -> None:
    """pi-markdown-preview 0.16.0 (from npm): ``/preview --pick`` shows its ``ctx.ui.custom``
    picker (Pi's ``SelectList`` and ``DynamicBorder`` in Node), the arrow keys move it, Escape
    closes it: the same rows on our screen as on Pi 1.6's."""
    ours = _pick_scenario(tmp_path, "ours")
    pi = _pick_scenario(tmp_path, "pi16")
    assert ours == pi
    assert any("Response 2" in row and "Beta heading" in row for row in ours["opened"])
    assert ours["closed"]
