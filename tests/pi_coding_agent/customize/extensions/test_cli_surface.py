"""``pi --help`` lists the flags extensions register and ``pi --list-models`` the providers
they register: Pi's CLI with ``cli_surface.ts`` and ours with ``cli_surface.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.customize.extensions._support import FIXTURES
from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support import oracle


def _flag_rows(help_text: str, fixture: str) -> list[str]:
    lines = help_text.split("\n")
    start = lines.index("Extension CLI Flags:") + 1
    rows = []
    for line in lines[start:]:
        if not line.startswith("  --"):
            break
        rows.append(line.replace(str(FIXTURES / fixture), "<extension>"))
    return rows


def _provider_rows(table: str) -> list[str]:
    return [line.rstrip() for line in table.split("\n") if line.startswith("ext-provider")]


@pytest.mark.timeout(300)
def test_help_and_list_models_show_what_extensions_registered(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9/v1")
    seen = {}
    for side, run, fixture in (("pi", run_pi, "cli_surface.ts"), ("ours", run_ours, "cli_surface.py")):
        shown = run(box, "-e", str(FIXTURES / fixture), "--help", PI_OFFLINE="1")
        listed = run(box, "-e", str(FIXTURES / fixture), "--list-models", "ext", PI_OFFLINE="1")
        assert shown.returncode == 0 and listed.returncode == 0, (side, shown.stderr, listed.stderr)
        seen[side] = (_flag_rows(shown.stdout, fixture), _provider_rows(listed.stdout))
    assert seen["ours"] == seen["pi"]
    assert seen["pi"][0] == [
        "  --plan                      Start in plan mode",
        "  --depth <value>             Registered by <extension>",
    ]
    assert len(seen["pi"][1]) == 2


def test_help_without_extensions_has_no_extension_section(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9/v1")
    for args in (("--help",), ("-ne", "--help")):
        shown = run_ours(box, *args)
        assert shown.returncode == 0 and shown.stdout.startswith("pi - a coding agent")
        assert "Extension CLI Flags:" not in shown.stdout


def test_help_lists_the_flags_of_a_discovered_extension_and_stores_nothing(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    (box.agent_dir / "extensions").mkdir()
    (box.agent_dir / "extensions" / "surface.py").write_text((FIXTURES / "cli_surface.py").read_text(), encoding="utf-8")
    shown = run_ours(box, "--help")
    assert shown.returncode == 0
    assert "  --plan                      Start in plan mode" in shown.stdout.split("\n")
    listed = run_ours(box, "--list-models", "ext-model")
    assert "ext-provider  ext-model" in listed.stdout
    assert not (box.agent_dir / "sessions").exists()  # help and --list-models open no session file, as in Pi
