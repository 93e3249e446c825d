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
    return run_app(tmp_path, turns, scenario, settings=settings, args=("--model", CLAUDE), ready="scripted-claude")


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
def test_the_anthropic_extra_usage_warning(tmp_path: Path, key: str, settings: dict[str, Any], warned: bool) -> None:
    async def look(app: App) -> None:
        await app.wait_for("claude-haiku-4-5")

    app = run_app(tmp_path, [], look, settings=settings, models=_anthropic, ready=None,
                  args=("--model", "anthropic/claude-haiku-4-5"), env={"ANTHROPIC_API_KEY": key})  # fmt: skip
    shown = " ".join(app.history().split())
    assert (EXTRA_USAGE in shown) is warned
    if warned:
        assert "Manage extra usage at https://claude.ai/settings/usage. Disable this warning in /settings." in shown


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
        await app.wait_until(lambda s: re.search(r"Anthropic extra usage\s+false", s) is not None, "not turned off")
        await app.send("Escape")
        await app.wait_for("→ Warnings")
        await app.send("Escape")

    app = run_app(tmp_path, [], scenario, models=_anthropic, env={"ANTHROPIC_API_KEY": "sk-ant-oat01-x"})
    assert " ".join(app.history().split()).count("Anthropic subscription auth is active") == 1
    saved = json.loads((app.sandbox.agent_dir / "settings.json").read_text())
    assert saved["warnings"] == {"anthropicExtraUsage": False}
