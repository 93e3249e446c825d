"""Models and thinking levels in the real ``pi`` in tmux (ours and Pi's own): ``/model`` with
search and Ctrl+S for the default, Shift+Tab and ``/thinking``, Ctrl+P cycling, Ctrl+L,
``/scoped-models`` saved with Ctrl+S (and the footer dropping the provider once the scope
has only one); what the editor completes after ``/model `` and ``/thinking ``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.core.local_model import local_models
from tests.pi_coding_agent.app.interactive._scenario import launch
from tests.pi_coding_agent.app.interactive._tmux import suggestions
from tests.support.scripted_provider import models_json

# A scenario drives a whole session in a terminal; Pi's TUI alone takes seconds to start
# on a loaded machine, so the suite-wide 120 s limit is too tight here.
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
    with launch(tmp_path, which, [{"text": "thought about it"}], models=_models) as run:
        pane = run.pane
        run.command("/model")
        pane.wait_for("Enter to select · Ctrl+S to set as default")
        pane.type("thinker")
        pane.wait_until(lambda s: "scripted-claude [" not in s, "the search did not filter")
        pane.send("C-s")
        pane.wait_for("Default model: scripted-openai/scripted-thinker")
        pane.wait_for("(scripted-openai) scripted-thinker • thinking off")
        assert run.settings_file()["defaultModel"] == "scripted-thinker"
        pane.send("BTab")
        pane.wait_for("Thinking level: minimal")
        pane.wait_for("scripted-thinker • minimal")
        run.command("/thinking")
        pane.wait_for("Shift+Tab cycles thinking levels in-session")
        pane.wait_for("→ ✓ minimal   Very brief reasoning (~1k tokens)")
        pane.send("Down")
        pane.wait_for("→   low       Light reasoning (~2k tokens)")
        pane.send("Enter")
        pane.wait_for("scripted-thinker • low")
        run.submit("think")
        pane.wait_for("thought about it")
        pane.send("C-p")
        pane.wait_for("Switched to Scripted Claude")
        pane.wait_for("(scripted-anthropic) scripted-claude")
        pane.send("C-l")
        pane.wait_for("Enter to select · Ctrl+S to set as default")
        pane.send("Escape")
        pane.wait_until_gone("Enter to select · Ctrl+S to set as default")
        run.command("/scoped-models")
        pane.wait_for("Model Configuration")
        pane.send("C-x")
        # Ours also lists the embedded models (docs/cli.md), after the configured ones.
        total = 3 if which == "pi" else 3 + len(local_models())
        pane.wait_for(f"0/{total} enabled")
        pane.send("Enter")
        pane.wait_for(f"1/{total} enabled")
        pane.send("Down")
        pane.send("Enter")
        pane.wait_for(f"2/{total} enabled")
        pane.send("C-s")
        pane.wait_until(lambda s: "enabledModels" in (run.sandbox.agent_dir / "settings.json").read_text(), "not saved")
        pane.send("Escape")
        pane.wait_until_gone("Model Configuration")
        pane.wait_until(lambda s: s.rstrip().endswith(" scripted-claude") and "(scripted-anthropic)" not in s,
                        "the footer still names the provider")  # fmt: skip
        pane.send("C-p")  # from a model outside the scope to the scope's first after it
        pane.wait_for("Switched to Scripted Thinker")
        pane.wait_for("scripted-thinker • thinking off")
        run.quit()
    settings = run.settings_file()
    assert settings["enabledModels"] == ["scripted-openai/scripted-model", "scripted-openai/scripted-thinker"]
    [request] = run.provider.requests
    assert request["body"]["model"] == "scripted-thinker"
    assert request["body"]["reasoning_effort"] == "low"
    kinds = [(e["type"], e.get("modelId") or e.get("thinkingLevel")) for e in run.entries()]
    assert kinds[1:] == [("model_change", "scripted-model"), ("thinking_level_change", "off"),
                         ("model_change", "scripted-thinker"), ("thinking_level_change", "minimal"),
                         ("thinking_level_change", "low"), ("message", None), ("message", None),
                         ("model_change", "scripted-claude"), ("thinking_level_change", "off"),
                         ("model_change", "scripted-thinker")]  # fmt: skip



def test_model_and_thinking_arguments_complete(tmp_path: Path, which: str) -> None:
    """Pi's completion after ``/model ``: the available models in catalog order, the id with its
    provider beside it, ``provider/id`` inserted by Tab; after ``/thinking ``: the levels the
    model accepts. Enter on a highlighted level completes it, the next Enter runs it."""
    with launch(tmp_path, which, [], models=_models) as run:
        pane = run.pane
        pane.type("/model ")
        screen = pane.wait_for("→ scripted-model ")
        # Ours also offers the embedded models (docs/tui), after the configured ones.
        local = [] if which == "pi" else [f"{m.id} {m.provider}" for m in local_models()]
        assert suggestions(screen) == [
            "→ scripted-model scripted-openai",
            "scripted-thinker scripted-openai",
            "scripted-claude scripted-anthropic",
            *local,
        ][:5] + ([f"(1/{3 + len(local)})"] if len(local) + 3 > 5 else []), screen
        pane.type("thin")
        screen = pane.wait_for("→ scripted-thinker ")
        assert suggestions(screen)[:2] == ["→ scripted-thinker scripted-openai", "scripted-claude scripted-anthropic"]
        pane.send("Tab")
        pane.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
        assert pane.editor() == "/model scripted-openai/scripted-thinker"
        pane.send("Enter")
        pane.wait_for("Model: scripted-thinker")
        pane.wait_for("scripted-thinker • thinking off")
        pane.type("/thinking ")
        screen = pane.wait_for("→ off")
        assert suggestions(screen) == ["→ off", "minimal", "low", "medium", "high"], screen
        pane.type("hi")
        screen = pane.wait_until(lambda s: suggestions(s) == ["→ high"], "only high left")
        pane.send("Enter")  # completes the level; the command does not run yet
        pane.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
        assert pane.editor() == "/thinking high"
        assert "Thinking level:" not in pane.screen()
        pane.send("Enter")
        pane.wait_for("Thinking level: high")
        pane.wait_for("scripted-thinker • high")
        run.quit()


def test_model_completion_offers_the_scope_only(tmp_path: Path, which: str) -> None:
    """With ``enabledModels``, ``/model `` completes only the scoped models, in the scope's order."""
    scope = ["scripted-openai/scripted-thinker", "scripted-openai/scripted-model"]
    with launch(tmp_path, which, [], models=_models, settings={"enabledModels": scope}) as run:
        pane = run.pane
        pane.type("/model ")
        screen = pane.wait_for("→ scripted-thinker ")
        assert suggestions(screen) == ["→ scripted-thinker scripted-openai", "scripted-model scripted-openai"], screen
        pane.send("Escape")
        pane.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
        pane.send("C-u")
        pane.wait_until(lambda _: pane.editor() == "", "the editor kept its text")
        run.quit()
