"""The project a run's sessions are in, when ``/resume``, ``/import``, RPC ``switch_session`` or a
fork moves them to another folder (Pi's ``createRuntime`` for each replacement session).

The folder's trust is decided once per run and folder, as Pi decides it: ``-a``/``-na``, a
saved decision, ``defaultProjectTrust``; with ``ask`` the terminal UI asks Pi's question with
Pi's five answers (the same as at startup, saved the same way); RPC and the other modes do
not ask (untrusted). The settings and resources of that folder (its ``.pi`` ones only when
trusted, its context files) are then read for the sessions built there, and the header's
listing follows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_coding_agent.core.settings import Settings, TrustChoice
    from pi_coding_agent.runtime.agent_session import AgentSessionRuntime, SessionAssembly

AsyncTrustAsker = Callable[[str, Sequence["TrustChoice"]], Awaitable["TrustChoice | None"]]
Reload = Callable[[str, bool], object]
"""Reads settings and resources for ``(folder, trusted)`` into the run's assembly."""


class RunTrust:
    """Trust per folder for one run: each folder that needs a decision gets one, asked at
    most once (a "this session only" answer holds for the rest of the run)."""

    def __init__(self, agent_dir: Path, override: bool | None, settings: Settings) -> None:
        self.agent_dir = agent_dir
        self.override = override
        self.default_trust = settings.default_project_trust  # a global setting: the same for every folder
        self.decided: dict[str, bool] = {}

    async def trusted(self, cwd: str, ask: AsyncTrustAsker | None) -> bool:
        from pi_coding_agent.core.settings import (
            ConfigFileError,
            needs_project_trust,
            record_trust_choice,
            trust_choices,
            trust_prompt_title,
            trust_without_asking,
        )

        if cwd in self.decided:
            return self.decided[cwd]
        try:
            found = trust_without_asking(
                cwd, self.agent_dir, override=self.override, default_trust=self.default_trust
            )
            if found is None:
                choice = (
                    await ask(trust_prompt_title(cwd), trust_choices(cwd, session_only=True)) if ask else None
                )
                found = record_trust_choice(self.agent_dir, choice)
        except (ConfigFileError, OSError):
            found = False  # trust decisions that cannot be read or saved: untrusted, as at startup
        if self.override is None and needs_project_trust(cwd):
            self.decided[cwd] = found
        return found


def follow_directories(
    runtime: AgentSessionRuntime, assembly: SessionAssembly, trust: RunTrust, reload: Reload
) -> None:
    """Before each replacement session is built: its folder's trust (the terminal UI asks when
    it must), and, for another folder or another decision, that folder's settings and resources."""

    async def ask(title: str, choices: Sequence[TrustChoice]) -> TrustChoice | None:
        label = await runtime.ui.select(title, [choice.label for choice in choices])
        return next((choice for choice in choices if choice.label == label), None)

    async def enter(cwd: str) -> None:
        trusted = await trust.trusted(cwd, ask if runtime.ui_mode == "tui" else None)
        options = assembly.options
        if cwd != options.cwd or trusted != options.settings.project_trusted:
            reload(cwd, trusted)

    runtime.enter_directory = enter
