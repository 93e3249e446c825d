"""Two things Pi says as its terminal UI starts: the model scope line (``--models`` or
``enabledModels``: ``Model scope: a, b:high (Ctrl+P to cycle)``), printed above the UI, and a
warning when tmux will not pass modified keys through (``extended-keys`` off, or the
``xterm`` key format), asked of tmux itself in the background."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_coding_agent.core.model_registry import ScopedModel
    from pi_coding_agent.customize.themes import Theme
    from pi_tui import Keybindings

_TMUX_ASK_LIMIT_S = 2.0


def model_scope_line(scoped: Sequence[ScopedModel], keys: Keybindings, theme: Theme) -> str | None:
    """Pi's line naming the models Ctrl+P cycles through; ``None`` without a scope."""
    if not scoped:
        return None
    names = ", ".join(s.model.id + (f":{s.thinking_level}" if s.thinking_level else "") for s in scoped)
    cycle = keys.display("app.model.cycleForward")
    hint = theme.fg("muted", f" ({cycle} to cycle)") if cycle else ""
    return theme.fg("dim", f"Model scope: {names}{hint}")


async def _tmux_option(name: str) -> str | None:
    try:
        process = await asyncio.create_subprocess_exec(
            "tmux", "show", "-gv", name,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), _TMUX_ASK_LIMIT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    return out.decode(errors="replace").strip() if process.returncode == 0 else None


async def tmux_keyboard_warning() -> str | None:
    """Pi's advice when pi runs inside tmux whose settings lose modified keys (Shift+Enter...)."""
    if not os.environ.get("TMUX"):
        return None
    extended, key_format = await asyncio.gather(
        _tmux_option("extended-keys"), _tmux_option("extended-keys-format")
    )
    if extended is None:
        return None
    if extended not in ("on", "always"):
        return (
            "tmux extended-keys is off. Modified Enter keys may not work. "
            "Add `set -g extended-keys on` to ~/.tmux.conf and restart tmux."
        )
    if key_format == "xterm":
        return (
            "tmux extended-keys-format is xterm. Pi works best with csi-u. "
            "Add `set -g extended-keys-format csi-u` to ~/.tmux.conf and restart tmux."
        )
    return None
