"""The checks of ``bench/local_tasks.py``: a task's starting folder fails its check, a correct
solution passes it, and the shortcuts the 1.5B model took in earlier runs fail it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from _local_tasks_data import SPLITS, TASKS, Task

_BY_NAME = {task.name: task for task in TASKS}
_DATA = {task.name: task.files for task in TASKS}

# Per task: files written over the starting folder (None deletes one) and the printed answer.
Change = tuple[dict[str, str | None], str]

_SERVER_45 = (
    "import socket\n\n\ndef connect(host, port, timeout=45):\n"
    "    return socket.create_connection((host, port), timeout=timeout)\n\n\n"
    "def ping(host, retries=3, timeout=30):\n    return [host] * retries\n"
)
_DURATION_FIXED = (
    'def parse_duration(text):\n    total = 0\n    number = ""\n    for char in text:\n        if char.isdigit():\n'
    '            number += char\n        elif char == "h":\n            total += int(number) * 3600\n            number = ""\n'
    '        elif char == "m":\n            total += int(number) * 60\n            number = ""\n    return total\n'
)
_INI_DEBUG = "[server]\nhost = 127.0.0.1\nlevel = INFO\n\n[logging]\nlevel = DEBUG\nfile = app.log\n\n[audit]\nlevel = INFO\n"
_INVENTORY_FIXED = (
    'STOCK = {"apples": 12, "pears": 7, "plums": 23}\nORDERED = ["apples", "pears", "plums", "kiwis"]\n\n\n'
    "def total_stock(names):\n    return sum(STOCK.get(name, 0) for name in names)\n\n\nprint(total_stock(ORDERED))\n"
)

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
    "config-value": ({}, "max_retries is 17 in [network]."),
    "function-returns": ({}, 'tier(5000) returns "cobalt".'),
    "fix-slug-test": ({"text.py": 'def slugify(title):\n    return title.strip().lower().replace(" ", "-")\n'}, "Fixed."),
    "move-constant": (
        {
            "constants.py": "TAX_RATE = 0.2\n",
            "prices.py": "from constants import TAX_RATE\n\n\ndef gross(net):\n    return round(net * (1 + TAX_RATE), 2)\n",
            "invoice.py": 'from constants import TAX_RATE\nfrom prices import gross\n\nnet = 50\n'
            'print(f"net {net}, tax {net * TAX_RATE:.2f}, gross {gross(net)}")\n',
        },
        "Moved.",
    ),
    "new-class-with-test": (
        {
            "stack.py": "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n"
            "        self.items.append(item)\n\n    def pop(self):\n        return self.items.pop()\n\n"
            "    def is_empty(self):\n        return not self.items\n",
            "test_stack.py": "from stack import Stack\n\ns = Stack()\nassert s.is_empty()\ns.push(1)\nassert s.pop() == 1\n",
        },
        "Created both.",
    ),
    "count-lines": ({}, "wc -l reports 37 lines."),
    "change-default": ({"server.py": _SERVER_45}, "Changed."),
    "extract-function": (
        {
            "report.py": 'def format_price(value):\n    return "$" + f"{value:.2f}"\n\n\nitems = [("tea", 3.5), ("cake", 4.25)]\n'
            "total = sum(price for _, price in items)\nfor name, price in items:\n    print(name, format_price(price))\n"
            'print("total", format_price(total))\n'
        },
        "Extracted.",
    ),
    "count-json": ({}, "8 users are active."),
    "fix-average-test": ({"stats.py": "def average(values):\n    return sum(values) / len(values)\n"}, "Fixed."),
    "env-default": ({}, "It uses port 5127."),
    "count-functions": ({}, "tools.py defines five top-level functions."),
    "fix-duration-test": ({"duration.py": _DURATION_FIXED}, "Fixed."),
    "add-field-across": (
        {
            "models.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass User:\n    name: str\n    email: str\n",
            "service.py": "from models import User\n\n\ndef create_user(name, email):\n    return User(name=name, email=email)\n",
        },
        "Added.",
    ),
    "new-module-with-test": (
        {
            "temperature.py": "def celsius_to_fahrenheit(c):\n    return c * 9 / 5 + 32\n",
            "test_temperature.py": "from temperature import celsius_to_fahrenheit\n\nassert celsius_to_fahrenheit(100) == 212\n",
        },
        "Created.",
    ),
    "run-checksum": ({}, "It prints 12201."),
    "edit-ini-section": ({"settings.ini": _INI_DEBUG}, "Done."),
    "name-magic-number": (
        {
            "scheduler.py": "SECONDS_PER_DAY = 86400\n\n\ndef days_to_seconds(days):\n    return days * SECONDS_PER_DAY\n\n\n"
            "def seconds_to_days(seconds):\n    return seconds // SECONDS_PER_DAY\n\n\n"
            "def next_run(last, every_days):\n    return last + every_days * SECONDS_PER_DAY\n"
        },
        "Done.",
    ),
    "find-note": ({}, "notes/old/q1.md"),
    "fix-key-error": ({"inventory.py": _INVENTORY_FIXED}, "Fixed."),
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
    "config-value/other section's value": ({}, "max_retries is 3."),
    "config-value/both values": ({}, "It is 3 or 17."),
    "config-value/file edited": ({"settings.toml": "[network]\nmax_retries = 17\n"}, "It is 17."),
    "function-returns/wrong tier": ({}, 'It returns "jade".'),
    "function-returns/every tier listed": ({}, "jade, cobalt, amber or slate"),
    "fix-slug-test/test rewritten": (
        {"test_text.py": 'from text import slugify\n\nassert slugify("Hello World") == "hello_world"\n'},
        "Fixed.",
    ),
    "fix-slug-test/answers hard-coded": (
        {"text.py": 'def slugify(title):\n    return {"Hello World": "hello-world", "  Pi Agent ": "pi-agent"}[title]\n'},
        "Fixed.",
    ),
    "move-constant/copied, not moved": (
        {"constants.py": "TAX_RATE = 0.2\n"},
        "Moved.",
    ),
    "move-constant/invoice broken": (
        {
            "constants.py": "TAX_RATE = 0.2\n",
            "prices.py": "from constants import TAX_RATE\n\n\ndef gross(net):\n    return round(net * (1 + TAX_RATE), 2)\n",
            "invoice.py": 'import constants\nfrom prices import gross\n\nprint(gross(50))\n',
        },
        "Moved.",
    ),
    "new-class-with-test/test asserts nothing": (
        {
            "stack.py": "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n"
            "        self.items.append(item)\n\n    def pop(self):\n        return self.items.pop()\n\n"
            "    def is_empty(self):\n        return not self.items\n",
            "test_stack.py": "from stack import Stack\n\nprint('ok')\n",
        },
        "Created both.",
    ),
    "new-class-with-test/no test": (
        {"stack.py": "class Stack:\n    def __init__(self):\n        self.items = []\n"},
        "Created.",
    ),
    "count-lines/rows only": ({}, "There are 36 rows."),
    "count-lines/file rewritten": ({"data.csv": "x\n" * 37}, "37 lines."),
    "change-default/both changed": ({"server.py": _SERVER_45.replace("timeout=30", "timeout=45")}, "Changed."),
    "extract-function/defined, not used": (
        {"report.py": 'def format_price(value):\n    return "$" + f"{value:.2f}"\n\n\n' + _DATA["extract-function"]["report.py"]},
        "Extracted.",
    ),
    "count-json/all users": ({}, "There are 13 users."),
    "count-json/file edited": ({"users.json": "[]\n"}, "8 users."),
    "fix-average-test/test deleted": ({"test_stats.py": None}, "Fixed."),
    "fix-average-test/special case": (
        {"stats.py": "def average(values):\n    return 4 if len(values) == 3 else values[0]\n"},
        "Fixed.",
    ),
    "env-default/guessed": ({}, "It uses port 8000."),
    "env-default/app edited": ({"app.py": "PORT = 5127\n"}, "5127"),
    "count-functions/methods and comment counted": ({}, "tools.py defines 8 functions."),
    "fix-duration-test/test rewritten": (
        {"test_duration.py": 'from duration import parse_duration\n\nassert parse_duration("45m") == 2700\n'},
        "Fixed.",
    ),
    "add-field-across/models only": (
        {"models.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass User:\n    name: str\n    email: str = ''\n"},
        "Added.",
    ),
    "new-module-with-test/test without assert on the function": (
        {
            "temperature.py": "def celsius_to_fahrenheit(c):\n    return c * 9 / 5 + 32\n",
            "test_temperature.py": "import temperature\n\nassert True\n",
        },
        "Created.",
    ),
    "new-module-with-test/wrong formula": (
        {
            "temperature.py": "def celsius_to_fahrenheit(c):\n    return c * 2 + 30\n",
            "test_temperature.py": "from temperature import celsius_to_fahrenheit\n\nassert celsius_to_fahrenheit(0) == 30\n",
        },
        "Created.",
    ),
    "run-checksum/guessed": ({}, "It prints 4096."),
    "run-checksum/data changed": ({"data.txt": "x"}, "It prints 12201."),
    "edit-ini-section/every level changed": ({"settings.ini": _INI_DEBUG.replace("INFO", "DEBUG")}, "Done."),
    "edit-ini-section/section lost": ({"settings.ini": "[logging]\nlevel = DEBUG\nfile = app.log\n"}, "Done."),
    "name-magic-number/constant added only": (
        {"scheduler.py": "SECONDS_PER_DAY = 86400\n\n\n" + _DATA["name-magic-number"]["scheduler.py"]},
        "Done.",
    ),
    "find-note/every invoice note": ({}, "notes/monday.md, notes/tuesday.md or notes/old/q1.md"),
    "find-note/near miss": ({}, "notes/tuesday.md"),
    "fix-key-error/total printed": ({"inventory.py": "print(42)\n"}, "Fixed."),
    "fix-key-error/stock changed": (
        {"inventory.py": _INVENTORY_FIXED.replace('"plums": 23}', '"plums": 23, "kiwis": 0}')},
        "Fixed.",
    ),
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


def test_the_split_is_fixed() -> None:
    """The first ten (tuned on) stay tuned, at most ten new tuned ones, and a held-out part of at
    least ten that is a third of the whole."""
    names = [task.name for task in TASKS]
    held_out = [task for task in TASKS if task.split == "held_out"]
    assert len(set(names)) == len(names) >= 30
    assert {task.split for task in TASKS} == set(SPLITS)
    assert all(task.split == "tuned" for task in TASKS[:10])
    assert len(held_out) >= 10 and len(held_out) * 3 >= len(TASKS)
    assert len(TASKS) - 10 - len(held_out) <= 10


def test_every_task_has_a_shortcut_that_fails() -> None:
    """Each task's check is tried against at least one plausible wrong result, except the file
    creation tasks of the first ten, whose only shortcut is doing nothing."""
    tried = {case.split("/", maxsplit=1)[0] for case in _SHORTCUTS}
    assert set(_BY_NAME) - tried <= {"create-file", "run-command"}


def test_the_bench_runs_a_split_and_reports_the_parts_apart(capsys: pytest.CaptureFixture[str]) -> None:
    import local_tasks

    held_out = local_tasks._chosen_tasks("held_out", "")
    assert [task.name for task in held_out] == [task.name for task in TASKS if task.split == "held_out"]
    assert [task.name for task in local_tasks._chosen_tasks("all", "fix-bug,env-default")] == ["fix-bug", "env-default"]
    assert local_tasks._chosen_tasks("tuned", "env-default") == []
    outcomes = [
        local_tasks.Outcome("ours", "fix-bug", True, 10.0, 20, 100, 0, 2),
        local_tasks.Outcome("ours", "env-default", False, 5.0, 5, 50, 0, 1),
    ]
    local_tasks._print_split_tables(outcomes, ["ours"])
    printed = capsys.readouterr().out
    tuned_part, held_part = printed.split("== held_out (1 tasks) ==")
    assert "== tuned (1 tasks) ==" in tuned_part and "ours: 1/1 solved" in tuned_part and "env-default" not in tuned_part
    assert "ours: 0/1 solved" in held_part and "fix-bug" not in held_part
