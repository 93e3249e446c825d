"""``/llama``: the models of the llama.cpp server the user runs, made selectable in ``/model``
as the ``llama.cpp`` provider (Pi's built-in llama.cpp extension, in part: no load, unload or
download from here yet); without a server, where the embedded llama.cpp models are."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.core.local_model import (
    LLAMA_PROVIDER,
    LlamaServerError,
    list_server_models,
    local_models,
    normalize_server_url,
    provider_config,
)

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._parts import Notices
    from pi_coding_agent.runtime.agent_session import AgentSession


class LlamaHost(Protocol):
    @property
    def session(self) -> AgentSession: ...
    @property
    def transcript(self) -> Notices: ...
    def update_provider_count(self) -> None: ...


def _server(host: LlamaHost) -> str:
    """``LLAMA_BASE_URL`` of a stored ``llama.cpp`` credential, else of the environment."""
    stored = host.session.catalog.credentials.storage.env(LLAMA_PROVIDER).get("LLAMA_BASE_URL", "")
    return stored if stored.strip() else os.environ.get("LLAMA_BASE_URL", "")


async def llama(host: LlamaHost, _arguments: str) -> None:
    configured = _server(host).strip()
    if not configured:
        embedded = ", ".join(f"local/{model.id}" for model in local_models())
        host.transcript.warning(
            "No llama.cpp server configured: set LLAMA_BASE_URL to your llama-server's URL. "
            f"The embedded llama.cpp models need no server: {embedded} (/model)"
        )
        return
    try:
        server = normalize_server_url(configured)
        api_key = os.environ.get("LLAMA_API_KEY") or None
        models = await list_server_models(server, api_key)
        host.session.catalog.register_provider(LLAMA_PROVIDER, provider_config(server, models, api_key))
    except (ValueError, LlamaServerError) as error:
        host.transcript.error(str(error))
        return
    host.update_provider_count()
    rows = [f"  {model.id}  {model.status}" for model in models] or ["  (no models)"]
    advice = (
        "Use /model to select a loaded llama.cpp model."
        if any(model.selectable for model in models)
        else "No llama.cpp models are loaded; load one on the server, then run /llama again."
    )
    host.transcript.status("\n".join([f"llama.cpp server {server}", *rows, advice]))


HANDLERS = {"llama": llama}
