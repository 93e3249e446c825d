"""One script's ``models.classify()`` / ``models.generateImages()`` calls: at most four run at
once (``Promise.all`` over many items queues the rest, in call order), each shows as a nested
call row (``<codemode call id>/models.classify/<n>``, its arguments the model's
``provider/id``, never the prompt or image data) with its status and cost, their usage is summed
for the codemode result, and the images they returned are counted so a script that never shows
them gets a note (Pi 1.6)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi_coding_agent.core.codemode._format import CallRecord

if TYPE_CHECKING:
    from pi_ai import Usage

MAX_CONCURRENT = 4
_ERROR_PREVIEW = 500

_SUMMED = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
_COSTS = ("input", "output", "cacheRead", "cacheWrite", "total")


def unshown_images_note(count: int) -> str:
    """The note for a script that generated images and showed none of them."""
    return (
        f"Note: the script got {count} generated image{'' if count == 1 else 's'} from models.generateImages() "
        "and showed none; pass each image block of result.output to image() to show it."
    )


def combine_usage(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two usages (as JSON) added up; the total is provider-reported only when both are."""
    combined: dict[str, Any] = {key: first.get(key, 0) + second.get(key, 0) for key in _SUMMED}
    for optional in ("cacheWrite1h", "reasoning"):
        if optional in first or optional in second:
            combined[optional] = first.get(optional, 0) + second.get(optional, 0)
    one, two = first.get("cost") or {}, second.get("cost") or {}
    cost: dict[str, Any] = {key: one.get(key, 0) + two.get(key, 0) for key in _COSTS}
    cost["totalFromProvider"] = one.get("totalFromProvider") is True and two.get("totalFromProvider") is True
    combined["cost"] = cost
    return combined


class ModelCalls:
    """The model calls of one script run (see the module docstring)."""

    def __init__(self, call_id: str, records: list[CallRecord], publish: Callable[[], None]) -> None:
        self.call_id = call_id
        self.records = records
        """The run's nested call rows, shared with its tool calls."""
        self.publish = publish
        self.usage: dict[str, Any] | None = None
        self.images = 0
        self._count = 0
        self._slots = asyncio.Semaphore(MAX_CONCURRENT)

    async def run(self, name: str, model: dict[str, Any], call: Callable[[], Awaitable[Any]]) -> Any:
        """``call()`` as a row named ``name``; its result (JSON) as it came."""
        self._count += 1
        record = CallRecord(
            id=f"{self.call_id}/{name}/{self._count}", name=name, args=f"{model['provider']}/{model['id']}"
        )
        self.records.append(record)
        self.publish()
        began = time.perf_counter()
        async with self._slots:
            result = await call()
        record.duration_ms = (time.perf_counter() - began) * 1000
        stop = result.get("stopReason") if isinstance(result, dict) else None
        record.status = "ok" if stop == "stop" else "cancelled" if stop == "aborted" else "error"
        if isinstance(result, dict):
            self._account(record, result)
        self.publish()
        return result

    def _account(self, record: CallRecord, result: dict[str, Any]) -> None:
        message = result.get("errorMessage")
        if isinstance(message, str) and message:
            record.error = (
                message if len(message) <= _ERROR_PREVIEW else message[: _ERROR_PREVIEW - 3] + "..."
            )
        usage = result.get("usage")
        if isinstance(usage, dict):
            record.cost = (usage.get("cost") or {}).get("total")
            self.usage = usage if self.usage is None else combine_usage(self.usage, usage)
        output = result.get("output")
        if isinstance(output, list):
            self.images += sum(
                1 for block in output if isinstance(block, dict) and block.get("type") == "image"
            )

    def result_usage(self) -> Usage | None:
        """The calls' usage for the codemode result (counted in the session's cost)."""
        if self.usage is None:
            return None
        from pi_ai import Usage, convert

        return convert(self.usage, Usage)
