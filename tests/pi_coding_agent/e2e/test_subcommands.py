"""Words Pi reads as subcommands are never a prompt: through the real CLI, each runs its command
(or is refused with one line naming the missing feature and exit 1), and the provider on
127.0.0.1 (which answers anything) receives no request. Pi itself, run the same way, sends none
either."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider

SETTINGS = {
    "retry": {"enabled": False},
    "defaultProvider": "scripted-openai",
    "defaultModel": "scripted-model",
}


@pytest.mark.parametrize(
    "args",
    [
        ["auth", "check", "--provider", "scripted-openai"],
        ["auth", "print-api-key", "-p", "tell me a joke"],
    ],
    ids=" ".join,
)
def test_auth_commands_reach_no_model(tmp_path: Path, args: list[str]) -> None:
    """``pi auth`` runs the auth commands (``docs/auth.md``); a message after it is an error,
    never a prompt."""
    with ScriptedProvider([{"text": "a reply nobody should get"}] * 3) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, SETTINGS)
        result = run_ours(sandbox, *args, stdin="piped text that would be a prompt")
    assert provider.requests == []
    if args[1] == "check":  # the provider has a key in models.json
        assert (result.returncode, result.stdout) == (0, "ready\n")
    else:
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr == "Error: Auth commands only accept --provider and --model\n"
    assert sandbox.session_files() == []


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["install", "npm:some-extension"], 1),
        (["uninstall", "npm:some-extension"], 1),
        (["remove", "git:github.com/a/b", "-l"], 1),
        (["update", "--self"], 0),
        (["config"], 0),
        (["list", "-p", "tell me a joke"], 1),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else f"exit {value}",
)
def test_package_commands_reach_no_model(tmp_path: Path, args: list[str], status: int) -> None:
    """The package words run the package commands (``docs/packages.md``); none is a prompt."""
    with ScriptedProvider([{"text": "a reply nobody should get"}] * 3) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, SETTINGS)
        # npm asks a registry that refuses at once on 127.0.0.1: the install fails without the network.
        result = run_ours(sandbox, *args, stdin="piped text that would be a prompt",
                          npm_config_registry="http://127.0.0.1:9/", npm_config_fetch_retries="0")  # fmt: skip
    assert provider.requests == []
    assert result.returncode == status, result.stderr
    assert "not built" not in result.stderr
    assert sandbox.session_files() == []


def test_experimental_server_and_client_only_with_pi_experimental(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "a reply"}] * 3) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, SETTINGS)
        refused = run_ours(sandbox, "server", PI_EXPERIMENTAL="1")
        assert provider.requests == []
        assert refused.returncode == 1 and "experimental session server" in refused.stderr
        # Without the flag Pi reads "server" as a message, and so do we: the control that the
        # provider does see what the CLI sends.
        prompted = run_ours(sandbox, "-p", "server")
    assert prompted.returncode == 0, prompted.stderr
    assert len(provider.requests) == 1 and "server" in str(provider.requests[0])


def test_only_the_first_argument_is_a_subcommand(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "here is the list"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, SETTINGS)
        result = run_ours(sandbox, "-p", "list")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "here is the list"
    assert len(provider.requests) == 1


@pytest.mark.oracle
@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["auth", "check"],
        ["remove", "npm:nothing-installed"],
        ["update", "--help"],
        ["config", "--help"],
    ],
    ids=" ".join,
)
def test_pi_reads_the_same_words_as_subcommands(tmp_path: Path, args: list[str]) -> None:
    with ScriptedProvider([{"text": "a reply nobody should get"}] * 3) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, SETTINGS)
        run_pi(sandbox, *args, stdin="piped text")
    assert provider.requests == []
