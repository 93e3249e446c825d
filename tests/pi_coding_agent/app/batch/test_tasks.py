"""Task files: every field checked, every problem one line naming file and line, nothing run
when any line is bad (unless --skip-invalid), defaults from the command line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_coding_agent.app.batch import BatchTask, Budget, TaskFileError, read_task_file, run_batch
from tests.pi_coding_agent.app.batch._support import Scripts, make_sandbox
from tests.support.oracle import REPO

PI = REPO / ".venv" / "bin" / "pi"


def _file(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_every_field_is_read(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        {
            "id": 7,
            "prompts": ["one", "two"],
            "repo": "checkouts/app",
            "rev": "v1",
            "model": "openai/gpt-4o:high",
            "thinking": "low",
            "tools": ["read", "read", "grep"],
            "systemPrompt": "Be brief.",
            "appendSystemPrompt": "Answer in French.",
            "timeout": 30,
            "budget": {"tokens": 1000, "cost": 0.5},
            "settings": {"retry": {"enabled": False}},
            "approve": True,
            "metadata": {"expected": 42},
        },
        "",
        {"prompt": "x", "cwd": "~/here"},
        {"prompt": "y", "repo": "https://example.invalid/r.git"},
    )
    loaded = read_task_file(str(path))
    assert loaded.problems == []
    first, second, third = loaded.tasks
    assert first == BatchTask(
        id="7",
        prompts=("one", "two"),
        repo=str(tmp_path / "checkouts" / "app"),
        rev="v1",
        model="openai/gpt-4o:high",
        thinking="low",
        tools=("read", "grep"),
        system_prompt="Be brief.",
        append_system_prompt=("Answer in French.",),
        timeout=30.0,
        budget=Budget(tokens=1000, cost=0.5),
        settings={"retry": {"enabled": False}},
        approve=True,
        metadata={"expected": 42},
    )
    assert second.approve is None and third.approve is None  # no opt-in: untrusted (test_trust.py)
    assert second.id == "line-3" and second.cwd == str(Path.home() / "here") and second.prompts == ("x",)
    assert third.repo == "https://example.invalid/r.git"
    assert loaded.where == {"7": f"{path}:1", "line-3": f"{path}:3", "line-4": f"{path}:4"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"prompt": "a", "promt": "b"}', "unknown field 'promt' (known fields: id, prompt, prompts"),
        ("{not json", "not valid JSON (Expecting property name enclosed in double quotes at column 2)"),
        ("[1, 2]", "a task must be a JSON object, not an array"),
        ('{"id": "a"}', "missing prompt (the message to send) or prompts (a list of messages)"),
        ('{"prompt": "  "}', "prompt must be a non-empty string, not a string"),
        ('{"prompts": ["a", 3]}', "prompts[1] must be a non-empty string, not a number"),
        ('{"prompt": "a", "prompts": ["b"]}', "give prompt (one message) or prompts (several, in order), not both"),
        ('{"prompt": "a", "cwd": ".", "repo": "."}', "give either cwd"),
        ('{"prompt": "a", "rev": "main"}', "rev needs repo"),
        ('{"prompt": "a", "thinking": "max"}', "thinking must be one of off, minimal, low, medium, high, xhigh, not 'max'"),
        ('{"prompt": "a", "tools": ["read", "rm"]}', "unknown tool 'rm' (built-in tools: read, bash, edit, write"),
        ('{"prompt": "a", "timeout": 0}', "timeout must be a positive number of seconds, not 0"),
        ('{"prompt": "a", "timeout": true}', "timeout must be a positive number of seconds, not True"),
        ('{"prompt": "a", "budget": 5}', 'budget must be an object like {"tokens": 50000} or {"cost": 0.5}, not a number'),
        ('{"prompt": "a", "budget": {}}', "budget needs tokens or cost"),
        ('{"prompt": "a", "budget": {"tokens": 1.5}}', "budget.tokens must be a positive integer, not 1.5"),
        ('{"prompt": "a", "budget": {"usd": 1}}', "unknown budget field 'usd' (known: tokens, cost)"),
        ('{"prompt": "a", "settings": []}', "settings must be an object (keys of settings.json), not an array"),
        ('{"prompt": "a", "approve": "yes"}', "approve must be true or false, not a string"),
        ('{"prompt": "a", "id": ""}', "id must not be empty"),
        ('{"prompt": "a", "id": [1]}', "id must be a string or an integer, not an array"),
    ],
)
def test_a_bad_line_is_named_with_its_reason(tmp_path: Path, line: str, message: str) -> None:
    path = _file(tmp_path, {"id": "fine", "prompt": "ok"}, line)
    loaded = read_task_file(str(path))
    assert [task.id for task in loaded.tasks] == ["fine"]
    assert len(loaded.problems) == 1
    assert str(loaded.problems[0]).startswith(f"{path}:2: {message}")


def test_duplicate_ids_and_file_problems(tmp_path: Path) -> None:
    path = _file(tmp_path, {"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"})
    assert [str(p) for p in read_task_file(str(path)).problems] == [f"{path}:2: duplicate task id 'a' (first at {path}:1)"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    assert [str(p) for p in read_task_file(str(empty)).problems] == [f"{empty}: no tasks in the file (one JSON object a line)"]
    with pytest.raises(TaskFileError, match="cannot read the tasks file: No such file or directory"):
        read_task_file(str(tmp_path / "missing.jsonl"))


def test_defaults_fill_only_what_a_line_leaves_out(tmp_path: Path) -> None:
    path = _file(tmp_path, {"prompt": "a"}, {"prompt": "b", "timeout": 5, "tools": []})
    first, second = read_task_file(str(path), {"timeout": 60, "tools": ["read"], "model": "m/x"}).tasks
    assert (first.timeout, first.tools, first.model) == (60.0, ("read",), "m/x")
    assert (second.timeout, second.tools, second.model) == (5.0, (), "m/x")


def test_python_tasks_are_checked_the_same_way(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError) as caught:
        run_batch([{"prompt": "fine"}, {"prompt": 3}, BatchTask(id="task-1", prompts=("dup",))])
    assert [str(p) for p in caught.value.problems] == [
        "task #2: prompt must be a non-empty string, not a number",
        "task #3: duplicate task id 'task-1' (first at task #1)",
    ]


def _pi_batch(sandbox_env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PI), "batch", *args], cwd=cwd, env=sandbox_env, capture_output=True, text=True, timeout=60, check=False
    )


def test_the_command_refuses_bad_files_up_front(tmp_path: Path) -> None:
    scripts = Scripts(by_task={"good": [{"text": "fine"}]})
    sandbox, provider = make_sandbox(tmp_path, scripts)
    path = _file(
        tmp_path,
        {"id": "good", "prompt": "[task:good] hi", "model": "scripted-openai/scripted-model"},
        {"id": "bad", "prompt": "hi", "tools": ["nope"]},
        {"id": "lost", "prompt": "hi", "model": "nowhere/none"},
    )
    out = tmp_path / "results.jsonl"
    with provider:
        refused = _pi_batch(sandbox.env(), sandbox.work, str(path), "--out", str(out))
        assert refused.returncode == 2, refused.stderr
        assert refused.stderr.splitlines() == [
            f"Error: {path}:2: unknown tool 'nope' (built-in tools: read, bash, edit, write, grep, find, ls)",
            f'Error: {path}:3: model: Model "nowhere/none" not found. Use --list-models to see available models.',
            "Nothing was run (fix the tasks, or pass --skip-invalid to run the others).",
        ]
        assert not out.exists() and provider.requests == []
        skipped = _pi_batch(sandbox.env(), sandbox.work, str(path), "--out", str(out), "--skip-invalid")
    assert skipped.returncode == 0, skipped.stderr
    assert skipped.stderr.splitlines() == [
        f"Warning: skipped {path}:2: unknown tool 'nope' (built-in tools: read, bash, edit, write, grep, find, ls)",
        f'Warning: skipped {path}:3: model: Model "nowhere/none" not found. Use --list-models to see available models.',
    ]
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["good"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tasks.jsonl"], "Error: the following arguments are required: -o/--out (see pi batch --help)"),
        (["tasks.jsonl", "-o", "r.jsonl", "--jobs", "x"], "Error: argument -j/--jobs: must be a positive integer, not x (see pi batch --help)"),
        (["tasks.jsonl", "-o", "r.jsonl", "--rate-limit", "openai"], "Error: invalid rate limit 'openai': expected PROVIDER=N (at once), PROVIDER=N/min or PROVIDER=N/s"),
        (["missing.jsonl", "-o", "r.jsonl"], "Error: missing.jsonl: cannot read the tasks file: No such file or directory"),
    ],
)
def test_bad_options_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "tasks.jsonl").write_text('{"prompt": "x"}\n')
    done = _pi_batch({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, tmp_path, *args)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == message


def test_ray_is_loaded_only_for_ray_runs(tmp_path: Path) -> None:
    """``import pi_coding_agent.app.batch`` and a local run never import Ray; without Ray installed
    ``--ray`` is one line saying how to get it (a package named ``ray`` that fails to import
    stands in for a missing one)."""
    python = REPO / ".venv" / "bin" / "python"
    probe = "import sys, pi_coding_agent.app.batch, pi_coding_agent.app.cli; print(sorted(m for m in sys.modules if m.split('.')[0] == 'ray'))"
    loaded = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert loaded.stdout.strip() == "[]"
    (tmp_path / "missing" / "ray").mkdir(parents=True)
    (tmp_path / "missing" / "ray" / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    (tmp_path / "tasks.jsonl").write_text('{"prompt": "x"}\n')
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(tmp_path / "missing")}
    done = _pi_batch(env, tmp_path, "tasks.jsonl", "-o", "r.jsonl", "--ray")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "Error: pi batch --ray needs Ray, an optional extra: pip install 'pi-for-python[ray]' (or pip install ray)"]
    assert not (tmp_path / "r.jsonl").exists() or (tmp_path / "r.jsonl").read_text() == ""
