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
        """The last ``plan-mode`` entry of the branch, or ``None``."""
        for entry in reversed(branch):
            if getattr(entry, "type", None) == "custom" and getattr(entry, "custom_type", None) == "plan-mode":
                data = entry.data if isinstance(entry.data, dict) else {}
                return bool(data.get("enabled"))
        return None
