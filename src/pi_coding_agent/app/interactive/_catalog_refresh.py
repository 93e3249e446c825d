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
from typing import TYPE_CHECKING

from pi_coding_agent.core.model_registry import CatalogRefreshError

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._mode import InteractiveMode


def start_catalog_refresh(mode: InteractiveMode) -> None:
    if "PI_OFFLINE" in os.environ:  # even empty: Pi's model runtime then keeps off the network
        return
    mode.spawn(_refresh(mode))


async def _refresh(mode: InteractiveMode) -> None:
    with contextlib.suppress(CatalogRefreshError):
        await mode.session.catalog.refresh_gateway_catalogs(mode.agent_dir)
    mode.update_provider_count()
    mode.tui.request_render()
