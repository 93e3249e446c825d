"""The tasks of ``bench/local_tasks.py``: files to start from, the prompt, a check, and a split.

Each check looks at the folder after the agent has finished (and, for questions, at the answer
text the agent printed); none of them reads the answer as a person would. The checks also catch
the shortcuts a small model takes: answering without reading (the answers are numbers and names
nobody guesses), changing nothing and claiming success (the starting folder fails), deleting or
rewriting the test (tests must be byte for byte the ones given), and editing a file that was only
asked about (questions need every starting file unchanged).

Splits (fixed on 2026-12-06, before any model run of the new tasks): ``tuned`` are the tasks the
aids may be tuned on (the first ten, which they were, and ten new ones); ``held_out`` are ten
tasks that are never looked at while tuning aids: not their transcripts, not their failures, not
their results beyond the count. Only the bench's summary of them is read. Do not move a task
between the splits, and do not tune on a held-out failure; add new tuned tasks instead.
"""

from __future__ import annotations

import configparser
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SPLITS = ("tuned", "held_out")


@dataclass(frozen=True)
class Task:
    name: str
    prompt: str
    files: dict[str, str]
    check: Callable[[Path, str], bool]
    split: str = "tuned"


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


_FIRST_TEN: tuple[Task, ...] = (
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


# ---- Helpers for the twenty newer tasks ----


def _numbers(answer: str) -> set[str]:
    """The numbers in an answer, thousands separators dropped ("1,024" is "1024")."""
    return set(re.findall(r"\d+(?:\.\d+)?", answer.replace(",", "")))


def _says(answer: str, number: int, word: str = "") -> bool:
    lowered = re.findall(r"[a-z]+", answer.lower())
    return str(number) in _numbers(answer) or (bool(word) and word in lowered)


def _untouched(folder: Path, files: dict[str, str]) -> bool:
    """Every starting file is still there, byte for byte: a question is not a request to edit."""
    return all(_read(folder, name) == text and (folder / name).is_file() for name, text in files.items())


def _probe(folder: Path, code: str) -> bool:
    """Runs ``code`` in the folder; it prints ``ok`` when the behaviour asked for is there."""
    result = _runs(folder, "-c", code)
    return result.returncode == 0 and result.stdout.strip().splitlines()[-1:] == ["ok"]


def _test_catches(folder: Path, test: str, module: str, broken: str) -> bool:
    """The agent's own test fails against a wrong implementation: a test that asserts nothing
    (or nothing about the module) does not count."""
    outer = Path(tempfile.mkdtemp(prefix="local-task-broken-"))
    try:
        scratch = Path(shutil.copytree(folder, outer / "copy"))
        (scratch / module).write_text(broken)
        return _runs(scratch, test).returncode != 0
    finally:
        shutil.rmtree(outer, ignore_errors=True)


def _test_kept_and_passes(folder: Path, test: str, text: str) -> bool:
    return _read(folder, test) == text and _runs(folder, test).returncode == 0


# ---- Ten newer tuned tasks ----

_SETTINGS_TOML = (
    '[database]\nhost = "db.internal"\nmax_retries = 3\ntimeout = 12\n\n'
    '[network]\nproxy = "none"\nmax_retries = 17\nbackoff = 2.5\n\n[cache]\nsize = 512\n'
)
_LEVELS_PY = (
    "def tier(points):\n    if points >= 10000:\n        return \"jade\"\n    if points >= 4000:\n"
    "        return \"cobalt\"\n    if points >= 1500:\n        return \"amber\"\n    return \"slate\"\n"
)
_TEXT_PY = 'def slugify(title):\n    return title.strip().lower().replace(" ", "_")\n'
_TEXT_TEST = (
    'from text import slugify\n\nassert slugify("Hello World") == "hello-world"\n'
    'assert slugify("  Pi Agent ") == "pi-agent"\nprint("ok")\n'
)
_PRICES_PY = "TAX_RATE = 0.2\n\n\ndef gross(net):\n    return round(net * (1 + TAX_RATE), 2)\n"
_INVOICE_PY = (
    'from prices import gross\n\nTAX_RATE = 0.2\n\nnet = 50\n'
    'print(f"net {net}, tax {net * TAX_RATE:.2f}, gross {gross(net)}")\n'
)
_STACK_BROKEN = (
    "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        pass\n\n"
    "    def pop(self):\n        return None\n\n    def is_empty(self):\n        return False\n"
)
_DATA_CSV = "id,city,reading\n" + "".join(f"{n},{city},{(n * 37) % 101}\n" for n, city in zip(
    range(1, 37), ["Oslo", "Lima", "Pune", "Kiev", "Nice", "Bern"] * 6, strict=True))
_SERVER_PY = (
    "import socket\n\n\ndef connect(host, port, timeout=30):\n"
    "    return socket.create_connection((host, port), timeout=timeout)\n\n\n"
    "def ping(host, retries=3, timeout=30):\n    return [host] * retries\n"
)
_REPORT_PY = (
    'items = [("tea", 3.5), ("cake", 4.25)]\ntotal = sum(price for _, price in items)\n'
    'for name, price in items:\n    print(name, "$" + f"{price:.2f}")\nprint("total", "$" + f"{total:.2f}")\n'
)
_USERS_JSON = json.dumps([
    {"name": name, "active": active} for name, active in [
        ("ada", True), ("bo", False), ("cy", True), ("dee", True), ("eli", False), ("fay", True), ("gus", False),
        ("hal", True), ("ivy", True), ("jo", False), ("kai", True), ("lu", False), ("max", True),
    ]
], indent=2) + "\n"
_STATS_PY = "def average(values):\n    return sum(values) / (len(values) - 1)\n"
_STATS_TEST = "from stats import average\n\nassert average([2, 4, 6]) == 4\nassert average([5]) == 5\nprint('ok')\n"


def _config_value(folder: Path, answer: str) -> bool:
    return "17" in _numbers(answer) and "3" not in _numbers(answer) and _untouched(folder, {"settings.toml": _SETTINGS_TOML})


def _function_returns(folder: Path, answer: str) -> bool:
    words = set(re.findall(r"[a-z]+", answer.lower()))
    return "cobalt" in words and not words & {"jade", "amber", "slate"} and _untouched(folder, {"levels.py": _LEVELS_PY})


def _slug_fixed(folder: Path, _answer: str) -> bool:
    return _test_kept_and_passes(folder, "test_text.py", _TEXT_TEST) and _probe(
        folder, "from text import slugify; assert slugify('A b C') == 'a-b-c'; print('ok')"
    )


def _constant_moved(folder: Path, _answer: str) -> bool:
    sources = _read(folder, "prices.py") + _read(folder, "invoice.py")
    return (
        re.search(r"^TAX_RATE\s*=", sources, re.MULTILINE) is None
        and sources.count("constants") >= 2
        and _probe(folder, "from constants import TAX_RATE; assert TAX_RATE == 0.2; print('ok')")
        and _runs(folder, "invoice.py").stdout.strip() == "net 50, tax 10.00, gross 60.0"
    )


def _stack_with_test(folder: Path, _answer: str) -> bool:
    probe = (
        "from stack import Stack; s = Stack(); assert s.is_empty(); s.push(1); s.push(2); assert not s.is_empty(); "
        "assert s.pop() == 2 and s.pop() == 1 and s.is_empty(); print('ok')"
    )
    return (
        _probe(folder, probe)
        and _runs(folder, "test_stack.py").returncode == 0
        and _test_catches(folder, "test_stack.py", "stack.py", _STACK_BROKEN)
    )


def _lines_counted(folder: Path, answer: str) -> bool:
    return "37" in _numbers(answer) and _untouched(folder, {"data.csv": _DATA_CSV})


def _default_changed(folder: Path, _answer: str) -> bool:
    probe = (
        "import inspect, server; d = lambda f: inspect.signature(f).parameters['timeout'].default; "
        "assert d(server.connect) == 45 and d(server.ping) == 30 and server.ping('h') == ['h'] * 3; print('ok')"
    )
    return _probe(folder, probe)


def _price_extracted(folder: Path, _answer: str) -> bool:
    source = _read(folder, "report.py")
    return (
        source.count(".2f") == 1
        and _runs(folder, "report.py").stdout.split("\n")[:3] == ["tea $3.50", "cake $4.25", "total $7.75"]
        and _probe(folder, "import report; assert report.format_price(2) == '$2.00'; print('ok')")
    )


def _users_counted(folder: Path, answer: str) -> bool:
    return _says(answer, 8, "eight") and _untouched(folder, {"users.json": _USERS_JSON})


def _average_fixed(folder: Path, _answer: str) -> bool:
    return _test_kept_and_passes(folder, "test_stats.py", _STATS_TEST) and _probe(
        folder, "from stats import average; assert average([1, 2, 3, 4]) == 2.5; print('ok')"
    )


NEW_TUNED: tuple[Task, ...] = (
    Task(
        "config-value",
        "In settings.toml, what is max_retries in the [network] section? Answer with the number.",
        {"settings.toml": _SETTINGS_TOML},
        _config_value,
    ),
    Task(
        "function-returns",
        "According to levels.py, what does tier(5000) return? Answer with the returned string.",
        {"levels.py": _LEVELS_PY},
        _function_returns,
    ),
    Task(
        "fix-slug-test",
        "`python3 test_text.py` fails. Fix slugify in text.py so that the test passes; do not change the test.",
        {"text.py": _TEXT_PY, "test_text.py": _TEXT_TEST},
        _slug_fixed,
    ),
    Task(
        "move-constant",
        "prices.py and invoice.py both define TAX_RATE = 0.2. Move it into a new file constants.py and import "
        "it from there in both files.",
        {"prices.py": _PRICES_PY, "invoice.py": _INVOICE_PY},
        _constant_moved,
    ),
    Task(
        "new-class-with-test",
        "Create stack.py with a class Stack that has push(item), pop() and is_empty() methods, and a test file "
        "test_stack.py that checks them with assert statements. `python3 test_stack.py` must pass.",
        {},
        _stack_with_test,
    ),
    Task(
        "count-lines",
        "Run `wc -l data.csv` and tell me how many lines it reports.",
        {"data.csv": _DATA_CSV},
        _lines_counted,
    ),
    Task(
        "change-default",
        "In server.py, change the default timeout of the function connect from 30 to 45 seconds. "
        "Leave ping as it is.",
        {"server.py": _SERVER_PY},
        _default_changed,
    ),
    Task(
        "extract-function",
        'report.py formats prices as "$" + f"{value:.2f}" in two places. Extract that into a function '
        "format_price(value) in report.py and use it in both places; the output must stay the same.",
        {"report.py": _REPORT_PY},
        _price_extracted,
    ),
    Task(
        "count-json",
        'How many users in users.json have "active": true? Answer with the number.',
        {"users.json": _USERS_JSON},
        _users_counted,
    ),
    Task(
        "fix-average-test",
        "The test in test_stats.py fails. Fix the bug in stats.py so that `python3 test_stats.py` passes.",
        {"stats.py": _STATS_PY, "test_stats.py": _STATS_TEST},
        _average_fixed,
    ),
)


# ---- Ten held-out tasks ----
# Chosen on 2026-12-06 before any model run, and never used for tuning: see the module docstring.

_APP_PY = (
    'import os\n\nHOST = os.environ.get("HOST", "0.0.0.0")\nPORT = int(os.environ.get("PORT", "5127"))\n'
    'WORKERS = int(os.environ.get("WORKERS", "3"))\n'
)
_TOOLS_PY = (
    "import os\n\n\ndef load(path):\n    return open(path).read()\n\n\ndef save(path, text):\n"
    "    open(path, 'w').write(text)\n\n\n# def legacy_parse(text):\n#     return text.split()\n\n\n"
    "class Cache:\n    def get(self, key):\n        return None\n\n    def put(self, key, value):\n        pass\n\n\n"
    "def exists(path):\n    return os.path.exists(path)\n\n\ndef size(path):\n    return os.path.getsize(path)\n\n\n"
    "def lines(path):\n    return load(path).splitlines()\n"
)
_DURATION_PY = (
    'def parse_duration(text):\n    """Seconds in a duration such as 1h30m, 45m or 2h."""\n    total = 0\n'
    '    number = ""\n    for char in text:\n        if char.isdigit():\n            number += char\n'
    '        elif char == "h":\n            total += int(number) * 60\n            number = ""\n'
    '        elif char == "m":\n            total += int(number) * 60\n            number = ""\n    return total\n'
)
_DURATION_TEST = (
    'from duration import parse_duration\n\nassert parse_duration("1h30m") == 5400\n'
    'assert parse_duration("45m") == 2700\nassert parse_duration("2h") == 7200\nprint("ok")\n'
)
_MODELS_PY = "from dataclasses import dataclass\n\n\n@dataclass\nclass User:\n    name: str\n"
_SERVICE_PY = "from models import User\n\n\ndef create_user(name):\n    return User(name=name)\n"
_TEMPERATURE_BROKEN = "def celsius_to_fahrenheit(c):\n    return c * 2\n"
_CHECKSUM_PY = 'import sys\n\ndata = open(sys.argv[1], "rb").read()\nprint(sum(data) % 65521)\n'
_CHECKSUM_DATA = "The quick brown fox jumps over the lazy dog\n" * 3
_SETTINGS_INI = (
    "[server]\nhost = 127.0.0.1\nlevel = INFO\n\n[logging]\nlevel = INFO\nfile = app.log\n\n[audit]\nlevel = INFO\n"
)
_SCHEDULER_PY = (
    "def days_to_seconds(days):\n    return days * 86400\n\n\ndef seconds_to_days(seconds):\n"
    "    return seconds // 86400\n\n\ndef next_run(last, every_days):\n    return last + every_days * 86400\n"
)
_NOTES = {
    "notes/monday.md": "# Monday\n\nSent invoice 4417 to Norrland AB.\n",
    "notes/tuesday.md": "# Tuesday\n\nCalled about invoice 4470; they will pay next week.\n",
    "notes/wednesday.md": "# Wednesday\n\nNo invoices today. Planned the offsite.\n",
    "notes/old/q1.md": "# First quarter\n\nInvoice 4471 was paid twice; refund the second payment.\n",
}
_INVENTORY_PY = (
    'STOCK = {"apples": 12, "pears": 7, "plums": 23}\nORDERED = ["apples", "pears", "plums", "kiwis"]\n\n\n'
    "def total_stock(names):\n    return sum(STOCK[name] for name in names)\n\n\nprint(total_stock(ORDERED))\n"
)


def _env_default(folder: Path, answer: str) -> bool:
    return "5127" in _numbers(answer) and _untouched(folder, {"app.py": _APP_PY})


def _functions_counted(folder: Path, answer: str) -> bool:
    return _says(answer, 5, "five") and _untouched(folder, {"tools.py": _TOOLS_PY})


def _duration_fixed(folder: Path, _answer: str) -> bool:
    return _test_kept_and_passes(folder, "test_duration.py", _DURATION_TEST) and _probe(
        folder, "from duration import parse_duration as p; assert p('3h5m') == 11100; print('ok')"
    )


def _field_added(folder: Path, _answer: str) -> bool:
    probe = (
        "from service import create_user; u = create_user('ada', 'ada@example.org'); "
        "v = create_user(name='bo', email='bo@example.org'); "
        "assert (u.name, u.email, v.email) == ('ada', 'ada@example.org', 'bo@example.org'); print('ok')"
    )
    return "class User" in _read(folder, "models.py") and _probe(folder, probe)


def _temperature_with_test(folder: Path, _answer: str) -> bool:
    probe = (
        "from temperature import celsius_to_fahrenheit as f; "
        "assert f(100) == 212 and f(0) == 32 and abs(f(37) - 98.6) < 1e-9; print('ok')"
    )
    return (
        _probe(folder, probe)
        and _runs(folder, "test_temperature.py").returncode == 0
        and _test_catches(folder, "test_temperature.py", "temperature.py", _TEMPERATURE_BROKEN)
    )


def _checksum_reported(folder: Path, answer: str) -> bool:
    return "12201" in _numbers(answer) and _untouched(folder, {"checksum.py": _CHECKSUM_PY, "data.txt": _CHECKSUM_DATA})


def _ini_level_changed(folder: Path, _answer: str) -> bool:
    parser = configparser.ConfigParser()
    try:
        parser.read_string(_read(folder, "settings.ini"))
    except configparser.Error:
        return False
    found = {section: dict(parser[section]) for section in parser.sections()}
    return found == {
        "server": {"host": "127.0.0.1", "level": "INFO"},
        "logging": {"level": "DEBUG", "file": "app.log"},
        "audit": {"level": "INFO"},
    }


def _constant_introduced(folder: Path, _answer: str) -> bool:
    source = _read(folder, "scheduler.py")
    probe = (
        "import scheduler as s; assert s.SECONDS_PER_DAY == 86400; assert s.days_to_seconds(2) == 172800; "
        "assert s.seconds_to_days(200000) == 2 and s.next_run(10, 1) == 86410; print('ok')"
    )
    return source.count("86400") == 1 and source.count("SECONDS_PER_DAY") >= 4 and _probe(folder, probe)


def _note_found(folder: Path, answer: str) -> bool:
    others = ("monday", "tuesday", "wednesday")
    return "q1.md" in answer and not any(name in answer.lower() for name in others) and _untouched(folder, _NOTES)


def _key_error_fixed(folder: Path, _answer: str) -> bool:
    probe = (
        "from inventory import STOCK, total_stock as t; "
        "assert STOCK == {'apples': 12, 'pears': 7, 'plums': 23}; "
        "assert t(['nope']) == 0 and t(['pears', 'nope']) == 7; print('ok')"
    )
    result = _runs(folder, "inventory.py")
    return result.returncode == 0 and result.stdout.strip() == "42" and _probe(folder, probe)


HELD_OUT: tuple[Task, ...] = tuple(
    Task(name, prompt, files, check, "held_out")
    for name, prompt, files, check in (
        (
            "env-default",
            "What port does app.py use when the PORT environment variable is not set? Answer with the number.",
            {"app.py": _APP_PY},
            _env_default,
        ),
        (
            "count-functions",
            "How many top-level functions (not methods, not commented out) does tools.py define? "
            "Answer with the number.",
            {"tools.py": _TOOLS_PY},
            _functions_counted,
        ),
        (
            "fix-duration-test",
            "`python3 test_duration.py` fails. Fix parse_duration in duration.py so the test passes.",
            {"duration.py": _DURATION_PY, "test_duration.py": _DURATION_TEST},
            _duration_fixed,
        ),
        (
            "add-field-across",
            "Add a string field email to the User dataclass in models.py, and change create_user in service.py "
            "to take an email argument after name and pass it to User.",
            {"models.py": _MODELS_PY, "service.py": _SERVICE_PY},
            _field_added,
        ),
        (
            "new-module-with-test",
            "Create temperature.py with a function celsius_to_fahrenheit(c), and test_temperature.py that tests it "
            "with assert statements. `python3 test_temperature.py` must pass.",
            {},
            _temperature_with_test,
        ),
        (
            "run-checksum",
            "Run `python3 checksum.py data.txt` and tell me the number it prints.",
            {"checksum.py": _CHECKSUM_PY, "data.txt": _CHECKSUM_DATA},
            _checksum_reported,
        ),
        (
            "edit-ini-section",
            "In settings.ini, change level in the [logging] section from INFO to DEBUG. "
            "Leave the other sections as they are.",
            {"settings.ini": _SETTINGS_INI},
            _ini_level_changed,
        ),
        (
            "name-magic-number",
            "scheduler.py repeats the number 86400. Add a module-level constant SECONDS_PER_DAY = 86400 and use "
            "it in place of every other 86400 in the file.",
            {"scheduler.py": _SCHEDULER_PY},
            _constant_introduced,
        ),
        (
            "find-note",
            "Which file in the notes folder mentions invoice 4471? Answer with the file's path.",
            _NOTES,
            _note_found,
        ),
        (
            "fix-key-error",
            "`python3 inventory.py` crashes with a KeyError. Fix total_stock in inventory.py so that items "
            "missing from STOCK count as 0.",
            {"inventory.py": _INVENTORY_PY},
            _key_error_fixed,
        ),
    )
)

TASKS: tuple[Task, ...] = (*_FIRST_TEN, *NEW_TUNED, *HELD_OUT)
