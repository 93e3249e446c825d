"""``/login`` and ``/logout`` (ours in-process, Pi's own TUI in tmux): a device-code
sign-in to Kimi For Coding against the fake authorization server on 127.0.0.1 (both honour
``KIMI_CODE_OAUTH_HOST``), an API key typed for OpenAI, then ``/logout`` of the first; the
provider names completed after ``/login `` (``models.json``'s among them); Amazon Bedrock's hint beside its key dialog; and
(ours only) Anthropic's sign-in through the browser and the local callback.
What ends up in ``auth.json`` is checked after each step."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._tmux import suggestions
from tests.support.fake_auth_server import FakeAuthServer

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _auth(app: Driven) -> dict[str, Any]:
    path = app.sandbox.agent_dir / "auth.json"
    try:
        return dict(json.loads(path.read_text(encoding="utf-8") or "{}"))
    except (OSError, json.JSONDecodeError):
        return {}  # not written yet, or caught mid-write


def test_login_with_a_device_code_and_a_key_then_logout(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.command("/login")
        await app.wait_for("Select authentication method:")
        await app.wait_for("→ Sign in with an account")
        await app.send("Enter")
        await app.wait_for("Select provider to configure:")
        await app.type("kimi")
        await app.wait_for("→ Kimi For Coding • unconfigured")
        await app.send("Enter")
        await app.wait_for("Login to Kimi For Coding")
        screen = await app.wait_for("Waiting for authentication...")
        assert "Enter code: CODE-0001" in screen
        assert _auth(app) == {}  # nothing is stored before the user approved
        kimi.approve("CODE-0001")
        await app.wait_for("Logged in to Kimi For Coding. Credentials saved to")
        stored = _auth(app)["kimi-coding"]
        assert stored["type"] == "oauth" and stored["access"] == kimi.access_tokens[-1]

        await app.command("/login")
        await app.wait_for("→ Sign in with an account")
        await app.send("Down")
        await app.wait_for("→ Sign in with an API key")
        await app.send("Enter")
        await app.wait_for("Select provider to configure:")
        await app.type("OpenAI")
        await app.wait_for("→ OpenAI • unconfigured")
        await app.send("Enter")
        await app.wait_for("Enter OpenAI API key")
        await app.type("sk-typed-in-the-tui")
        await app.wait_for("sk-typed-in-the-tui")
        await app.send("Enter")
        await app.wait_for("Saved API key for OpenAI. Credentials saved to")
        assert _auth(app)["openai"] == {"type": "api_key", "key": "sk-typed-in-the-tui"}
        await app.command("/login")
        await app.wait_for("→ Sign in with an account")
        await app.send("Down", "Enter")
        await app.wait_for("Select provider to configure:")
        await app.type("OpenAI")
        await app.wait_for("→ OpenAI ✓ stored")  # Pi's word for a key in auth.json
        await app.send("Escape")
        await app.wait_for("Select authentication method:")
        await app.send("Escape")
        await app.wait_until_gone("Select authentication method:")

        await app.command("/logout")
        await app.wait_for("Select provider to logout:")
        screen = await app.wait_for("→ Kimi For Coding [subscription] ✓ configured")
        assert "OpenAI [API key] ✓ configured" in screen
        await app.send("Enter")
        await app.wait_for("Logged out of Kimi For Coding")
        assert list(_auth(app)) == ["openai"]
        await app.command("/logout")
        await app.wait_for("→ OpenAI ✓ configured")
        await app.send("Escape")
        await app.wait_until_gone("Select provider to logout:")
        assert list(_auth(app)) == ["openai"]  # Escape removed nothing
        await app.quit()

    with FakeAuthServer("kimi-coding") as kimi:
        play(tmp_path, which, [{"text": "unused"}], scenario, env={"KIMI_CODE_OAUTH_HOST": kimi.url}, height=40)


def test_escape_cancels_a_sign_in_and_logout_with_nothing_stored(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.command("/logout")
        await app.wait_for("No stored credentials to remove.")  # a key in the environment is not stored
        await app.command("/login")
        await app.wait_for("→ Sign in with an account")
        await app.send("Down", "Enter")
        await app.wait_for("Select provider to configure:")
        await app.type("OpenAI")
        screen = await app.wait_for("→ OpenAI ✓ env: OPENAI_API_KEY")  # where its key comes from now
        assert "scripted-openai ✓ models_json_key" in screen  # models.json's literal key
        await app.send("Escape")  # back to the question of how to sign in
        await app.wait_for("Select authentication method:")
        await app.send("Escape")
        await app.wait_until_gone("Select authentication method:")
        await _complete_the_provider(app, which)
        await app.send("Enter")
        await app.wait_for("Select authentication method for Kimi For Coding:")
        await app.wait_for("→ Sign in with Kimi Code")  # the flow's own label for the account choice
        await app.send("Enter")
        await app.wait_for("Waiting for authentication...")
        await app.send("Escape")
        await app.wait_until_gone("Login to Kimi For Coding")
        kimi.approve()
        await app.submit("still here")
        await app.wait_for("unused")
        assert "kimi-coding" not in _auth(app)
        # Escape while the device code is polled aborts the poll, which Pi reports as a failure.
        assert "Error: Failed to login to Kimi For Coding: This operation was aborted" in app.screen()
        await app.quit()

    with FakeAuthServer("kimi-coding") as kimi:
        env = {"KIMI_CODE_OAUTH_HOST": kimi.url, "OPENAI_API_KEY": "sk-from-the-environment"}
        play(tmp_path, which, [{"text": "unused"}], scenario, height=40, env=env)


async def _complete_the_provider(app: Driven, which: str) -> None:
    """``/login `` lists every provider once, by name, with the ways to sign in to it (Pi's
    ``/login`` argument completion); typing narrows it, Enter completes the id without running.
    Ours lists Pi 1.6's providers (``azure``, renamed from Pi 0.85's ``azure-openai-responses``)."""
    await app.type("/login ")
    screen = await app.wait_for("→ amazon-bedrock")
    assert suggestions(screen)[:5] == [
        "→ amazon-bedrock Amazon Bedrock · API key",
        "ant-ling Ant Ling · API key",
        "anthropic Anthropic · subscription/API key",
        "azure Azure · API key" if which == "ours" else "azure-openai-responses Azure OpenAI · API key",
        "baseten Baseten · API key",
    ], screen
    await app.type("op")
    screen = await app.wait_for("→ openai ")
    assert suggestions(screen)[:5] == [
        "→ openai OpenAI · API key",
        "openai-codex OpenAI Codex · subscription",
        "opencode-go OpenCode Go · API key",
        "opencode OpenCode Zen · API key",
        "openrouter OpenRouter · subscription/API key",
    ], screen
    await app.send("BSpace", "BSpace")
    await app.type("scri")  # models.json's providers are there too, by id, with a plain API key
    screen = await app.wait_for("→ scripted-anthropic ")
    assert suggestions(screen)[:2] == ["→ scripted-anthropic API key", "scripted-openai API key"], screen
    await app.send("BSpace", "BSpace", "BSpace", "BSpace")
    await app.type("kimi")
    screen = await app.wait_for("→ kimi-coding ")
    assert suggestions(screen)[0] == "→ kimi-coding Kimi For Coding · subscription/API key", screen
    await app.send("Enter")  # completes the name; the command does not run yet
    await app.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
    assert app.editor() == "/login kimi-coding"
    assert "Select authentication method" not in app.screen()


def test_the_amazon_bedrock_key_dialog_names_the_other_ways_to_sign_in(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.type("/login amazon-bedrock")
        await app.wait_for("→ amazon-bedrock ")
        await app.send("Enter")  # completes the (already whole) name
        await app.wait_until(lambda s: not suggestions(s), "the suggestions stayed open")
        await app.send("Enter")  # Bedrock signs in with a key only: its dialog comes at once
        await app.wait_for("Select Amazon Bedrock authentication method:")
        await app.wait_for("→ Bearer token")
        await app.send("Enter")
        screen = await app.wait_for("Enter Amazon Bedrock bearer token")
        rows = [row.strip() for row in screen.split("\n")]
        title = rows.index("Login to Amazon Bedrock")
        hint = rows.index("You can also use an AWS profile, IAM keys, or role-based credentials.")
        assert title + 2 == hint and rows[hint + 1] == "See:", screen  # a blank line, then the hint
        where = rows[hint + 2]  # Pi's docs folder, or ours: not the same words
        assert where.endswith("providers.md" if which == "pi" else "docs/providers/bedrock.md (in the Pi for Python repository)"), screen
        assert hint < rows.index("Enter Amazon Bedrock bearer token")
        await app.send("Escape")
        await app.wait_until_gone("Login to Amazon Bedrock")
        assert "amazon-bedrock" not in _auth(app)
        await app.quit()

    play(tmp_path, which, [{"text": "unused"}], scenario, height=40)


BROWSER = """#!/bin/sh
# The user's browser: open the page (the user approves at once) and follow it to the callback.
printf '%s\\n' "$1" >> "$PI_TEST_OPENED"
exec python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10).read()' "$1"
"""


def test_login_through_the_browser_and_the_local_callback(tmp_path: Path) -> None:
    """Ours only: Pi's Anthropic endpoints cannot be pointed at a local server. The URL goes
    to ``xdg-open`` (a stand-in that plays the browser); the callback ends the sign-in while
    the dialog still offers to paste the code."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opener = bin_dir / "xdg-open"
    opener.write_text(BROWSER, encoding="utf-8")
    opener.chmod(opener.stat().st_mode | stat.S_IEXEC)
    opened = tmp_path / "opened.txt"
    with FakeAuthServer("anthropic") as anthropic:
        env = {
            anthropic.override_variable: anthropic.url, "PI_OAUTH_CALLBACK_PORT": "0", "PI_TEST_OPENED": str(opened),
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        }  # fmt: skip

        async def scenario(app: Driven) -> None:
            await app.command("/login")
            await app.wait_for("→ Sign in with an account")
            await app.send("Enter")
            await app.type("claude")
            await app.wait_for("→ Anthropic • unconfigured")
            await app.send("Enter")
            await app.wait_for("Logged in to Anthropic. Credentials saved to")
            stored = _auth(app)["anthropic"]
            assert stored["type"] == "oauth" and stored["access"] == anthropic.access_tokens[-1]
            [url] = opened.read_text(encoding="utf-8").split()
            assert url.startswith(f"{anthropic.url}/oauth/authorize?")
            await app.quit()

        play(tmp_path, "ours", [{"text": "unused"}], scenario, env=env, height=40)
