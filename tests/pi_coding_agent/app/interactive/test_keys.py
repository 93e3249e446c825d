"""Keys, keybindings and themes in the real ``pi`` in tmux (ours and Pi's own): a
``keybindings.json`` override (thinking visibility moved to Alt+T), a custom JSON theme,
Ctrl+Z to the shell and ``fg`` back, double Escape opening the tree, and ``pi -r``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import launch, theme_document
from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support.scripted_provider import models_json

# A scenario drives a whole session in a terminal; Pi's TUI alone takes seconds to start
# on a loaded machine, so the suite-wide 120 s limit is too tight here.
pytestmark = pytest.mark.timeout(600)

THINKER = {"id": "scripted-thinker", "name": "Scripted Thinker", "reasoning": True, "contextWindow": 64000,
           "maxTokens": 4096}  # fmt: skip
ACCENT = "#12a4e6"


def _models(base_url: str) -> dict[str, Any]:
    models = models_json(base_url)
    models["providers"]["scripted-openai"]["models"].append(THINKER)
    return models


def _custom_theme() -> dict[str, Any]:
    """Our dark theme as a file named ``mine``, its accent colour changed."""
    theme = theme_document("mine")
    theme["colors"]["accent"] = ACCENT
    return theme


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_keybindings_theme_suspend_and_double_escape(tmp_path: Path, which: str) -> None:
    settings = {"defaultModel": "scripted-thinker", "defaultThinkingLevel": "low", "theme": "mine"}
    turns = [{"thinking": "Pondering the question deeply.", "text": "the answer"}]

    def configure(sandbox: Sandbox) -> None:
        (sandbox.agent_dir / "themes").mkdir()
        (sandbox.agent_dir / "themes" / "mine.json").write_text(json.dumps(_custom_theme()), encoding="utf-8")
        bindings = {"app.thinking.toggle": "alt+t"}
        (sandbox.agent_dir / "keybindings.json").write_text(json.dumps(bindings), encoding="utf-8")

    with launch(tmp_path, which, turns, settings=settings, models=_models, ready="scripted-thinker • low",
                shell=True, env={"COLORTERM": "truecolor"}, before=configure) as run:  # fmt: skip
        pane = run.pane
        red, green, blue = (int(ACCENT[i : i + 2], 16) for i in (1, 3, 5))
        assert f"38;2;{red};{green};{blue}m" in pane.styled_screen()  # the logo in the theme's accent
        assert "already taken" not in pane.screen()  # the theme is read once
        run.submit("think")
        pane.wait_for("the answer")
        assert "Pondering the question deeply." in pane.screen()
        pane.send("M-t")
        pane.wait_for("Thinking blocks: hidden")
        assert "Pondering the question deeply." not in pane.screen()
        pane.send("C-z")
        pane.wait_until(lambda s: "Stopped" in s, "Ctrl+Z did not suspend")
        pane.type("fg")
        pane.send("Enter")
        pane.wait_for("the answer")
        pane.wait_for("scripted-thinker • low")
        pane.send("Escape")  # two presses, apart (one write of both reads as Alt+Escape)
        time.sleep(0.15)
        pane.send("Escape")
        pane.wait_for("Session Tree")
        pane.send("Escape")
        pane.wait_until_gone("Session Tree")
        pane.send("C-d")
        pane.wait_until(lambda s: "To resume this session" in s or s.rstrip().endswith("$"), "pi did not quit")
    assert [m["role"] for m in run.messages()] == ["user", "assistant"]
    thinking = run.messages()[1]["content"][0]
    assert (thinking["type"], thinking["thinking"]) == ("thinking", "Pondering the question deeply.")


def test_resume_flag_opens_the_picker(tmp_path: Path, which: str) -> None:
    """``pi -r``: the session picker before the editor; the chosen session goes on."""
    turns = [{"text": "earlier answer"}, {"text": "later answer"}]

    def earlier_session(sandbox: Sandbox) -> None:
        done = (run_ours if which == "ours" else run_pi)(sandbox, "-p", "an earlier question")
        assert done.returncode == 0, done.stderr

    with launch(tmp_path, which, turns, args=("-r",), ready="Resume Session", probe=False,
                before=earlier_session) as run:  # fmt: skip
        pane = run.pane
        pane.wait_for("an earlier question")
        pane.send("Enter")
        pane.wait_for("earlier answer")
        pane.wait_for("scripted-model")
        run.wait_ready()
        run.submit("a later question")
        pane.wait_for("later answer")
        run.quit()
    [path] = run.session_files()
    assert [m["role"] for m in run.messages(path)] == ["user", "assistant", "user", "assistant"]
