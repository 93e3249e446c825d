"""One task of a batch: what to ask, where, with which model and within which limits.

A task is written as a JSON object (one line of a tasks file, or a mapping given to
``run_batch``) with Pi's camelCase style of keys; ``parse_task`` checks every field and turns
it into a ``BatchTask``, or raises ``TaskSpecError`` with a one-line reason. Unknown keys are
errors, so a typo (``promt``) never silently drops a setting.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

THINKING_LEVEL_NAMES = ("off", "minimal", "low", "medium", "high", "xhigh")

FIELDS = (
    "id",
    "prompt",
    "prompts",
    "cwd",
    "repo",
    "rev",
    "model",
    "thinking",
    "tools",
    "systemPrompt",
    "appendSystemPrompt",
    "timeout",
    "budget",
    "settings",
    "approve",
    "metadata",
)


class TaskSpecError(ValueError):
    """A task object that cannot be run; the message is one line naming the field."""


@dataclass(frozen=True)
class Budget:
    """Stop a task once it has used this much (the turn that crosses the line completes)."""

    tokens: int | None = None
    """Total tokens (input + output + cache reads and writes) over every model call."""
    cost: float | None = None
    """Dollars, from the model's prices in the catalog."""

    def exceeded(self, tokens: int, cost: float) -> bool:
        return (self.tokens is not None and tokens >= self.tokens) or (
            self.cost is not None and cost >= self.cost
        )


@dataclass(frozen=True)
class BatchTask:
    id: str
    prompts: tuple[str, ...]
    """Sent one after another, each once the previous answer settled."""
    cwd: str | None = None
    """Absolute working directory, used as it is (changes stay there)."""
    repo: str | None = None
    """A git repository (path or URL) checked out at ``rev`` into a scratch worktree."""
    rev: str | None = None
    model: str | None = None
    """``provider/id`` (optionally ``:thinking``), resolved like ``pi --model``."""
    thinking: str | None = None
    tools: tuple[str, ...] | None = None
    """Allowlist of built-in tools (``()``: none); ``None``: the settings' default tools."""
    system_prompt: str | None = None
    """Replaces the system prompt (text, or a file to read), like ``--system-prompt``."""
    append_system_prompt: tuple[str, ...] = ()
    timeout: float | None = None
    """Seconds of wall time for the whole task (every prompt)."""
    budget: Budget | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Merged over settings.json (global and project) for this task only."""
    approve: bool | None = None
    """Trust (``True``) or ignore (``False``) the project's ``.pi`` resources, like ``pi -a``/``-na``;
    ``None``: only a decision saved for the task's own folder counts (never an ancestor's),
    else untrusted."""
    metadata: Any = None
    """Copied to the result untouched (expected answers of an evaluation, say)."""


def parse_task(data: Any, *, base_dir: str, default_id: str) -> BatchTask:
    """``data`` (a decoded JSON object) as a task; relative paths are taken from ``base_dir``."""
    if not isinstance(data, Mapping):
        raise TaskSpecError(f"a task must be a JSON object, not {_kind(data)}")
    unknown = [key for key in data if key not in FIELDS]
    if unknown:
        raise TaskSpecError(f"unknown field {unknown[0]!r} (known fields: {', '.join(FIELDS)})")
    repo = _optional_str(data, "repo")
    cwd = _optional_str(data, "cwd")
    if repo is not None and cwd is not None:
        raise TaskSpecError(
            "give either cwd (a directory used as it is) or repo (checked out afresh), not both"
        )
    rev = _optional_str(data, "rev")
    if rev is not None and repo is None:
        raise TaskSpecError("rev needs repo (the repository to check it out from)")
    return BatchTask(
        id=_task_id(data, default_id),
        prompts=_prompts(data),
        cwd=_resolve(cwd, base_dir),
        repo=_repo(repo, base_dir),
        rev=rev,
        model=_optional_str(data, "model"),
        thinking=_thinking(data),
        tools=_tools(data),
        system_prompt=_optional_str(data, "systemPrompt"),
        append_system_prompt=_str_or_list(data, "appendSystemPrompt"),
        timeout=_positive_number(data, "timeout", "seconds"),
        budget=_budget(data.get("budget")),
        settings=_settings(data.get("settings")),
        approve=_optional_bool(data, "approve"),
        metadata=data.get("metadata"),
    )


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _task_id(data: Mapping[str, Any], default_id: str) -> str:
    value = data.get("id")
    if value is None:
        return default_id
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TaskSpecError(f"id must be a string or an integer, not {_kind(value)}")
    text = str(value)
    if not text.strip():
        raise TaskSpecError("id must not be empty")
    if "\n" in text or "\r" in text:
        raise TaskSpecError("id must be one line")
    return text


def _prompts(data: Mapping[str, Any]) -> tuple[str, ...]:
    if "prompt" in data and "prompts" in data:
        raise TaskSpecError("give prompt (one message) or prompts (several, in order), not both")
    if "prompt" in data:
        prompt = data["prompt"]
        if not isinstance(prompt, str) or not prompt.strip():
            raise TaskSpecError(f"prompt must be a non-empty string, not {_kind(prompt)}")
        return (prompt,)
    prompts = data.get("prompts")
    if prompts is None:
        raise TaskSpecError("missing prompt (the message to send) or prompts (a list of messages)")
    if not isinstance(prompts, list) or not prompts:
        raise TaskSpecError("prompts must be a non-empty array of strings")
    for index, prompt in enumerate(prompts):
        if not isinstance(prompt, str) or not prompt.strip():
            raise TaskSpecError(f"prompts[{index}] must be a non-empty string, not {_kind(prompt)}")
    return tuple(prompts)


def _optional_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise TaskSpecError(f"{key} must be a non-empty string, not {_kind(value)}")
    return value


def _optional_bool(data: Mapping[str, Any], key: str) -> bool | None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise TaskSpecError(f"{key} must be true or false, not {_kind(value)}")
    return value


def _resolve(path: str | None, base_dir: str) -> str | None:
    if path is None:
        return None
    return os.path.normpath(os.path.join(base_dir, os.path.expanduser(path)))


_URL = re.compile(r"^[a-z][a-z0-9+.-]*://|^[^/:]+@[^/:]+:")


def _repo(repo: str | None, base_dir: str) -> str | None:
    """A URL (``https://``, ``file://``, ``git@host:path``) as given; a path made absolute."""
    if repo is None or _URL.match(repo):
        return repo
    return _resolve(repo, base_dir)


def _thinking(data: Mapping[str, Any]) -> str | None:
    value = _optional_str(data, "thinking")
    if value is not None and value not in THINKING_LEVEL_NAMES:
        raise TaskSpecError(f"thinking must be one of {', '.join(THINKING_LEVEL_NAMES)}, not {value!r}")
    return value


def _tools(data: Mapping[str, Any]) -> tuple[str, ...] | None:
    from pi_coding_agent.core.tools import ALL_TOOL_NAMES

    value = data.get("tools")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise TaskSpecError("tools must be an array of tool names ([] for none)")
    unknown = [name for name in value if name not in ALL_TOOL_NAMES]
    if unknown:
        raise TaskSpecError(f"unknown tool {unknown[0]!r} (built-in tools: {', '.join(ALL_TOOL_NAMES)})")
    return tuple(dict.fromkeys(value))


def _str_or_list(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise TaskSpecError(f"{key} must be a string or an array of strings, not {_kind(value)}")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _positive_number(data: Mapping[str, Any], key: str, unit: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    number = _number(value)
    if number is None or number <= 0:
        raise TaskSpecError(f"{key} must be a positive number of {unit}, not {value!r}")
    return number


def _budget(value: Any) -> Budget | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TaskSpecError(
            f'budget must be an object like {{"tokens": 50000}} or {{"cost": 0.5}}, not {_kind(value)}'
        )
    unknown = [key for key in value if key not in ("tokens", "cost")]
    if unknown:
        raise TaskSpecError(f"unknown budget field {unknown[0]!r} (known: tokens, cost)")
    tokens = value.get("tokens")
    if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int) or tokens <= 0):
        raise TaskSpecError(f"budget.tokens must be a positive integer, not {tokens!r}")
    cost = value.get("cost")
    cost_number = None if cost is None else _number(cost)
    if cost is not None and (cost_number is None or cost_number <= 0):
        raise TaskSpecError(f"budget.cost must be a positive number of dollars, not {cost!r}")
    if tokens is None and cost is None:
        raise TaskSpecError("budget needs tokens or cost")
    return Budget(tokens=tokens, cost=cost_number)


def _settings(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TaskSpecError(f"settings must be an object (keys of settings.json), not {_kind(value)}")
    return dict(value)
