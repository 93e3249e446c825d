"""Interactive mode: ``pi`` in a terminal (Pi's TUI)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pi_coding_agent.app.interactive._startup_resources import StartupResources, resource_origins

if TYPE_CHECKING:
    from pi_ai import ImageContent
    from pi_coding_agent.core.session import SessionInfo
    from pi_coding_agent.runtime.agent_session import AgentSessionRuntime
    from pi_tui import Terminal


async def run_interactive_mode(
    runtime: AgentSessionRuntime,
    *,
    agent_dir: Path,
    version: str,
    initial_message: str | None = None,
    initial_images: Sequence[ImageContent] = (),
    theme_name: str | None = None,
    theme_paths: Sequence[str] = (),
    tui_mode: Literal["regular", "fullscreen"] | None = None,
    reload_resources: Callable[[], list[str]] | None = None,
    trust_on_reload: str | None = None,
    verbose: bool = False,
    startup_resources: StartupResources | None = None,
    terminal: Terminal | None = None,
) -> int:
    """Run the terminal UI until the user quits; the exit status.

    ``reload_resources`` (for ``/reload``) re-reads skills, prompt templates, context files and
    settings for the sessions the runtime builds from then on, and returns warnings to show.
    ``trust_on_reload``: the folder whose trust ``/reload`` saves when ``.pi`` resources appeared
    there during the run (Pi's implicit trust after reload).
    ``verbose`` (``--verbose``) shows the startup header even with ``quietStartup``.
    ``startup_resources``: the context files, resource origins and conflicts the header lists.
    ``terminal``: where to draw and read keys (the process's own terminal when not given).
    """
    from pi_coding_agent.app.interactive._mode import InteractiveMode

    mode = InteractiveMode(
        runtime,
        agent_dir=agent_dir,
        version=version,
        theme_name=theme_name,
        theme_paths=theme_paths,
        tui_mode=tui_mode,
        reload_resources=reload_resources,
        trust_on_reload=trust_on_reload,
        verbose=verbose,
        startup_resources=startup_resources,
        terminal=terminal,
    )
    return await mode.run(initial_message, initial_images)


async def pick_session(
    load_current: Callable[[], Sequence[SessionInfo]],
    load_all: Callable[[], Sequence[SessionInfo]],
    agent_dir: Path,
) -> str | None:
    """``pi -r``: the session picker on its own; the chosen file, or ``None`` when dismissed."""
    from pi_coding_agent.app.interactive._picker import run_picker

    return await run_picker(load_current, load_all, agent_dir)


async def startup_select(
    title: str, options: Sequence[str], agent_dir: Path, terminal: Terminal | None = None
) -> str | None:
    """A question asked before the terminal UI starts (the project trust prompt): the option
    chosen, ``None`` when dismissed. ``terminal`` as for ``run_interactive_mode``."""
    from pi_coding_agent.app.interactive._picker import run_startup_select

    return await run_startup_select(title, options, agent_dir, terminal)


__all__ = ["StartupResources", "pick_session", "resource_origins", "run_interactive_mode", "startup_select"]
