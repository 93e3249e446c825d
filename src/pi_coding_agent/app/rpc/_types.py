"""The JSON objects RPC answers hold, as typed dictionaries (Pi 0.85's ``rpc-types.ts`` names).

Keys marked ``NotRequired`` are left out when not set, exactly as on the wire. Messages,
session entries and models are passed through as plain JSON objects (see Pi's
session-format.md and rpc.md for their fields).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

Json: TypeAlias = dict[str, Any]
ThinkingLevelName: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueModeName: TypeAlias = Literal["all", "one-at-a-time"]
PromptDisposition: TypeAlias = Literal["handled", "queued", "started"]
QueuedInputDisposition: TypeAlias = Literal["handled", "queued"]


class SessionState(TypedDict):
    model: NotRequired[Json]
    thinkingLevel: str
    isStreaming: bool
    isCompacting: bool
    steeringMode: QueueModeName
    followUpMode: QueueModeName
    sessionFile: NotRequired[str]
    sessionId: str
    sessionName: NotRequired[str]
    autoCompactionEnabled: bool
    messageCount: int
    pendingMessageCount: int


class QueueContents(TypedDict):
    steering: list[str]
    followUp: list[str]


class Cancellable(TypedDict):
    cancelled: bool


class ForkAnswer(TypedDict):
    text: NotRequired[str]
    cancelled: bool


class ModelCycle(TypedDict):
    model: Json
    thinkingLevel: str
    isScoped: bool


class CompactionResultJson(TypedDict):
    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    estimatedTokensAfter: int
    usage: NotRequired[Json]
    details: NotRequired[Any]


class BashResultJson(TypedDict):
    output: str
    exitCode: NotRequired[int]
    cancelled: bool
    truncated: bool
    fullOutputPath: NotRequired[str]


class TokenCounts(TypedDict):
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    total: int


class ContextUsageJson(TypedDict):
    tokens: int | None
    contextWindow: int
    percent: float | None


class SessionStatsJson(TypedDict):
    sessionFile: NotRequired[str]
    sessionId: str
    userMessages: int
    assistantMessages: int
    toolCalls: int
    toolResults: int
    totalMessages: int
    tokens: TokenCounts
    cost: float
    contextUsage: NotRequired[ContextUsageJson]


class ForkMessage(TypedDict):
    entryId: str
    text: str


class EntriesAnswer(TypedDict):
    entries: list[Json]
    leafId: str | None


class TreeNodeJson(TypedDict):
    entry: Json
    children: list[TreeNodeJson]
    label: NotRequired[str]
    labelTimestamp: NotRequired[str]


class TreeAnswer(TypedDict):
    tree: list[TreeNodeJson]
    leafId: str | None


class SlashCommand(TypedDict):
    name: str
    description: NotRequired[str]
    source: Literal["extension", "prompt", "skill"]
    sourceInfo: NotRequired[Json]


class NavigateAnswer(TypedDict):
    cancelled: bool
    editorText: NotRequired[str]
    aborted: NotRequired[bool]
    summaryEntryId: NotRequired[str]
