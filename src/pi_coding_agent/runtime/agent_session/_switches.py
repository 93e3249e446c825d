"""The queue delivery modes and the two automatic behaviours (compaction, retry).

They are settings: changing one writes the global ``settings.json``, as Pi does.
"""

from __future__ import annotations

from pi_agent import Agent, QueueMode
from pi_coding_agent.core.settings import Settings


class SessionSwitches:
    def __init__(self, agent: Agent, settings: Settings) -> None:
        self.agent = agent
        self.settings = settings

    @property
    def steering_mode(self) -> QueueMode:
        return self.agent.steering_mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self.agent.follow_up_mode

    def set_steering_mode(self, mode: QueueMode) -> None:
        """``"all"``: every queued steering message at once; ``"one-at-a-time"``: one per turn."""
        self.agent.steering_mode = mode
        self.settings.set_global(("steeringMode",), mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self.agent.follow_up_mode = mode
        self.settings.set_global(("followUpMode",), mode)

    @property
    def auto_compaction_enabled(self) -> bool:
        return self.settings.compaction.enabled

    def set_auto_compaction_enabled(self, enabled: bool) -> None:
        self.settings.set_global(("compaction", "enabled"), enabled)

    @property
    def auto_retry_enabled(self) -> bool:
        return self.settings.retry.enabled

    def set_auto_retry_enabled(self, enabled: bool) -> None:
        self.settings.set_global(("retry", "enabled"), enabled)
