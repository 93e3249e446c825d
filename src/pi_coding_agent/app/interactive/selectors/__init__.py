"""What takes the editor's place when pi asks the user to choose: selectors and dialogs."""

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_coding_agent.app.interactive.selectors._dialogs import (
    EditorDialog,
    InputDialog,
    LoaderDialog,
    SelectDialog,
)
from pi_coding_agent.app.interactive.selectors._lists import ForkSelector, TrustSelector
from pi_coding_agent.app.interactive.selectors._llama import DOWNLOAD, LlamaView, ModelRow, ProgressState
from pi_coding_agent.app.interactive.selectors._login import (
    LoginDialog,
    ProviderRow,
    ProviderSelector,
    auth_type_label,
)
from pi_coding_agent.app.interactive.selectors._mcp import McpMenu, McpView
from pi_coding_agent.app.interactive.selectors._model_thinking import (
    ModelThinkingMenu,
    ThinkingModel,
    overrides_summary,
)
from pi_coding_agent.app.interactive.selectors._models import (
    ModelSelector,
    ScopedModelsSelector,
    ThinkingSelector,
    model_key,
)
from pi_coding_agent.app.interactive.selectors._sessions import SessionLike, SessionPicker
from pi_coding_agent.app.interactive.selectors._settings import (
    HTTP_IDLE_TIMEOUTS,
    TRUST_LABELS,
    SettingsSelector,
)
from pi_coding_agent.app.interactive.selectors._tree import TreeSelector

__all__ = [
    "DOWNLOAD",
    "HTTP_IDLE_TIMEOUTS",
    "TRUST_LABELS",
    "EditorDialog",
    "ForkSelector",
    "InputDialog",
    "LlamaView",
    "LoaderDialog",
    "LoginDialog",
    "McpMenu",
    "McpView",
    "ModelRow",
    "ModelSelector",
    "ModelThinkingMenu",
    "ProgressState",
    "ProviderRow",
    "ProviderSelector",
    "ScopedModelsSelector",
    "SelectDialog",
    "SelectorContext",
    "SessionLike",
    "SessionPicker",
    "SettingsSelector",
    "ThinkingModel",
    "ThinkingSelector",
    "TreeSelector",
    "TrustSelector",
    "auth_type_label",
    "model_key",
    "overrides_summary",
]
