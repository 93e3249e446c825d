"""Models and thinking levels (ours in-process, Pi's own TUI in tmux): ``/model`` with
search and Ctrl+S for the default, Shift+Tab and ``/thinking``, Ctrl+P cycling, Ctrl+L,
``/scoped-models`` saved with Ctrl+S (and the footer dropping the provider once the scope
has only one); what the editor completes after ``/model `` and ``/thinking ``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.core.local_model import local_models
from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._tmux import suggestions
from tests.support.scripted_provider import models_json

# Pi's TUI alone takes seconds to start on a loaded machine, so the suite-wide 120 s limit
# is too tight for its runs.
pytestmark = pytest.mark.timeout(600)

THINKER = {"id": "scripted-thinker", "name": "Scripted Thinker", "reasoning": True, "contextWindow": 64000,
           "maxTokens": 4096}  # fmt: skip


def _models(base_url: str) -> dict[str, Any]:
    models = models_json(base_url)
    models["providers"]["scripted-openai"]["models"].append(THINKER)
    return models


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_model_thinking_cycling_and_scope(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.command("/model")
        await app.wait_for("Enter to select · Ctrl+S to set as default")
        await app.type("thinker")
        await app.wait_until(lambda s: "scripted-claude [" not in s, "the search did not filter")
        await app.send("C-s")
        await app.wait_for("Default model: scripted-openai/scripted-thinker")
        await app.wait_for("(scripted-openai) scripted-thinker • thinking off")
        assert app.settings_file()["defaultModel"] == "scripted-thinker"
        await app.send("BTab")
        await app.wait_for("Thinking level: minimal")
        await app.wait_for("scripted-thinker • minimal")
        await app.command("/thinking")
        await app.wait_for("Shift+Tab cycles thinking levels in-session")
        await app.wait_for("→ ✓ minimal   Very brief reasoning (~1k tokens)")
        await app.send("Down")
        await app.wait_for("→   low       Light reasoning (~2k tokens)")
        await app.send("Enter")
        await app.wait_for("scripted-thinker • low")
        await app.submit("think")
        await app.wait_for("thought about it")
        await app.wait_until_gone("Working")  # stored before the model changes (the entries' order)
        await app.send("C-p")
        await app.wait_for("Switched to Scripted Claude")
        await app.wait_for("(scripted-anthropic) scripted-claude")
        await app.send("C-l")
        await app.wait_for("Enter to select · Ctrl+S to set as default")
        await app.send("Escape")
        await app.wait_until_gone("Enter to select · Ctrl+S to set as default")
        await app.command("/scoped-models")
        await app.wait_for("Model Configuration")
        await app.send("C-x")
        # Ours also lists the embedded models (docs/cli.md), after the configured ones.
        total = 3 if which == "pi" else 3 + len(local_models())
        await app.wait_for(f"0/{total} enabled")
        await app.send("Enter")
        await app.wait_for(f"1/{total} enabled")
        await app.send("Down")
        await app.send("Enter")
        await app.wait_for(f"2/{total} enabled")
        await app.send("C-s")
        await app.wait_until(lambda s: "enabledModels" in (app.sandbox.agent_dir / "settings.json").read_text(), "not saved")
        await app.send("Escape")
        await app.wait_until_gone("Model Configuration")
        await app.wait_until(lambda s: s.rstrip().endswith(" scripted-claude") and "(scripted-anthropic)" not in s,
                        "the footer still names the provider")  # fmt: skip
        await app.send("C-p")  # from a model outside the scope to the scope's first after it
        await app.wait_for("Switched to Scripted Thinker")
        await app.wait_for("scripted-thinker • thinking off")
        await app.quit()

    app = play(tmp_path, which, [{"text": "thought about it"}], scenario, models=_models)
    settings = app.settings_file()
    assert settings["enabledModels"] == ["scripted-openai/scripted-model", "scripted-openai/scripted-thinker"]
    [request] = app.provider.requests
    assert request["body"]["model"] == "scripted-thinker"
    assert request["body"]["reasoning_effort"] == "low"
    kinds = [(e["type"], e.get("modelId") or e.get("thinkingLevel")) for e in app.entries()]
    assert kinds[1:] == [("model_change", "scripted-model"), ("thinking_level_change", "off"),
                         ("model_change", "scripted-thinker"), ("thinking_level_change", "minimal"),
                         ("thinking_level_change", "low"), ("message", None), ("message", None),
                         ("model_change", "scripted-claude"), ("thinking_level_change", "off"),
                         ("model_change", "scripted-thinker")]  # fmt: skip



def test_model_and_thinking_arguments_complete(tmp_path: Path, which: str) -> None:
    """Pi's completion after ``/model ``: the available models in catalog order, the id with its
    provider beside it, ``provider/id`` inserted by Tab; after ``/thinking ``: the levels the
    model accepts. Enter on a highlighted level completes it, the next Enter runs it."""
    async def scenario(app: Driven) -> None:
        await app.type("/model ")
        screen = await app.wait_for("→ scripted-model ")
        # Ours also offers the embedded models (docs/tui), after the configured ones.
        local = [] if which == "pi" else [f"{m.id} {m.provider}" for m in local_models()]
        assert suggestions(screen) == [
            "→ scripted-model scripted-openai",
            "scripted-thinker scripted-openai",
            "scripted-claude scripted-anthropic",
            *local,
        ][:5] + ([f"(1/{3 + len(local)})"] if len(local) + 3 > 5 else []), screen
        await app.type("thin")
        screen = await app.wait_for("→ scripted-thinker ")
        assert suggestions(screen)[:2] == ["→ scripted-thinker scripted-openai", "scripted-claude scripted-anthropic"]
        await app.send("Tab")
        await app.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
        assert app.editor() == "/model scripted-openai/scripted-thinker"
        await app.send("Enter")
        await app.wait_for("Model: scripted-thinker")
        await app.wait_for("scripted-thinker • thinking off")
        await app.type("/thinking ")
        screen = await app.wait_for("→ off")
        assert suggestions(screen) == ["→ off", "minimal", "low", "medium", "high"], screen
        await app.type("hi")
        screen = await app.wait_until(lambda s: suggestions(s) == ["→ high"], "only high left")
        await app.send("Enter")  # completes the level; the command does not run yet
        await app.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
        assert app.editor() == "/thinking high"
        assert "Thinking level:" not in app.screen()
        await app.send("Enter")
        await app.wait_for("Thinking level: high")
        await app.wait_for("scripted-thinker • high")
        await app.quit()

    play(tmp_path, which, [], scenario, models=_models)


def test_model_completion_offers_the_scope_only(tmp_path: Path, which: str) -> None:
    """With ``enabledModels``, ``/model `` completes only the scoped models, in the scope's order."""
    scope = ["scripted-openai/scripted-thinker", "scripted-openai/scripted-model"]
    async def scenario(app: Driven) -> None:
        await app.type("/model ")
        screen = await app.wait_for("→ scripted-thinker ")
        assert suggestions(screen) == ["→ scripted-thinker scripted-openai", "scripted-model scripted-openai"], screen
        await app.send("Escape")
        await app.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
        await app.send("C-u")
        await app.wait_until(lambda _: app.editor() == "", "the editor kept its text")
        await app.quit()

    play(tmp_path, which, [], scenario, models=_models, settings={"enabledModels": scope})


def test_model_sees_models_json_edited_while_running(tmp_path: Path, which: str) -> None:
    """A model added to ``models.json`` after the start is offered by ``/model`` (Pi re-reads
    the file) and answers once chosen."""
    async def scenario(app: Driven) -> None:
        await app.submit("first")  # the startup's own catalog refresh is over by then
        await app.wait_for("first answer")
        path = app.sandbox.agent_dir / "models.json"
        edited = json.loads(path.read_text(encoding="utf-8"))
        edited["providers"]["scripted-openai"]["models"].append({**THINKER, "id": "scripted-late", "name": "Late"})
        path.write_text(json.dumps(edited), encoding="utf-8")
        await app.command("/model")
        await app.wait_for("Enter to select · Ctrl+S to set as default")
        await app.type("late")
        await app.wait_for("scripted-late [scripted-openai]")
        await app.send("Enter")
        await app.wait_for("Model: scripted-late")
        await app.submit("hello")
        await app.wait_for("late answer")
        await app.quit()

    app = play(tmp_path, which, [{"text": "first answer"}, {"text": "late answer"}], scenario, models=_models)
    assert [request["body"]["model"] for request in app.provider.requests] == ["scripted-model", "scripted-late"]
