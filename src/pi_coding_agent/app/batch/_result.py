"""The outcome of one task, as a line of the results file.

Keys are camelCase like Pi's files; every key is always present (``null`` when it does not
apply), so the file loads straight into a table.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

Status = Literal["ok", "error", "timeout", "budget"]
STATUSES: tuple[Status, ...] = ("ok", "error", "timeout", "budget")


@dataclass(frozen=True)
class TokenUsage:
    """Summed over every model call of the task's session file (retried ones included)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: float = 0.0
    """Dollars."""

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.total_tokens + other.total_tokens,
            self.cost + other.cost,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "totalTokens": self.total_tokens,
            "cost": self.cost,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> TokenUsage:
        return TokenUsage(
            int(data.get("input", 0)),
            int(data.get("output", 0)),
            int(data.get("cacheRead", 0)),
            int(data.get("cacheWrite", 0)),
            int(data.get("totalTokens", 0)),
            float(data.get("cost", 0.0)),
        )


@dataclass(frozen=True)
class BatchResult:
    id: str
    status: Status
    answer: str | None = None
    """The text of the last answer (its text blocks, one per line)."""
    error: str | None = None
    """Why the task did not end ``ok``."""
    usage: TokenUsage = field(default_factory=TokenUsage)
    turns: int = 0
    """Assistant messages in the session file (one per model call, an aborted one included)."""
    tool_calls: int = 0
    tool_calls_by_name: dict[str, int] = field(default_factory=dict)
    wall_time_ms: int = 0
    session_file: str | None = None
    diff: str | None = None
    """``git diff`` of what the task changed in its working copy; ``None`` outside git."""
    model: str | None = None
    """``provider/id`` the task ran on."""
    attempt: int = 1
    """1 for the first run of the task; more after a crash or a lost worker."""
    started_at: str | None = None
    finished_at: str | None = None
    worker: str | None = None
    """``host:pid`` of the process that ran the task."""
    warnings: tuple[str, ...] = ()
    """What ``pi -p`` would have printed as warnings (unknown tools, settings problems, ...)."""
    metadata: Any = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def with_session_file(self, path: str | None) -> BatchResult:
        return replace(self, session_file=path)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "answer": self.answer,
            "error": self.error,
            "usage": self.usage.to_json(),
            "turns": self.turns,
            "toolCalls": self.tool_calls,
            "toolCallsByName": dict(self.tool_calls_by_name),
            "wallTimeMs": self.wall_time_ms,
            "sessionFile": self.session_file,
            "diff": self.diff,
            "model": self.model,
            "attempt": self.attempt,
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "worker": self.worker,
            "warnings": list(self.warnings),
            "metadata": self.metadata,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> BatchResult:
        """A result line read back; raises ``ValueError`` (or ``KeyError``/``TypeError``) when it is not one."""
        status = data["status"]
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        return BatchResult(
            id=str(data["id"]),
            status=cast(Status, status),
            answer=data.get("answer"),
            error=data.get("error"),
            usage=TokenUsage.from_json(data.get("usage") or {}),
            turns=int(data.get("turns", 0)),
            tool_calls=int(data.get("toolCalls", 0)),
            tool_calls_by_name=dict(data.get("toolCallsByName") or {}),
            wall_time_ms=int(data.get("wallTimeMs", 0)),
            session_file=data.get("sessionFile"),
            diff=data.get("diff"),
            model=data.get("model"),
            attempt=int(data.get("attempt", 1)),
            started_at=data.get("startedAt"),
            finished_at=data.get("finishedAt"),
            worker=data.get("worker"),
            warnings=tuple(data.get("warnings") or ()),
            metadata=data.get("metadata"),
        )
