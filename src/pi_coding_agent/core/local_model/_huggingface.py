"""Finding GGUF models on Hugging Face for ``/llama``'s download, as Pi's llama.cpp extension
does: a search (by downloads, 20 results), a repository's quantizations with their sizes.

The token is ``HF_TOKEN``, else the first file of ``$HF_TOKEN_PATH``, ``$HF_HOME/token``,
``$XDG_CACHE_HOME/huggingface/token``, ``~/.cache/huggingface/token``. The hub is
``HF_ENDPOINT`` when set (Pi always asks https://huggingface.co; llama.cpp's server downloads
from ``HF_ENDPOINT`` too, so a mirror serves both the search and the download).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from pi_coding_agent.core.local_model._llama_server import LlamaServerError

DEFAULT_ENDPOINT = "https://huggingface.co"
ENDPOINT_ENV = "HF_ENDPOINT"
REQUEST_SECONDS = 15.0
RECOMMENDED = "Q4_K_M"
_QUANTIZATION = re.compile(
    r"(?:^|[-_.])((?:UD-)?(?:IQ\d(?:_[A-Z0-9]+)+|Q\d(?:_[A-Z0-9]+)+|BF16|F16|F32|MXFP\d(?:_[A-Z0-9]+)*))$",
    re.I,
)
_SHARD = re.compile(r"-\d{5}-of-\d{5}$")


@dataclass(frozen=True)
class HubModel:
    id: str
    downloads: int


@dataclass(frozen=True)
class Quantization:
    name: str
    size: int | None
    """Bytes of all its files; ``None`` when the hub did not give every size."""


@dataclass(frozen=True)
class HubDetails:
    id: str
    gated: str | None
    """``auto`` or ``manual`` when access must be granted first."""
    quantizations: list[Quantization]


def hub_endpoint() -> str:
    return (os.environ.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT).rstrip("/")


def find_token() -> str | None:
    token = os.environ.get("HF_TOKEN", "").strip()
    if token:
        return token
    env = os.environ
    candidates = [
        env.get("HF_TOKEN_PATH"),
        str(Path(env["HF_HOME"]) / "token") if env.get("HF_HOME") else None,
        str(Path(env["XDG_CACHE_HOME"]) / "huggingface" / "token") if env.get("XDG_CACHE_HOME") else None,
        str(Path.home() / ".cache" / "huggingface" / "token"),
    ]
    for path in dict.fromkeys(c for c in candidates if c):
        try:
            found = Path(path).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if found:
            return found
    return None


def _rate_limit_delay(response: Any) -> str | None:
    retry = response.headers.get("retry-after", "")
    if isinstance(retry, str) and retry.isdigit() and int(retry) > 0:
        return retry
    match = re.search(r"(?:^|;)t=(\d+)", response.headers.get("ratelimit", ""))
    return match.group(1) if match else None


async def _get(path: str) -> Any:
    import httpx

    token = find_token()
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        async with httpx.AsyncClient(timeout=REQUEST_SECONDS) as client:
            response = await client.get(f"{hub_endpoint()}{path}", headers=headers)
    except httpx.HTTPError as error:
        raise LlamaServerError(f"Could not reach Hugging Face at {hub_endpoint()}: {error}") from error
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if response.status_code == 429:
        delay = _rate_limit_delay(response)
        raise LlamaServerError(f"Hugging Face rate limit reached{f'; retry in {delay}s' if delay else ''}")
    if response.status_code >= 400:
        reason = payload.get("error") if isinstance(payload, dict) else None
        raise LlamaServerError(reason if isinstance(reason, str) and reason else
                               f"Hugging Face returned HTTP {response.status_code}")  # fmt: skip
    return payload


async def hub_search(query: str) -> list[HubModel]:
    params = urlencode(
        {"search": query, "filter": "gguf", "sort": "downloads", "direction": "-1", "limit": "20"}
    )
    payload = await _get(f"/api/models?{params}")
    if not isinstance(payload, list):
        raise LlamaServerError("Hugging Face returned invalid search results")
    return [
        HubModel(entry["id"], entry["downloads"] if isinstance(entry.get("downloads"), int) else 0)
        for entry in payload
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)
    ]


def _quantizations(siblings: Any) -> list[Quantization]:
    sizes: dict[str, int | None] = {}
    for sibling in siblings if isinstance(siblings, list) else []:
        name = sibling.get("rfilename") if isinstance(sibling, dict) else None
        if not isinstance(name, str) or not name.lower().endswith(".gguf"):
            continue
        filename = name.rsplit("/", 1)[-1]
        if filename.lower().startswith("mmproj"):
            continue
        match = _QUANTIZATION.search(_SHARD.sub("", filename[:-5]))
        if match is None:
            continue
        quantization = match.group(1).upper()
        size = sibling.get("size")
        known = sizes.get(quantization, 0)
        sizes[quantization] = known + size if isinstance(size, int) and known is not None else None
    found = [Quantization(name, size) for name, size in sizes.items()]
    return sorted(
        found, key=lambda q: (q.name != RECOMMENDED, q.size if q.size is not None else 1 << 62, q.name)
    )


async def hub_details(repository: str) -> HubDetails:
    payload = await _get(f"/api/models/{quote(repository, safe='/')}?blobs=true")
    if not isinstance(payload, dict):
        raise LlamaServerError("Hugging Face returned invalid model details")
    gated = payload.get("gated")
    return HubDetails(
        payload["id"] if isinstance(payload.get("id"), str) else repository,
        gated if gated in ("auto", "manual") else None,
        _quantizations(payload.get("siblings")),
    )
