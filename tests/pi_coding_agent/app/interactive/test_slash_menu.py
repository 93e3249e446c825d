"""The ``/`` menu (ours in-process, Pi's own TUI in tmux): a bare ``/`` offers every command in
Pi's order (the built-ins, prompt templates, ``/llama``, skills), descriptions led by the
argument hint and the file's scope tag; typing filters and ranks them like Pi's fuzzy match."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._tmux import suggestions
from tests.pi_coding_agent.e2e._harness import Sandbox

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _resources(sandbox: Sandbox) -> None:
    prompts = sandbox.agent_dir / "prompts"
    prompts.mkdir(exist_ok=True)
    (prompts / "review.md").write_text(
        "---\ndescription: Review code\nargument-hint: <file>\n---\nReview $1\n"
    )
    skill = sandbox.agent_dir / "skills" / "hello"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hello\ndescription: Says hello\n---\nSay hello.\n")


def test_bare_slash_lists_every_command_in_pis_order(tmp_path: Path, which: str) -> None:
    count = 27 if which == "ours" else 26  # Pi 0.85 has no /mcp (Pi 1.6's built-in MCP support)
    mcp = ["mcp [t] Manage MCP servers: reconnect, turn on or off, change exposure"]

    async def scenario(app: Driven) -> None:
        await app.type("/")
        screen = await app.wait_for(f"(1/{count})")
        assert suggestions(screen) == [
            "→ settings Open settings menu",
            "model <provider/model> — Select model (opens selector UI)",
            "tree Navigate session tree (switch branches)",
            "thinking <level> — Set thinking level",
            "scoped-models Enable/disable models for Ctrl+P cycling",
            f"(1/{count})",
        ], screen
        await app.send("Up")  # wraps to the last: the tail of the list
        screen = await app.wait_for(f"({count}/{count})")
        assert suggestions(screen) == [
            *([] if app.ours else ["reload Reload keybindings, extensions, skills, prompts, themes, and context files"]),
            "quit Quit pi",
            "review <file> — [u] Review code",
            "llama [t] Manage llama.cpp router models",
            *(mcp if app.ours else []),
            "→ skill:hello [u] Says hello",
            f"({count}/{count})",
        ], screen
        await app.type("tru")
        trust = ["→ trust Save project trust decision for future sessions"]
        await app.wait_until(lambda s: suggestions(s) == trust, "only /trust should match")
        await app.send("Escape")
        await app.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
        await app.send("C-u")
        await app.wait_until(lambda _: app.editor() == "", "the editor kept its text")
        await app.quit()

    play(tmp_path, which, [], scenario, before=_resources)
