"""Plan mode's state, kept apart from the wiring (a folder extension may have modules)."""

from dataclasses import dataclass, field

READ_ONLY_TOOLS = ("read", "grep", "find", "ls")
PLAN_PROMPT = (
    "You are in PLAN MODE. Explore with the read-only tools and answer with a numbered plan. "
    "Do not change any file and do not run commands."
)


@dataclass
class PlanState:
    enabled: bool = False
    saved_tools: list = field(default_factory=list)

    def restore(self, branch):
        """The last ``plan-mode`` entry of the branch (its tools from before plan mode too), or ``None``.

        The tools in force come back from the session on resume (Pi 1.6 records them), so the
        tools to give back when plan mode ends are stored with the mode, not asked for again.
        """
        for entry in reversed(branch):
            if getattr(entry, "type", None) == "custom" and getattr(entry, "custom_type", None) == "plan-mode":
                data = entry.data if isinstance(entry.data, dict) else {}
                self.saved_tools = list(data.get("tools_before_plan", []))
                return bool(data.get("enabled"))
        return None

    def entry(self):
        """What a ``plan-mode`` entry stores."""
        return {"enabled": self.enabled, "tools_before_plan": self.saved_tools} if self.enabled else {"enabled": False}
