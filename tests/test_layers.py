"""The layer contract (pi_coding_agent -> pi_agent -> pi_ai) holds, and the check can fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.oracle import REPO

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

CONTRACT = """
[importlinter]
root_packages =
    pi_ai
    pi_agent
    pi_coding_agent

[importlinter:contract:layers]
name = Layers
type = layers
layers =
    pi_coding_agent
    pi_agent
    pi_ai
"""


def _lint(src: Path, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    argv = [str(LINT_IMPORTS), "--no-cache"]
    if config is not None:
        argv += ["--config", str(config)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        argv, cwd=config.parent if config else REPO, env=env, capture_output=True, text=True, check=False
    )


def _tree(tmp_path: Path, imports: dict[str, str]) -> Path:
    src = tmp_path / "src"
    for package in ("pi_ai", "pi_agent", "pi_coding_agent"):
        (src / package).mkdir(parents=True)
        (src / package / "__init__.py").write_text(imports.get(package, ""))
    (tmp_path / ".importlinter").write_text(CONTRACT)
    return src


def test_project_respects_layers() -> None:
    result = _lint(REPO / "src")
    assert result.returncode == 0, result.stdout + result.stderr


def test_allowed_direction_passes(tmp_path: Path) -> None:
    src = _tree(
        tmp_path, {"pi_agent": "import pi_ai\n", "pi_coding_agent": "import pi_agent\nimport pi_ai\n"}
    )
    result = _lint(src, tmp_path / ".importlinter")
    assert result.returncode == 0, result.stdout + result.stderr


def test_pi_ai_importing_pi_agent_fails(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_ai": "import pi_agent\n"})
    result = _lint(src, tmp_path / ".importlinter")
    assert result.returncode != 0
    assert "pi_ai -> pi_agent" in result.stdout


def test_pi_agent_importing_pi_coding_agent_fails(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_agent": "from pi_coding_agent import x\n"})
    result = _lint(src, tmp_path / ".importlinter")
    assert result.returncode != 0
    assert "pi_agent -> pi_coding_agent" in result.stdout


def test_pi_ai_importing_pi_coding_agent_lazily_still_fails(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_ai": "def f():\n    import pi_coding_agent.cli\n"})
    (src / "pi_coding_agent" / "cli.py").write_text("")
    result = _lint(src, tmp_path / ".importlinter")
    assert result.returncode != 0
