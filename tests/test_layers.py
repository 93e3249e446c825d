"""The import contracts in ``pyproject.toml`` hold for the project, and each one catches a
violation planted in a temporary tree.

The planted trees are checked with the project's own ``[tool.importlinter]`` configuration
(not a copy), so a contract weakened in ``pyproject.toml`` fails these tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.oracle import REPO

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = ("pi_ai", "pi_agent", "pi_tui", "pi_coding_agent")
FLOORS = ("app", "runtime", "customize", "core")


def _lint(src: Path, contract: str | None = None) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` with the project's configuration on the packages found in ``src``."""
    argv = [str(LINT_IMPORTS), "--no-cache", str(REPO / "pyproject.toml")]
    if contract is not None:
        argv += ["--contract", contract]
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(argv, cwd=src, env=env, capture_output=True, text=True, check=False)


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A source tree with the four packages and the floors of ``pi_coding_agent`` plus
    ``files`` (path under ``src`` -> text); every folder on the way is a package."""
    src = tmp_path / "src"
    skeleton = (
        *(f"{package}/__init__.py" for package in PACKAGES),
        *(f"pi_coding_agent/{floor}/__init__.py" for floor in FLOORS),
    )
    for name in (*skeleton, *files):
        path = src / name
        for folder in path.relative_to(src).parents:
            if folder != Path("."):
                (src / folder).mkdir(parents=True, exist_ok=True)
                (src / folder / "__init__.py").touch()
        path.write_text(files.get(name, ""))
    return src


def _broken(result: subprocess.CompletedProcess[str]) -> str:
    """The report of a broken contract, with an import that lint-imports wrapped after its
    arrow put back on one line."""
    assert result.returncode != 0, result.stdout + result.stderr
    return re.sub(r"->\s+", "-> ", result.stdout)


def test_project_keeps_every_contract() -> None:
    result = _lint(REPO / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    for contract in (
        "Layers",
        "pi_tui is used only",
        "Floors",
        "The core floor",
        "Private modules",
        "No import cycles",
    ):
        assert f"{contract}" in result.stdout
    assert "ignored imports" not in result.stdout, "a cycle is exempted by name"


def test_a_clean_tree_keeps_every_contract(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_ai/_messages.py": "",
            "pi_ai/__init__.py": "from pi_ai._messages import *\n",
            "pi_agent/__init__.py": "import pi_ai\n",
            "pi_coding_agent/core/session/_manager.py": "import pi_coding_agent.core.session._index\n",
            "pi_coding_agent/core/session/_index.py": "",
            "pi_coding_agent/core/session/__init__.py": "from pi_coding_agent.core.session._manager import *\n",
            "pi_coding_agent/runtime/agent_session/__init__.py": "import pi_agent\nimport pi_coding_agent.core.session\n",
        },
    )
    result = _lint(src)
    assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------- layers


def test_pi_ai_importing_pi_agent_breaks_the_layers(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_ai/__init__.py": "import pi_agent\n"})
    assert "pi_ai -> pi_agent" in _broken(_lint(src, "layers"))


def test_pi_agent_importing_pi_coding_agent_breaks_the_layers(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_agent/__init__.py": "from pi_coding_agent import x\n"})
    assert "pi_agent -> pi_coding_agent" in _broken(_lint(src, "layers"))


def test_a_lazy_upward_import_still_breaks_the_layers(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_ai/__init__.py": "def f():\n    import pi_coding_agent.app.cli\n",
            "pi_coding_agent/app/cli.py": "",
        },
    )
    assert "pi_ai -> pi_coding_agent.app.cli" in _broken(_lint(src, "layers"))


def test_pi_tui_importing_pi_ai_breaks_the_layers(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_tui/_renderer.py": "from pi_ai import Message\n"})
    assert "pi_tui._renderer -> pi_ai" in _broken(_lint(src, "layers"))


def test_pi_tui_importing_the_product_breaks_the_layers(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_tui/__init__.py": "import pi_coding_agent.app\n"})
    assert "pi_tui -> pi_coding_agent.app" in _broken(_lint(src, "layers"))


def test_pi_agent_drawing_with_pi_tui_is_caught(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_agent/_loop.py": "import pi_tui\n"})
    assert "pi_agent._loop -> pi_tui" in _broken(_lint(src, "tui-alone"))


# --------------------------------------------------------------------------- floors


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("core", "customize"),
        ("core", "runtime"),
        ("customize", "runtime"),
        ("runtime", "app"),
        ("core", "app"),
    ],
)
def test_a_floor_importing_a_higher_floor_is_caught(tmp_path: Path, lower: str, higher: str) -> None:
    src = _tree(
        tmp_path,
        {
            f"pi_coding_agent/{lower}/thing/__init__.py": f"def later():\n    import pi_coding_agent.{higher}.other\n",
            f"pi_coding_agent/{higher}/other/__init__.py": "",
        },
    )
    output = _broken(_lint(src, "floors"))
    assert f"pi_coding_agent.{lower}.thing -> pi_coding_agent.{higher}.other" in output


def test_floors_importing_downwards_keep_the_contract(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_coding_agent/app/cli/__init__.py": "import pi_coding_agent.runtime.agent_session\nimport pi_coding_agent.core.session\n",
            "pi_coding_agent/runtime/agent_session/__init__.py": "import pi_coding_agent.customize.skills\n",
            "pi_coding_agent/customize/skills/__init__.py": "import pi_coding_agent.core.paths\nimport pi_tui\n",
            "pi_coding_agent/core/session/__init__.py": "import pi_coding_agent.core.paths\n",
            "pi_coding_agent/core/paths/__init__.py": "",
        },
    )
    for contract in ("floors", "core-without-terminal", "layers"):
        result = _lint(src, contract)
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_core_floor_drawing_on_the_terminal_is_caught(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"pi_coding_agent/core/export/__init__.py": "from pi_tui import visible_width\n"})
    assert "pi_coding_agent.core.export -> pi_tui" in _broken(_lint(src, "core-without-terminal"))


# --------------------------------------------------------------------------- private modules


@pytest.mark.parametrize(
    "statement",
    [
        "from pi_ai._messages import WireStruct",
        "import pi_ai._messages",
        "from pi_ai import _messages",
        "def later():\n    from pi_ai._messages import WireStruct",
    ],
    ids=["from-module", "import", "from-package", "lazy"],
)
def test_importing_another_packages_private_module_is_caught(tmp_path: Path, statement: str) -> None:
    src = _tree(
        tmp_path, {"pi_ai/_messages.py": "WireStruct = object\n", "pi_agent/_roles.py": statement + "\n"}
    )
    assert "pi_agent._roles -> pi_ai._messages" in _broken(_lint(src, "private-modules"))


def test_a_subpackage_reaching_into_a_sibling_subpackages_private_module_is_caught(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_coding_agent/core/session/_manager.py": "class SessionManager: ...\n",
            "pi_coding_agent/runtime/agent_session/_create.py": "from pi_coding_agent.core.session._manager import SessionManager\n",
        },
    )
    output = _broken(_lint(src, "private-modules"))
    assert "pi_coding_agent.runtime.agent_session._create -> pi_coding_agent.core.session._manager" in output


def test_a_private_subpackage_is_private_too(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_ai/_internal/__init__.py": "",
            "pi_ai/_internal/wire.py": "",
            "pi_agent/__init__.py": "import pi_ai._internal.wire\n",
        },
    )
    assert "pi_agent -> pi_ai._internal.wire" in _broken(_lint(src, "private-modules"))


def test_private_modules_are_free_inside_their_own_package(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_coding_agent/core/session/_index.py": "",
            "pi_coding_agent/core/session/_manager.py": "from pi_coding_agent.core.session import _index\n",
            "pi_coding_agent/core/session/__init__.py": "from pi_coding_agent.core.session._manager import *\n",
            "pi_coding_agent/_version.py": "",
            "pi_coding_agent/app/cli/_main.py": "import pi_coding_agent._version\n",
        },
    )
    result = _lint(src, "private-modules")
    assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------- cycles


def test_two_subpackages_importing_each_other_is_a_cycle(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_coding_agent/core/session/__init__.py": "import pi_coding_agent.core.compaction\n",
            "pi_coding_agent/core/compaction/_summarize.py": (
                "def entries():\n    from pi_coding_agent.core.session import SessionManager\n"
            ),
        },
    )
    output = _broken(_lint(src, "acyclic"))
    assert "No cycles are allowed in pi_coding_agent.core." in output
    assert ".compaction -> .session" in output or ".session -> .compaction" in output


def test_a_cycle_between_modules_of_one_subpackage_is_caught(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_coding_agent/core/session/_manager.py": "import pi_coding_agent.core.session._listing\n",
            "pi_coding_agent/core/session/_listing.py": "import pi_coding_agent.core.session._manager\n",
        },
    )
    assert "No cycles are allowed in pi_coding_agent.core.session." in _broken(_lint(src, "acyclic"))


def test_a_cycle_inside_pi_ai_is_caught(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {"pi_ai/_codec.py": "import pi_ai._messages\n", "pi_ai/_messages.py": "import pi_ai._codec\n"},
    )
    assert "No cycles are allowed in pi_ai." in _broken(_lint(src, "acyclic"))


def test_one_way_imports_between_subpackages_are_no_cycle(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "pi_coding_agent/runtime/agent_session/__init__.py": "import pi_coding_agent.core.compaction\n",
            "pi_coding_agent/core/compaction/__init__.py": "import pi_coding_agent.core.session\n",
            "pi_coding_agent/core/session/__init__.py": "",
        },
    )
    result = _lint(src, "acyclic")
    assert result.returncode == 0, result.stdout + result.stderr
