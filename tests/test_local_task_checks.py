"""The checks of ``bench/local_tasks.py``: a task's starting folder fails its check, a correct
solution passes it, and the shortcuts the 1.5B model took in earlier runs fail it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from _local_tasks_data import TASKS, Task

_BY_NAME = {task.name: task for task in TASKS}

# Per task: files written over the starting folder (None deletes one) and the printed answer.
Change = tuple[dict[str, str | None], str]

_SOLUTIONS: dict[str, Change] = {
    "fix-bug": ({"calc.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"}, "Fixed."),
    "create-file": ({"greeting.txt": "Hello, Pi!\n"}, "Created greeting.txt."),
    "rename-function": (
        {
            "utils.py": "def sum_prices(prices):\n    return sum(prices)\n",
            "main.py": "from utils import sum_prices\n\nprint(sum_prices([10, 20, 30]))\n",
        },
        "Renamed.",
    ),
    "readme-question": ({}, "The default port is 8137."),
    "run-command": ({}, "It prints 1,048,583."),
    "add-function": (
        {"mathutils.py": "def square(n):\n    return n * n\n\n\ndef is_even(n):\n    return n % 2 == 0\n"},
        "Added is_even.",
    ),
    "fix-name-error": (
        {"greet.py": 'def greet(name):\n    return "Hello, " + name + "!"\n\n\nprint(greet("Ada"))\n'},
        "Fixed the typo.",
    ),
    "edit-config": ({"config.json": '{\n  "name": "demo",\n  "debug": false,\n  "port": 8080\n}\n'}, "Done."),
    "count-files": ({}, "There are 4 .py files."),
    "write-script": ({"count.py": "for number in range(1, 6):\n    print(number)\n"}, "Wrote count.py."),
}

# Results the model produced in bench runs that look done but are not.
_SHORTCUTS: dict[str, Change] = {
    "fix-bug/test deleted": ({"test_calc.py": None}, "Fixed."),
    "fix-bug/test rewritten": ({"test_calc.py": "print('ok')\n"}, "Fixed."),
    "rename-function/renamed back": (
        {"utils.py": "def compute_total(prices):\n    return sum(prices)\n"},
        "Renamed.",
    ),
    "rename-function/one file only": ({"utils.py": "def sum_prices(prices):\n    return sum(prices)\n"}, "Renamed."),
    "readme-question/readme edited": ({"README.md": "# Weather service\n\nport 8137\n"}, "I updated README.md."),
    "add-function/square duplicated": ({"mathutils.py": "def square(n):\n    return n * n\n    return n * n\n"}, "Added."),
    "add-function/square replaced": ({"mathutils.py": "def is_even(n):\n    return n % 2 == 0\n"}, "Added."),
    "fix-name-error/greeting printed": ({"greet.py": 'print("Hello, Ada!")\n'}, "Fixed."),
    "edit-config/other key changed": ({"config.json": '{"name": "demo", "debug": false, "port": 80}\n'}, "Done."),
    "edit-config/not json": ({"config.json": '{"name": "demo", "debug": false,'}, "Done."),
    "count-files/readme counted": ({}, "There are 5 files."),
    "write-script/wrong range": ({"count.py": "for number in range(5):\n    print(number)\n"}, "Wrote count.py."),
}


def _prepared(task: Task, folder: Path, change: dict[str, str | None]) -> Path:
    for name, text in [*task.files.items(), *change.items()]:
        path = folder / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def test_every_task_has_a_solution() -> None:
    assert set(_SOLUTIONS) == set(_BY_NAME)


@pytest.mark.parametrize("name", sorted(_BY_NAME))
def test_the_starting_folder_fails(name: str, tmp_path: Path) -> None:
    task = _BY_NAME[name]
    assert not task.check(_prepared(task, tmp_path, {}), "I looked at it and it is done.")


@pytest.mark.parametrize("name", sorted(_SOLUTIONS))
def test_a_correct_solution_passes(name: str, tmp_path: Path) -> None:
    task = _BY_NAME[name]
    change, answer = _SOLUTIONS[name]
    assert task.check(_prepared(task, tmp_path, change), answer)


@pytest.mark.parametrize("case", sorted(_SHORTCUTS))
def test_a_shortcut_fails(case: str, tmp_path: Path) -> None:
    task = _BY_NAME[case.split("/", maxsplit=1)[0]]
    change, answer = _SHORTCUTS[case]
    assert not task.check(_prepared(task, tmp_path, change), answer)
