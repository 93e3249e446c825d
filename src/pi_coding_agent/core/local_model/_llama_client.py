"""Talking to a llama.cpp router as Pi's llama.cpp extension does: list its models, load,
unload and download them, and follow a load or download to its end with its progress.

Each request has Pi's 15 s limit. While a load or a download runs, the router's event stream
(``GET /models/sse``) gives its progress; polling ``GET /models`` decides when it is done (the
stream is optional: a router without it still works, with less progress shown).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_coding_agent.core.local_model._llama_server import (
    LlamaServerError,
    ServerModel,
    normalize_server_url,
    parse_model,
)

REQUEST_SECONDS = 15.0
LOAD_POLL_SECONDS = 0.25
DOWNLOAD_POLL_SECONDS = 0.5
UNLOAD_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class LoadProgress:
    """What the progress display shows: a line, a bar (``ratio`` 0..1) and a detail line."""

    message: str
    ratio: float | None = None
    detail: str | None = None


ProgressSink = Callable[[LoadProgress], None]


def format_bytes(size: float) -> str:
    """``1.50 MiB`` as Pi writes sizes (two decimals under ten, one above)."""
    if size < 1024:
        return f"{int(size)} B"
    value, unit = size / 1024, "KiB"
    for bigger in ("MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:.1f} {unit}" if value >= 10 else f"{value:.2f} {unit}"


def load_progress(data: Any) -> LoadProgress | None:
    """A ``model_status`` event's progress: the stage's name, the share of all stages done."""
    progress = data.get("progress") if isinstance(data, dict) else None
    if not isinstance(progress, dict):
        return None
    stage = progress.get("current", progress.get("stage"))
    stage = stage if isinstance(stage, str) else None
    stages = [entry for entry in progress.get("stages", []) if isinstance(entry, str)] if isinstance(
        progress.get("stages"), list) else []  # fmt: skip
    value = progress.get("value")
    ratio = max(0.0, min(1.0, float(value))) if isinstance(value, (int, float)) else None
    if stage is not None and stage in stages:
        ratio = (stages.index(stage) + (ratio or 0.0)) / len(stages)
    return LoadProgress(f"Loading {stage.replace('_', ' ')}" if stage else "Loading model", ratio)


def download_progress(data: Any) -> LoadProgress | None:
    """Bytes done of all files (``{file: {done, total}}``, or under ``progress``)."""
    if not isinstance(data, dict):
        return None
    files = data["progress"] if isinstance(data.get("progress"), dict) else data
    done = total = 0
    for entry in files.values():
        if isinstance(entry, dict) and isinstance(entry.get("done"), (int, float)) and isinstance(
                entry.get("total"), (int, float)):  # fmt: skip
            done += entry["done"]
            total += entry["total"]
    if total <= 0:
        return None
    return LoadProgress("Downloading model", done / total, f"{format_bytes(done)} / {format_bytes(total)}")


def _error_message(payload: Any, fallback: str) -> str:
    error = payload.get("error") if isinstance(payload, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else fallback


class LlamaClient:
    def __init__(self, server_url: str, api_key: str | None = None) -> None:
        self.server_url = normalize_server_url(server_url)
        self.api_key = api_key or None

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _unreachable(self, error: Exception) -> LlamaServerError:
        return LlamaServerError(f"Could not reach llama.cpp server at {self.server_url}: {error}")

    async def _request(self, method: str, path: str, body: Any = None) -> Any:
        import httpx

        try:
            async with httpx.AsyncClient(timeout=REQUEST_SECONDS) as client:
                response = await client.request(
                    method, f"{self.server_url}{path}", headers=self._headers(),
                    json=body if body is not None else None,
                )  # fmt: skip
        except httpx.HTTPError as error:
            raise self._unreachable(error) from error
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if response.status_code >= 400:
            raise LlamaServerError(_error_message(payload, f"llama.cpp returned HTTP {response.status_code}"))
        return payload

    async def models(self, *, reload: bool = False) -> list[ServerModel]:
        """``GET /models``; raises ``LlamaServerError`` naming the problem."""
        payload = await self._request("GET", "/models?reload=1" if reload else "/models")
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise LlamaServerError("llama.cpp returned an invalid model catalog")
        models = [parse_model(entry) for entry in data]
        if any(model is None for model in models):
            raise LlamaServerError("Server is not running in llama.cpp router mode")
        return [model for model in models if model is not None]

    async def thinks(self, model_id: str) -> bool:
        """Whether a loaded model's chat template takes ``enable_thinking`` (``GET /props`` for
        it, without loading it, as Pi asks); ``False`` when the server does not say."""
        from urllib.parse import quote

        payload = await self._request("GET", f"/props?model={quote(model_id, safe='')}&autoload=false")
        template = payload.get("chat_template") if isinstance(payload, dict) else None
        return isinstance(template, str) and "enable_thinking" in template

    async def _find(self, model_id: str) -> ServerModel | None:
        return next((model for model in await self.models() if model.id == model_id), None)

    async def load(self, model_id: str) -> None:
        await self._request("POST", "/models/load", {"model": model_id})

    async def unload(self, model_id: str) -> None:
        await self._request("POST", "/models/unload", {"model": model_id})

    async def download(self, model_id: str) -> None:
        await self._request("POST", "/models", {"model": model_id})

    async def unload_and_wait(self, model_id: str) -> None:
        await self.unload(model_id)
        while (entry := await self._find(model_id)) is not None and entry.status != "unloaded":  # noqa: ASYNC110 - the router is polled
            await asyncio.sleep(UNLOAD_POLL_SECONDS)

    async def _watch(self, on_event: Callable[[str, str, Any], None]) -> None:
        """Pass each ``(model, event, data)`` of the router's event stream to ``on_event``."""
        import httpx

        with contextlib.suppress(httpx.HTTPError):
            async with (
                httpx.AsyncClient(timeout=httpx.Timeout(REQUEST_SECONDS, read=None)) as client,
                client.stream("GET", f"{self.server_url}/models/sse", headers=self._headers()) as response,
            ):
                if response.status_code >= 400:
                    return
                async for line in response.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    with contextlib.suppress(ValueError):
                        event = json.loads(line[5:].strip())
                        if isinstance(event, dict) and isinstance(event.get("model"), str) and isinstance(
                                event.get("event"), str):  # fmt: skip
                            on_event(event["model"], event["event"], event.get("data"))

    async def load_and_wait(self, model_id: str, on_progress: ProgressSink) -> None:
        """Load ``model_id`` and return once the router says it is loaded; raises when it fails."""
        loaded_event = False
        failure: str | None = None

        def seen(model: str, event: str, data: Any) -> None:
            nonlocal loaded_event, failure
            if model != model_id or event not in ("model_status", "status_change"):
                return
            status = data.get("status") if isinstance(data, dict) else None
            loaded_event = loaded_event or status == "loaded"
            if status == "unloaded":
                failure = "Model failed to load"
            if (progress := load_progress(data)) is not None:
                on_progress(progress)

        watcher = asyncio.ensure_future(self._watch(seen))
        try:
            await self.load(model_id)
            on_progress(LoadProgress("Loading model"))
            while True:
                entry = await self._find(model_id)
                if (entry is not None and entry.status == "loaded") or (loaded_event and entry is None):
                    return
                if (entry is not None and entry.failed) or failure:
                    code = entry.exit_code if entry is not None else None
                    raise LlamaServerError(
                        (failure or "Model failed to load")
                        if code is None
                        else f"Model exited with code {code}"
                    )
                await asyncio.sleep(LOAD_POLL_SECONDS)
        finally:
            watcher.cancel()

    async def download_and_wait(self, model_id: str, on_progress: ProgressSink) -> list[ServerModel]:
        """Have the router download ``owner/repo[:quant]``; the catalog after (re-read)."""
        finished = False
        failure: str | None = None
        seen_downloading = False

        def seen(model: str, event: str, data: Any) -> None:
            nonlocal finished, failure, seen_downloading
            if model != model_id:
                return
            finished = finished or event == "download_finished"
            if event == "download_failed":
                failure = _error_message(data, "Download failed")
            if event == "download_progress":
                seen_downloading = True
                if (progress := download_progress(data)) is not None:
                    on_progress(progress)

        watcher = asyncio.ensure_future(self._watch(seen))
        try:
            await self.download(model_id)
            on_progress(LoadProgress("Downloading model"))
            polls = 0
            while True:
                if failure:
                    raise LlamaServerError(failure)
                entry = await self._find(model_id)
                polls += 1
                if entry is not None and entry.status == "downloading":
                    seen_downloading = True
                    if (progress := download_progress(entry.progress)) is not None:
                        on_progress(progress)
                elif finished or (entry is not None and (seen_downloading or polls >= 2)):
                    return await self.models(reload=True)
                await asyncio.sleep(DOWNLOAD_POLL_SECONDS)
        finally:
            watcher.cancel()
