"""Pi 1.6's Anthropic extra-usage warning (``warnings.anthropicExtraUsage``, on by default).

An Anthropic model used with a Claude subscription (an OAuth sign-in, or a subscription
token ``sk-ant-oat...`` as the key) is billed as extra usage per token, not from the plan's
limits. Pi says so once per run, the first time such a model is in use: at startup, after
``/model`` or the model-cycling keys pick one, after a sign-in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import Model

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._parts import Notices
    from pi_coding_agent.runtime.agent_session import AgentSession

EXTRA_USAGE_WARNING = (
    "Anthropic subscription auth is active. Third-party harness usage draws from extra usage and "
    "is billed per token, not your Claude plan limits. Manage extra usage at "
    "https://claude.ai/settings/usage. Disable this warning in /settings."
)
SUBSCRIPTION_KEY_PREFIX = "sk-ant-oat"


class ExtraUsageWarning:
    def __init__(self) -> None:
        self.shown = False

    def check(self, session: AgentSession, notices: Notices, model: Model | None = None) -> None:
        model = model or session.model
        if self.shown or not session.settings.anthropic_extra_usage_warning:
            return
        if model is None or model.provider != "anthropic":
            return
        if _subscription_auth(session):
            self.shown = True
            notices.warning(EXTRA_USAGE_WARNING)


def _subscription_auth(session: AgentSession) -> bool:
    credentials = session.catalog.credentials
    if credentials.is_oauth("anthropic"):
        return True
    try:
        key = credentials.api_key("anthropic")
    except Exception:  # a key command that fails: the warning is not worth an error
        return False
    return isinstance(key, str) and key.startswith(SUBSCRIPTION_KEY_PREFIX)
