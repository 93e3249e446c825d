"""The Radius gateways' model catalogs, fetched anew in the background once the screen is up,
as Pi 0.85's interactive mode does at every start (its Radius providers keep no four-hour
window: that one is for the pi.dev catalogs of built-in providers, which we do not fetch).

Nothing is fetched with ``PI_OFFLINE`` set (even to nothing), nor for a gateway without a
credential. A gateway that fails or is slower than the refresh's 15 s limit is passed over in
silence, its stored catalog kept, as Pi does; what arrives replaces the provider's entry in
``models-store.json`` and its models in this session (the footer's provider count follows).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pi_coding_agent.core.model_registry import CatalogRefreshError

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._parts import Spawn
    from pi_coding_agent.core.model_registry import ModelCatalog


def start_catalog_refresh(
    catalog: ModelCatalog, agent_dir: Path, spawn: Spawn, refreshed: Callable[[], None]
) -> None:
    """Refresh ``catalog``'s gateways in the background (``spawn``); ``refreshed`` runs after."""
    if "PI_OFFLINE" in os.environ:  # even empty: Pi's model runtime then keeps off the network
        return
    spawn(_refresh(catalog, agent_dir, refreshed))


async def _refresh(catalog: ModelCatalog, agent_dir: Path, refreshed: Callable[[], None]) -> None:
    with contextlib.suppress(CatalogRefreshError):
        await catalog.refresh_gateway_catalogs(agent_dir)
    refreshed()
