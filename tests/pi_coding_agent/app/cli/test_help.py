"""``pi --help``: every option it names is one our parser takes, and every option Pi 0.85 or
1.6 documents that our parser takes is named (checked against their own ``--help``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_coding_agent.app.cli._args import parse_args
from pi_coding_agent.app.cli._help import PROVIDER_VARIABLES
from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi

_OPTION = re.compile(r"(?<![\w-])(--?[a-z][a-z-]*)(?![\w-])")


def _options(help_text: str) -> set[str]:
    """The options a help text names at the start of its rows (``-p, --print [message]``)."""
    found: set[str] = set()
    for row in help_text.splitlines():
        head = row.strip().split("  ")[0]
        if head.startswith("-"):
            found.update(_OPTION.findall(head))
    return found


def _accepted(option: str) -> bool:
    parsed = parse_args([option, "regular"])
    unknown = any(d.message.startswith("Unknown option") for d in parsed.diagnostics)
    return not parsed.unknown_flags and not unknown


@pytest.fixture(scope="module")
def help_texts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    sandbox = Sandbox.create(tmp_path_factory.mktemp("help"), "http://127.0.0.1:9")
    texts = {"ours": run_ours(sandbox, "--help").stdout}
    texts["0.85"] = run_pi(sandbox, "--help").stdout
    texts["1.6"] = run_pi(sandbox, "--help", current=True).stdout
    return texts


def test_every_option_named_is_one_we_take(help_texts: dict[str, str]) -> None:
    ours = _options(help_texts["ours"])
    assert {"-p", "--mode", "-r", "-e", "--export", "--models", "--theme", "--tui-mode"} <= ours
    assert [option for option in sorted(ours) if not _accepted(option)] == []


def test_every_option_pi_documents_that_we_take_is_named(help_texts: dict[str, str]) -> None:
    ours = _options(help_texts["ours"])
    for version in ("0.85", "1.6"):
        documented = _options(help_texts[version])
        assert len(documented) > 40, help_texts[version]
        missing = sorted(o for o in documented - ours if _accepted(o))
        assert missing == [], f"Pi {version} documents {missing}; our --help does not"


def test_help_names_rpc_mode_and_no_longer_says_not_available(help_texts: dict[str, str]) -> None:
    text = help_texts["ours"]
    assert "--mode <text|json|rpc>" in text
    assert "not available" not in text
    assert "OPENAI_API_KEY" in text and "PI_CODING_AGENT_DIR" in text


def test_help_with_an_extension_lists_its_flags(tmp_path: Path) -> None:
    extension = tmp_path / "flagged.py"
    extension.write_text(
        "def setup(pi):\n    pi.register_flag('plan', type='boolean', description='Plan first')\n",
        encoding="utf-8",
    )
    sandbox = Sandbox.create(tmp_path / "run", "http://127.0.0.1:9")
    done = run_ours(sandbox, "-e", str(extension), "--help")
    assert done.returncode == 0, done.stderr
    assert "Extension CLI Flags:\n  --plan" in done.stdout
    assert done.stdout.index("Extension CLI Flags:") < done.stdout.index("Environment variables")


def test_provider_variables_are_those_pi_ai_reads() -> None:
    from pi_ai import api_key_env_vars, provider_env_names
    from pi_ai.models import builtin_provider_infos

    readers: dict[str, list[str]] = {}
    for provider, info in builtin_provider_infos().items():
        for variable in (*api_key_env_vars(provider), *provider_env_names(provider)):
            names = readers.setdefault(variable, [])
            if info.name not in names:
                names.append(info.name)
    expected = "".join(f"  {variable:<30} {', '.join(names)}\n" for variable, names in readers.items())
    assert expected == PROVIDER_VARIABLES
