"""The ten tasks of ``bench/local_tasks.py``: files to start from, the prompt, and a check.

Each check looks at the folder after the agent has finished (and, for questions, at the answer
text the agent printed); none of them reads the answer as a person would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Task:
    name: str
    prompt: str
    files: dict[str, str]
    check: Callable[[Path, str], bool]


_CALC_TEST = "from calc import add, mul\n\nassert add(2, 3) == 5\nassert mul(2, 3) == 6\nprint('ok')\n"


def _runs(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], cwd=folder, capture_output=True, text=True, timeout=60, check=False
    )


def _read(folder: Path, name: str) -> str:
    path = folder / name
    return path.read_text() if path.is_file() else ""


def _fix_bug(folder: Path, _answer: str) -> bool:
    # The test must be the one the task started with: deleting or rewriting it fixes nothing.
    return (
        _read(folder, "test_calc.py") == _CALC_TEST
        and _runs(folder, "test_calc.py").returncode == 0
        and "def add" in _read(folder, "calc.py")
    )


def _created(folder: Path, _answer: str) -> bool:
    return _read(folder, "greeting.txt").strip() == "Hello, Pi!"


def _renamed(folder: Path, _answer: str) -> bool:
    sources = _read(folder, "utils.py") + _read(folder, "main.py")
    result = _runs(folder, "main.py")
    return "compute_total" not in sources and "def sum_prices" in sources and result.stdout.strip() == "60"


def _readme_answer(_folder: Path, answer: str) -> bool:
    return "8137" in answer


def _command_output(_folder: Path, answer: str) -> bool:
    return "1048583" in answer.replace(",", "")


def _added_function(folder: Path, _answer: str) -> bool:
    probe = "from mathutils import is_even; assert is_even(4) and not is_even(7) and is_even(0); print('ok')"
    return _runs(folder, "-c", probe).stdout.strip() == "ok" and "def square" in _read(folder, "mathutils.py")


def _fixed_name_error(folder: Path, _answer: str) -> bool:
    # The greeting must still come from greet(): printing the text directly fixes nothing.
    result = _runs(folder, "greet.py")
    return result.returncode == 0 and result.stdout.strip() == "Hello, Ada!" and "def greet(" in _read(folder, "greet.py")


def _config_edited(folder: Path, _answer: str) -> bool:
    try:
        config = json.loads(_read(folder, "config.json"))
    except ValueError:
        return False
    return config == {"name": "demo", "debug": False, "port": 8080}


def _counted(_folder: Path, answer: str) -> bool:
    words = answer.replace(".", " ").replace(",", " ").split()
    return "4" in words or "four" in (word.lower() for word in words)


def _script_written(folder: Path, _answer: str) -> bool:
    result = _runs(folder, "count.py")
    return result.returncode == 0 and result.stdout.split() == ["1", "2", "3", "4", "5"]


TASKS: tuple[Task, ...] = (
    Task(
        "fix-bug",
        "The test in test_calc.py fails. Fix the bug in calc.py so that `python3 test_calc.py` passes.",
        {
            "calc.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
            "test_calc.py": _CALC_TEST,
        },
        _fix_bug,
    ),
    Task(
        "create-file",
        "Create a file named greeting.txt whose only content is: Hello, Pi!",
        {},
        _created,
    ),
    Task(
        "rename-function",
        "Rename the function compute_total to sum_prices everywhere: in utils.py and in main.py.",
        {
            "utils.py": "def compute_total(prices):\n    return sum(prices)\n",
            "main.py": "from utils import compute_total\n\nprint(compute_total([10, 20, 30]))\n",
        },
        _renamed,
    ),
    Task(
        "readme-question",
        "According to README.md, what is the default port of the service? Answer with the number.",
        {
            "README.md": "# Weather service\n\nServes forecasts over HTTP.\n\n## Configuration\n\n"
            "Set `WEATHER_KEY` to your API key. The default port is 8137; change it with `--port`.\n",
        },
        _readme_answer,
    ),
    Task(
        "run-command",
        "Run `python3 compute.py` and tell me the number it prints.",
        {"compute.py": "value = 2 ** 20 + 7\nprint(value)\n"},
        _command_output,
    ),
    Task(
        "add-function",
        "Add a function is_even(n) to mathutils.py that returns True when n is even and False otherwise. "
        "Keep the existing function.",
        {"mathutils.py": "def square(n):\n    return n * n\n"},
        _added_function,
    ),
    Task(
        "fix-name-error",
        "Running `python3 greet.py` fails with a NameError. Fix greet.py so it prints the greeting.",
        {"greet.py": 'def greet(name):\n    return "Hello, " + name + "!"\n\n\nprint(greeet("Ada"))\n'},
        _fixed_name_error,
    ),
    Task(
        "edit-config",
        'In config.json, set "debug" to false. Change nothing else.',
        {"config.json": '{\n  "name": "demo",\n  "debug": true,\n  "port": 8080\n}\n'},
        _config_edited,
    ),
    Task(
        "count-files",
        "How many .py files are in the src folder (including subfolders)? Answer with the number.",
        {
            "src/app.py": "print('app')\n",
            "src/models.py": "class User: ...\n",
            "src/lib/db.py": "def connect(): ...\n",
            "src/lib/cache.py": "CACHE = {}\n",
            "src/README.md": "source code\n",
            "setup.py": "# not in src\n",
        },
        _counted,
    ),
    Task(
        "write-script",
        "Write a Python script count.py that prints the numbers 1 to 5, one per line.",
        {},
        _script_written,
    ),
)
