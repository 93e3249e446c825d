"""Interactive mode: ``pi`` in a terminal (Pi's TUI)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_ai import ImageContent
    from pi_coding_agent.agent_session import AgentSession


async def run_interactive_mode(
    session: AgentSession,
    *,
    agent_dir: Path,
    version: str,
    initial_message: str | None = None,
    initial_images: Sequence[ImageContent] = (),
    theme_name: str | None = None,
) -> int:
    """Run the terminal UI on the process's terminal until the user quits; the exit status."""
    from pi_coding_agent.modes.interactive._mode import InteractiveMode

    mode = InteractiveMode(session, agent_dir=agent_dir, version=version, theme_name=theme_name)
    return await mode.run(initial_message, initial_images)


__all__ = ["run_interactive_mode"]
