"""Reading tasks: a JSONL file (one task object a line) or objects given in Python.

Every task is checked before anything runs. Problems are collected, each naming where the
task came from (``tasks.jsonl:12``, or ``task #3`` for Python objects), so a batch with a
typo in its 150th task refuses at once instead of failing hours later (``docs/batch.md``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pi_coding_agent.app.batch._task import BatchTask, TaskSpecError, parse_task


@dataclass(frozen=True)
class TaskProblem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class TaskFileError(Exception):
    """Tasks that cannot be run; ``problems`` lists each one."""

    def __init__(self, problems: list[TaskProblem]) -> None:
        self.problems = problems
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{problems[0]}{more}")


@dataclass
class LoadedTasks:
    tasks: list[BatchTask]
    problems: list[TaskProblem]
    where: dict[str, str]
    """Task id -> where it was defined."""


def read_task_file(path: str, defaults: Mapping[str, Any] | None = None) -> LoadedTasks:
    """Every task of the file, and a problem for each line that is not one.

    ``defaults`` holds task fields for the lines that do not set them (``pi batch --model``...).
    """
    try:
        with open(path, "rb") as file:
            raw_lines = file.read().splitlines()
    except OSError as error:
        reason = error.strerror or str(error)
        raise TaskFileError([TaskProblem(path, f"cannot read the tasks file: {reason}")]) from None
    base_dir = os.path.dirname(os.path.abspath(path))
    items: list[tuple[str, Any]] = []
    problems: list[TaskProblem] = []
    for number, raw in enumerate(raw_lines, start=1):
        where = f"{path}:{number}"
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
            items.append((where, {**defaults, **item} if defaults and isinstance(item, dict) else item))
        except UnicodeDecodeError:
            problems.append(TaskProblem(where, "not UTF-8 text"))
        except json.JSONDecodeError as error:
            problems.append(TaskProblem(where, f"not valid JSON ({error.msg} at column {error.colno})"))
    loaded = _parse_all(items, base_dir, default_id=lambda where: "line-" + where.rsplit(":", 1)[1])
    loaded.problems[:0] = problems
    loaded.problems.sort(key=lambda problem: _line_number(problem.where))
    if not loaded.tasks and not loaded.problems:
        loaded.problems.append(TaskProblem(path, "no tasks in the file (one JSON object a line)"))
    return loaded


def coerce_tasks(items: Iterable[BatchTask | Mapping[str, Any]], base_dir: str) -> LoadedTasks:
    """Tasks given in Python: ``BatchTask`` objects as they are, mappings parsed like file lines."""
    entries: list[tuple[str, Any]] = [(f"task #{index}", item) for index, item in enumerate(items, start=1)]
    return _parse_all(entries, base_dir, default_id=lambda where: "task-" + where.rsplit("#", 1)[1])


def _parse_all(items: list[tuple[str, Any]], base_dir: str, default_id: Any) -> LoadedTasks:
    tasks: list[BatchTask] = []
    problems: list[TaskProblem] = []
    where_of: dict[str, str] = {}
    for where, item in items:
        try:
            task = (
                item
                if isinstance(item, BatchTask)
                else parse_task(item, base_dir=base_dir, default_id=default_id(where))
            )
        except TaskSpecError as error:
            problems.append(TaskProblem(where, str(error)))
            continue
        if task.id in where_of:
            problems.append(
                TaskProblem(where, f"duplicate task id {task.id!r} (first at {where_of[task.id]})")
            )
            continue
        where_of[task.id] = where
        tasks.append(task)
    return LoadedTasks(tasks, problems, where_of)


def _line_number(where: str) -> int:
    tail = where.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0
