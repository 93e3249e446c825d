"""Settings Pi 1.6 reads, honoured as Pi does, in-process: ``showCacheMissNotices``,
``warnings.anthropicExtraUsage``, ``terminal.clearOnShrink``, ``terminal.hyperlinks``,
``terminal.trueColor`` and ``markdown.mermaid``, each with its ``/settings`` row where Pi has
one."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._inprocess import App, run_app
from tests.support.scripted_provider import models_json

pytestmark = pytest.mark.timeout(120)

CLAUDE = "scripted-anthropic/scripted-claude"
# A cached prompt of 30,010 tokens, then one of 40,000 with nothing read from the cache.
CACHED, MISSED = {"input": 10, "cache_read": 30_000}, {"input": 40_000}
MISS = "Cache miss: 30k tokens re-billed"


async def _ask(app: App, text: str, answer: str) -> None:
    await app.submit(text)
    await app.wait_for(answer)


def _two_turns(tmp_path: Path, settings: dict[str, Any], after: Any = None) -> App:
    async def scenario(app: App) -> None:
        await _ask(app, "first", "one")
        await _ask(app, "second", "two")
        await app.wait_until(lambda s: "Working" not in s, "the turn did not end")
        if after is not None:
            await after(app)

    turns = [{"text": "one", "usage": CACHED}, {"text": "two", "usage": MISSED}]
    return run_app(
        tmp_path, turns, scenario, settings=settings, args=("--model", CLAUDE), ready="scripted-claude"
    )


def test_a_cache_miss_is_noticed_after_the_answer_that_paid_for_it(tmp_path: Path) -> None:
    app = _two_turns(tmp_path, {"showCacheMissNotices": True})
    shown = " ".join(app.screen().split())
    assert MISS in shown and shown.index("two") < shown.index(MISS)
    assert shown.count("Cache miss") == 1  # the first turn has nothing before it


def test_cache_miss_notices_are_off_by_default(tmp_path: Path) -> None:
    assert "Cache miss" not in _two_turns(tmp_path, {}).history()


def test_cache_miss_notices_turned_on_in_settings_are_drawn_for_the_stored_turns(tmp_path: Path) -> None:
    async def turn_on(app: App) -> None:
        assert "Cache miss" not in app.screen()
        await app.command("/settings")
        await app.type("cache miss")
        await app.wait_for("→ Cache miss notices")
        await app.send("Enter")
        await app.send("Escape")
        await app.wait_for(MISS)

    app = _two_turns(tmp_path, {}, turn_on)
    assert json.loads((app.sandbox.agent_dir / "settings.json").read_text())["showCacheMissNotices"] is True


EXTRA_USAGE = "Warning: Anthropic subscription auth is active."


def _anthropic(url: str) -> dict[str, Any]:
    providers = models_json(url)["providers"]
    return {"providers": {**providers, "anthropic": {"baseUrl": url}}}


@pytest.mark.parametrize(
    ("key", "settings", "warned"),
    [
        ("sk-ant-oat01-subscription", {}, True),
        ("sk-ant-oat01-subscription", {"warnings": {"anthropicExtraUsage": False}}, False),
        ("sk-ant-api03-paid-key", {}, False),
    ],
)
def test_the_anthropic_extra_usage_warning(
    tmp_path: Path, key: str, settings: dict[str, Any], warned: bool
) -> None:
    async def look(app: App) -> None:
        await app.wait_for("claude-haiku-4-5")

    app = run_app(tmp_path, [], look, settings=settings, models=_anthropic, ready=None,
                  args=("--model", "anthropic/claude-haiku-4-5"), env={"ANTHROPIC_API_KEY": key})  # fmt: skip
    shown = " ".join(app.history().split())
    assert (EXTRA_USAGE in shown) is warned
    if warned:
        assert (
            "Manage extra usage at https://claude.ai/settings/usage. Disable this warning in /settings."
            in shown
        )


async def _switch(app: App, model: str) -> None:
    """``/model provider/id`` (Enter takes the completion first, then runs the command)."""
    await app.type(f"/model {model}")
    await app.wait_for(model, region="editor")
    await app.send("Enter")
    if app.editor():
        await app.send("Enter")
    await app.wait_for(f"Model: {model.split('/')[1]}")


def test_the_extra_usage_warning_follows_a_model_switch_once_and_its_settings_row(tmp_path: Path) -> None:
    async def scenario(app: App) -> None:
        assert "Anthropic subscription" not in app.history()
        await _switch(app, "anthropic/claude-haiku-4-5")
        await app.wait_for("subscription auth is active")
        await _switch(app, "scripted-openai/scripted-model")
        await _switch(app, "anthropic/claude-haiku-4-5")
        await app.command("/settings")
        await app.type("warnings")
        await app.wait_for("→ Warnings")
        await app.send("Enter")
        await app.wait_for("Anthropic extra usage")
        await app.send("Enter")  # true -> false
        await app.wait_until(
            lambda s: re.search(r"Anthropic extra usage\s+false", s) is not None, "not turned off"
        )
        await app.send("Escape")
        await app.wait_for("→ Warnings")
        await app.send("Escape")

    app = run_app(tmp_path, [], scenario, models=_anthropic, env={"ANTHROPIC_API_KEY": "sk-ant-oat01-x"})
    assert " ".join(app.history().split()).count("Anthropic subscription auth is active") == 1
    saved = json.loads((app.sandbox.agent_dir / "settings.json").read_text())
    assert saved["warnings"] == {"anthropicExtraUsage": False}


LINKED = "Read [the docs](https://example.com/docs) first."
READ_CALL = {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "notes.txt"}}]}


@pytest.mark.parametrize(
    ("settings", "env", "linked"),
    [
        ({"terminal": {"hyperlinks": True}}, {}, True),
        ({"terminal": {"hyperlinks": False}}, {"PI_HYPERLINKS": "1"}, False),  # the setting wins
        ({"terminal": {"hyperlinks": "auto"}}, {"PI_HYPERLINKS": "1"}, True),
        ({}, {"TERM_PROGRAM": "WezTerm"}, True),  # a terminal known to draw them
        ({}, {}, False),  # an unknown terminal: the address printed instead
    ],
)
def test_terminal_hyperlinks(
    tmp_path: Path, settings: dict[str, Any], env: dict[str, str], linked: bool
) -> None:
    written = tmp_path / "written.txt"

    async def scenario(app: App) -> None:
        app.record_output(written)
        await _ask(app, "look", "first.")
        await app.wait_until(lambda s: "Working" not in s, "the turn did not end")

    app = run_app(tmp_path, [READ_CALL, {"text": LINKED}], scenario, settings=settings, env=env,
                  files={"notes.txt": "hello\n"})  # fmt: skip
    output = written.read_text(encoding="utf-8")
    notes = (app.sandbox.work / "notes.txt").as_uri()
    assert ("\x1b]8;;https://example.com/docs\x1b\\" in output) is linked
    assert (f"\x1b]8;;{notes}\x1b\\" in output) is linked  # read's path, linked to the file
    assert ("the docs (https://example.com/docs)" in " ".join(app.screen().split())) is not linked


@pytest.mark.parametrize(
    ("settings", "env", "direct"),
    [
        ({"terminal": {"trueColor": True}}, {}, True),
        ({"terminal": {"trueColor": False}}, {"COLORTERM": "truecolor"}, False),
        ({"terminal": {"trueColor": "auto"}}, {"COLORTERM": "truecolor"}, True),
        ({}, {"PI_TRUE_COLOR": "0", "COLORTERM": "truecolor"}, False),
        ({}, {}, False),
    ],
)
def test_terminal_true_color(
    tmp_path: Path, settings: dict[str, Any], env: dict[str, str], direct: bool
) -> None:
    async def look(app: App) -> None:
        await app.wait_for("scripted-model")

    app = run_app(tmp_path, [], look, settings=settings, env=env)
    styled = app.styled_screen()
    assert ("38;2;" in styled) is direct
    assert ("38;5;" in styled) is not direct


@pytest.mark.parametrize(("settings", "env", "cleared"), [
    ({"terminal": {"clearOnShrink": True}}, {}, True),
    ({}, {"PI_CLEAR_ON_SHRINK": "1"}, True),
    ({"terminal": {"clearOnShrink": False}}, {"PI_CLEAR_ON_SHRINK": "1"}, False),
    ({}, {}, False),
])  # fmt: skip
def test_terminal_clear_on_shrink(
    tmp_path: Path, settings: dict[str, Any], env: dict[str, str], cleared: bool
) -> None:
    """A tall selector closes: with ``clearOnShrink`` the shorter screen is drawn anew (the
    screen and scrollback cleared first), without it only the rows it left are blanked."""
    written = tmp_path / "written.txt"

    async def scenario(app: App) -> None:
        await app.command("/settings")
        await app.wait_for("Esc to cancel")
        app.record_output(written)
        await app.send("Escape")
        await app.wait_until_gone("Esc to cancel")

    run_app(tmp_path, [], scenario, settings=settings, env=env)
    assert ("\x1b[2J" in written.read_text(encoding="utf-8")) is cleared
