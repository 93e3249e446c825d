"""What the session has cost and how full the context is (Pi's ``getSessionStats``).

Totals cover every entry of the file, branches and compacted history included (what was
billed): assistant messages, tool results that report nested model usage, the
compaction and branch-summary calls, and Pi 1.6's ``usage`` entries (cache warming). The context usage is the estimate compaction uses;
right after a compaction it is unknown (``None``) until an answer reports fresh usage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_agent import AgentMessage
from pi_ai import (
    AssistantMessage,
    DecodeError,
    Model,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    content_text,
    convert,
)
from pi_coding_agent.core.session import (
    BranchSummaryEntry,
    CompactionEntry,
    OpaqueEntry,
    SessionManager,
    SessionMessageEntry,
)


def _number(value: float) -> int | float:
    """Integral values as integers, so JSON shows ``0`` as JavaScript would, not ``0.0``."""
    return int(value) if float(value).is_integer() else value


def _add_usage_entry(tokens: TokenTotals, value: Any) -> None:
    """A Pi 1.6 ``usage`` entry (cache warming, say): billed, so counted; one that does not
    read as usage is left out."""
    if not isinstance(value, dict):
        return
    try:
        usage = convert(value, Usage)
    except DecodeError:
        return
    tokens.add(usage)


@dataclass
class ContextUsage:
    tokens: int | None
    context_window: int
    percent: float | None

    def to_json(self) -> dict[str, Any]:
        percent = None if self.percent is None else _number(self.percent)
        return {"tokens": self.tokens, "contextWindow": self.context_window, "percent": percent}


@dataclass
class TokenTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0

    def add(self, usage: Usage) -> None:
        self.input += usage.input
        self.output += usage.output
        self.cache_read += usage.cache_read
        self.cache_write += usage.cache_write
        self.cost += usage.cost.total

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write


@dataclass
class SessionStats:
    session_file: str | None
    session_id: str
    user_messages: int
    assistant_messages: int
    tool_calls: int
    tool_results: int
    total_messages: int
    tokens: TokenTotals
    context_usage: ContextUsage | None

    @property
    def cost(self) -> float:
        return self.tokens.cost

    def to_json(self) -> dict[str, Any]:
        """Pi's ``SessionStats`` (absent values left out, as ``JSON.stringify`` does)."""
        data: dict[str, Any] = {} if self.session_file is None else {"sessionFile": self.session_file}
        data.update(
            sessionId=self.session_id,
            userMessages=self.user_messages,
            assistantMessages=self.assistant_messages,
            toolCalls=self.tool_calls,
            toolResults=self.tool_results,
            totalMessages=self.total_messages,
            tokens={
                "input": self.tokens.input,
                "output": self.tokens.output,
                "cacheRead": self.tokens.cache_read,
                "cacheWrite": self.tokens.cache_write,
                "total": self.tokens.total,
            },
            cost=_number(self.tokens.cost),
        )
        if self.context_usage is not None:
            data["contextUsage"] = self.context_usage.to_json()
        return data


@dataclass(frozen=True)
class ForkPoint:
    """A user message of the session that a fork can start before."""

    entry_id: str
    text: str


class SessionStatistics:
    def __init__(
        self,
        session_manager: SessionManager,
        messages: Callable[[], list[AgentMessage]],
        model: Callable[[], Model | None],
    ) -> None:
        self.session_manager = session_manager
        self._messages = messages
        self._model = model

    @property
    def messages(self) -> list[AgentMessage]:
        return self._messages()

    def get_session_stats(self) -> SessionStats:
        from msgspec import UNSET

        counts = {"user": 0, "assistant": 0, "toolResult": 0}
        tool_calls = total = 0
        tokens = TokenTotals()
        for entry in self.session_manager.get_entries():
            if isinstance(entry, CompactionEntry | BranchSummaryEntry) and entry.usage is not UNSET:
                tokens.add(entry.usage)
            elif isinstance(entry, OpaqueEntry) and entry.type == "usage":
                _add_usage_entry(tokens, entry.data.get("usage"))
            if not isinstance(entry, SessionMessageEntry):
                continue
            total += 1
            message = entry.message
            if message.role in counts:
                counts[message.role] += 1
            if isinstance(message, ToolResultMessage) and message.usage is not None:
                tokens.add(message.usage)
            elif isinstance(message, AssistantMessage):
                tool_calls += sum(1 for block in message.content if isinstance(block, ToolCall))
                tokens.add(message.usage)
        return SessionStats(
            session_file=self.session_manager.get_session_file(),
            session_id=self.session_manager.get_session_id(),
            user_messages=counts["user"],
            assistant_messages=counts["assistant"],
            tool_calls=tool_calls,
            tool_results=counts["toolResult"],
            total_messages=total,
            tokens=tokens,
            context_usage=self.get_context_usage(),
        )

    def get_context_usage(self) -> ContextUsage | None:
        """The estimated context size; ``None`` without a model or a context window."""
        from pi_coding_agent.core.compaction import calculate_context_tokens, estimate_context_tokens

        model = self._model()
        window = model.context_window if model is not None else 0
        if window <= 0:
            return None
        branch = self.session_manager.get_branch()
        latest = next(
            (i for i in range(len(branch) - 1, -1, -1) if isinstance(branch[i], CompactionEntry)), None
        )
        if latest is not None:
            fresh = any(
                isinstance(entry, SessionMessageEntry)
                and isinstance(entry.message, AssistantMessage)
                and entry.message.stop_reason not in ("aborted", "error")
                and calculate_context_tokens(entry.message.usage) > 0
                for entry in branch[latest + 1 :]
            )
            if not fresh:
                return ContextUsage(None, window, None)
        tokens = estimate_context_tokens(self.messages).tokens
        return ContextUsage(tokens, window, tokens / window * 100)

    def get_last_assistant_text(self) -> str | None:
        """The text of the latest answer (an aborted answer without content does not count)."""
        for message in reversed(self.messages):
            if not isinstance(message, AssistantMessage):
                continue
            if message.stop_reason == "aborted" and not message.content:
                continue
            text = content_text(message.content, "")
            return text.strip() or None
        return None

    def get_user_messages_for_forking(self) -> list[ForkPoint]:
        """Every user message of the file with text, in file order (any branch)."""
        points = []
        for entry in self.session_manager.get_entries():
            if isinstance(entry, SessionMessageEntry) and isinstance(entry.message, UserMessage):
                text = content_text(entry.message.content, "")
                if text:
                    points.append(ForkPoint(entry.id, text))
        return points
