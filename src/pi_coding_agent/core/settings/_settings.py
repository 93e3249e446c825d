"""``settings.json``: the global file deep-merged with the project's, with Pi's defaults.

Files: ``<agent dir>/settings.json`` (global) and ``<cwd>/.pi/settings.json`` (project, read
only when the project is trusted). Objects merge recursively, the project wins, any other
value (arrays included) is replaced as a whole. A file that cannot be parsed is reported
(``issues``) and treated as empty; it is never rewritten. A value of the wrong type is
reported too and its default used instead (Pi would pass it on unchecked).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pi_ai import canonical_provider, legacy_provider_ids
from pi_coding_agent.core.paths import CONFIG_DIR_NAME, expand_tilde
from pi_coding_agent.core.settings._json_file import ConfigFileError, read_json_object
from pi_coding_agent.core.settings._tool_selection import merge_default_tools, resolve_default_tools

DEFAULT_THINKING_LEVEL: Literal["medium"] = "medium"
DEFAULT_HTTP_IDLE_TIMEOUT_MS = 300_000

Scope = Literal["global", "project"]
ProjectTrustDefault = Literal["ask", "always", "never"]
QueueMode = Literal["all", "one-at-a-time"]

T = TypeVar("T")


@dataclass(frozen=True)
class SettingsIssue:
    """Something wrong in a settings file; the run goes on with defaults for that part."""

    scope: Scope
    path: Path
    message: str

    def __str__(self) -> str:
        return f"Invalid settings file {self.path}: {self.message}"


@dataclass(frozen=True)
class RetrySettings:
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_agent_delay_ms: int = 60_000
    """``retry.maxAgentDelayMs`` (Pi 1.6): the longest backoff between two attempts."""


@dataclass(frozen=True)
class ProviderRetrySettings:
    """Retries done inside one provider request (``retry.provider``), not by the session."""

    timeout_ms: int | None = None
    max_retries: int | None = None
    max_retry_delay_ms: int = 60_000


@dataclass(frozen=True)
class CompactionSettings:
    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000


def deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``overrides`` on top of ``base``: nested objects merge, everything else replaces."""
    result = dict(base)
    for key, value in overrides.items():
        current = result.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            result[key] = deep_merge(current, value)
        else:
            result[key] = value
    return result


def _migrate(settings: dict[str, Any]) -> dict[str, Any]:
    """Old key layouts Pi still accepts, moved to where the current keys live."""
    if "queueMode" in settings and "steeringMode" not in settings:
        settings["steeringMode"] = settings.pop("queueMode")
    if "transport" not in settings and isinstance(settings.get("websockets"), bool):
        settings["transport"] = "websocket" if settings.pop("websockets") else "sse"
    retry = settings.get("retry")
    if isinstance(retry, dict) and "maxDelayMs" in retry:
        max_delay = retry.pop("maxDelayMs")
        existing = retry.get("provider")
        provider: dict[str, Any] = existing if isinstance(existing, dict) else {}
        if isinstance(max_delay, (int, float)) and provider.get("maxRetryDelayMs") is None:
            retry["provider"] = {**provider, "maxRetryDelayMs": max_delay}
    return settings


class Settings:
    """The effective settings of one run (global + trusted project), read once."""

    def __init__(
        self,
        global_settings: dict[str, Any] | None = None,
        project_settings: dict[str, Any] | None = None,
        *,
        global_path: Path | None = None,
        project_path: Path | None = None,
        issues: list[SettingsIssue] | None = None,
        project_trusted: bool = True,
    ) -> None:
        self.global_settings = global_settings or {}
        self.project_settings = project_settings or {}
        self.global_path = global_path
        self.project_path = project_path
        self.project_trusted = project_trusted
        self.issues: list[SettingsIssue] = list(issues or [])
        self.data = self._merged()

    def _merged(self) -> dict[str, Any]:
        """The project layer over the global one; ``defaultTools`` of only ``+name``/``-name``
        entries changes the global list instead of replacing it."""
        merged = deep_merge(self.global_settings, self.project_settings)
        if "defaultTools" in self.project_settings:
            merged["defaultTools"] = merge_default_tools(
                self.global_settings.get("defaultTools"), self.project_settings["defaultTools"]
            )
        return merged

    @classmethod
    def load(cls, cwd: str | Path, agent_dir: str | Path, *, project_trusted: bool = True) -> Settings:
        """Read both files; a broken file becomes an issue, never an exception."""
        global_path = Path(agent_dir) / "settings.json"
        project_path = Path(cwd) / CONFIG_DIR_NAME / "settings.json"
        issues: list[SettingsIssue] = []
        global_settings = _load_scope("global", global_path, issues)
        project_settings = _load_scope("project", project_path, issues) if project_trusted else {}
        return cls(
            global_settings,
            project_settings,
            global_path=global_path,
            project_path=project_path,
            issues=issues,
            project_trusted=project_trusted,
        )

    # -- changes ------------------------------------------------------------------------

    def set_global(self, keys: tuple[str, ...], value: Any) -> None:
        """Change one global setting, for this run and in the global ``settings.json``.

        As Pi's setters: the in-memory global value changes (a project value for the same key
        still wins in the merged view), and only that key is written into the file as it is
        now on disk, so other keys and edits made meanwhile are kept. A global file that
        could not be parsed is left alone.
        """
        self._change_global(lambda data: _set_path(data, keys, value))

    def unset_global(self, keys: tuple[str, ...]) -> None:
        """Remove one global setting (Pi's setter given ``undefined``), here and in the file."""
        self._change_global(lambda data: _unset_path(data, keys))

    def _change_global(self, change: Callable[[dict[str, Any]], None]) -> None:
        change(self.global_settings)
        self.data = self._merged()
        path = self.global_path
        if path is None or any(issue.scope == "global" for issue in self.issues):
            return
        try:
            current = read_json_object(path) or {}
        except ConfigFileError:
            return
        change(current)
        _write_json(path, current)

    # -- raw access ---------------------------------------------------------------------

    def get(self, *keys: str) -> Any:
        """The merged value at ``keys`` (``get("retry", "enabled")``), or ``None``."""
        value: Any = self.data
        for key in keys:
            if not isinstance(value, dict):
                return None
            value = value.get(key)
        return value

    def _typed(self, keys: tuple[str, ...], kinds: type | tuple[type, ...], default: T) -> T:
        value = self.get(*keys)
        if value is None:
            return default
        if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
            ok = False
        else:
            ok = isinstance(value, kinds)
        if not ok:
            self._report(keys, f"{'.'.join(keys)} has the wrong type ({type(value).__name__}); using the default")
            return default
        return value  # type: ignore[no-any-return]

    def _number(self, keys: tuple[str, ...], default: int) -> int:
        value = self._typed(keys, (int, float), default)
        if isinstance(value, float):
            if not math.isfinite(value):
                return default
            return int(value)
        return value

    def _report(self, keys: tuple[str, ...], message: str) -> None:
        scope: Scope = "project" if _has_path(self.project_settings, keys) else "global"
        path = self.project_path if scope == "project" else self.global_path
        issue = SettingsIssue(scope, path or Path("settings.json"), message)
        if issue not in self.issues:
            self.issues.append(issue)

    # -- model and thinking --------------------------------------------------------------

    @property
    def default_provider(self) -> str | None:
        """``defaultProvider`` by the provider's current id (a 0.85 file may name a renamed one)."""
        value: str | None = self._typed(("defaultProvider",), str, None)
        return canonical_provider(value) if value is not None else None

    @property
    def default_model(self) -> str | None:
        return self._typed(("defaultModel",), str, None)

    @property
    def default_thinking_level(self) -> str | None:
        return self._typed(("defaultThinkingLevel",), str, None)

    def model_thinking_level(self, provider: str, model_id: str) -> str | None:
        levels: dict[str, Any] = self._typed(("modelThinkingLevels",), dict, {})
        provider = canonical_provider(provider)
        for name in (provider, *legacy_provider_ids(provider)):  # keys written before a rename count
            value = levels.get(f"{name}/{model_id}")
            if isinstance(value, str):
                return value
        return None

    @property
    def enabled_models(self) -> list[str] | None:
        value = self._typed(("enabledModels",), list, None)
        return [item for item in value if isinstance(item, str)] if value is not None else None

    @property
    def thinking_budgets(self) -> dict[str, int] | None:
        value: dict[str, Any] | None = self._typed(("thinkingBudgets",), dict, None)
        if value is None:
            return None
        return {k: int(v) for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}

    @property
    def transport(self) -> str:
        return self._typed(("transport",), str, "auto")

    # -- agent loop ----------------------------------------------------------------------

    @property
    def steering_mode(self) -> QueueMode:
        return "all" if self.get("steeringMode") == "all" else "one-at-a-time"

    @property
    def follow_up_mode(self) -> QueueMode:
        return "all" if self.get("followUpMode") == "all" else "one-at-a-time"

    @property
    def retry(self) -> RetrySettings:
        return RetrySettings(
            enabled=self._typed(("retry", "enabled"), bool, True),
            max_retries=self._number(("retry", "maxRetries"), 3),
            base_delay_ms=self._number(("retry", "baseDelayMs"), 2000),
            max_agent_delay_ms=self._number(("retry", "maxAgentDelayMs"), 60_000),
        )

    @property
    def provider_retry(self) -> ProviderRetrySettings:
        timeout = self.get("retry", "provider", "timeoutMs")
        retries = self.get("retry", "provider", "maxRetries")
        return ProviderRetrySettings(
            timeout_ms=self._number(("retry", "provider", "timeoutMs"), 0) if timeout is not None else None,
            max_retries=self._number(("retry", "provider", "maxRetries"), 0) if retries is not None else None,
            max_retry_delay_ms=self._number(("retry", "provider", "maxRetryDelayMs"), 60_000),
        )

    @property
    def http_idle_timeout_ms(self) -> int:
        """Idle time allowed between bytes of a provider response; 0 disables the limit."""
        found = self._timeout("httpIdleTimeoutMs")
        return DEFAULT_HTTP_IDLE_TIMEOUT_MS if found is None else found

    @property
    def response_timeout_ms(self) -> int:
        """``responseTimeoutMs``: the deadline for one whole model response (ours; Pi has no
        such bound); 0 or ``"disabled"`` disables it. Default ``DEFAULT_RESPONSE_TIMEOUT_MS``."""
        from pi_ai import DEFAULT_RESPONSE_TIMEOUT_MS  # (pi_ai's messages load with the first model call)

        found = self._timeout("responseTimeoutMs")
        return DEFAULT_RESPONSE_TIMEOUT_MS if found is None else found

    @property
    def websocket_connect_timeout_ms(self) -> int | None:
        """How long a WebSocket transport (Codex's) may take to open; 0 disables the limit,
        ``None`` leaves the provider's default (15 s)."""
        return self._timeout("websocketConnectTimeoutMs")

    def _timeout(self, key: str) -> int | None:
        """A timeout setting as Pi reads one: milliseconds (a number, or a string of one), or
        ``"disabled"`` for 0. A value that is neither is reported and left unset."""
        value = raw = self.get(key)
        if value is None:
            return None
        if isinstance(value, str):
            text = value.strip()
            if text.lower() == "disabled":
                return 0
            try:
                value = float(text)
            except ValueError:
                value = None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            return int(value)
        self._report((key,), f"{key} is not a valid timeout ({raw!r})")
        return None

    @property
    def http_proxy(self) -> str | None:
        """``httpProxy``, read from the global file only (as in Pi); ``None`` when unset or blank."""
        value = self.global_settings.get("httpProxy")
        if value is None:
            return None
        if not isinstance(value, str):
            issue = SettingsIssue("global", self.global_path or Path("settings.json"), "httpProxy is not a string")
            if issue not in self.issues:
                self.issues.append(issue)
            return None
        return value.strip() or None

    def apply_http_proxy(self, environ: MutableMapping[str, str]) -> None:
        """Pi's ``applyHttpProxySettings``: ``httpProxy`` fills ``HTTP_PROXY`` and ``HTTPS_PROXY``
        when they are not set (a variable that is set, even empty or in lower case, wins)."""
        proxy = self.http_proxy
        if proxy is not None:
            environ.setdefault("HTTP_PROXY", proxy)
            environ.setdefault("HTTPS_PROXY", proxy)

    @property
    def compaction(self) -> CompactionSettings:
        return CompactionSettings(
            enabled=self._typed(("compaction", "enabled"), bool, True),
            reserve_tokens=self._number(("compaction", "reserveTokens"), 16384),
            keep_recent_tokens=self._number(("compaction", "keepRecentTokens"), 20000),
        )

    def compaction_for(self, provider: str, model_id: str) -> CompactionSettings:
        """``compaction`` for one model: each token value of ``compaction.modelOverrides
        ["provider/id"]`` (Pi 1.6) wins over the ordinary one. An override that is not a
        non-negative integer is reported and skipped (Pi 1.6 fails the compaction instead)."""
        base = self.compaction
        key = f"{provider}/{model_id}"
        entry = self.get("compaction", "modelOverrides", key)
        if entry is None:
            return base
        if not isinstance(entry, dict):
            self._report(("compaction", "modelOverrides", key), f'compaction.modelOverrides["{key}"] is not an object')
            return base
        values = {"reserveTokens": base.reserve_tokens, "keepRecentTokens": base.keep_recent_tokens}
        for field, value in entry.items():
            if field not in values:
                continue
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                values[field] = value
            else:
                keys = ("compaction", "modelOverrides", key, field)
                self._report(keys, f'compaction.modelOverrides["{key}"].{field} is not a non-negative integer')
        return CompactionSettings(base.enabled, values["reserveTokens"], values["keepRecentTokens"])

    @property
    def branch_summary_reserve_tokens(self) -> int:
        return self._number(("branchSummary", "reserveTokens"), 16384)

    @property
    def branch_summary_skip_prompt(self) -> bool:
        """Navigating the tree does not ask whether to summarize (and does not summarize)."""
        return self._typed(("branchSummary", "skipPrompt"), bool, False)

    # -- images --------------------------------------------------------------------------

    @property
    def image_auto_resize(self) -> bool:
        return self._typed(("images", "autoResize"), bool, True)

    @property
    def block_images(self) -> bool:
        return self._typed(("images", "blockImages"), bool, False)

    # -- terminal ------------------------------------------------------------------------

    @property
    def fullscreen_scrollbar(self) -> Literal["auto", "always", "hidden"]:
        value = self.get("fullscreenScrollbar")
        return value if value in ("always", "hidden") else "auto"

    @property
    def fullscreen_copy_on_select(self) -> bool:
        return self._typed(("fullscreenCopyOnSelect",), bool, True)

    @property
    def fullscreen_wheel_scroll_lines(self) -> int | Literal["auto"]:
        """Pi 1.6's ``fullscreenWheelScrollLines``: ``"auto"`` or a number from 1 to 100."""
        value = self.get("fullscreenWheelScrollLines")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return max(1, min(100, int(value)))
        return "auto"

    @property
    def image_width_cells(self) -> int:
        """``terminal.imageWidthCells``: how wide an inline image may be drawn (default 60)."""
        return max(1, self._number(("terminal", "imageWidthCells"), 60))

    @property
    def show_terminal_progress(self) -> bool:
        return self._typed(("terminal", "showTerminalProgress"), bool, False)

    @property
    def clear_on_shrink(self) -> bool:
        """``terminal.clearOnShrink``; unset, ``PI_CLEAR_ON_SHRINK=1`` turns it on (as Pi)."""
        value = self.get("terminal", "clearOnShrink")
        return value if isinstance(value, bool) else os.environ.get("PI_CLEAR_ON_SHRINK") == "1"

    @property
    def show_cache_miss_notices(self) -> bool:
        return self._typed(("showCacheMissNotices",), bool, False)

    @property
    def anthropic_extra_usage_warning(self) -> bool:
        """``warnings.anthropicExtraUsage`` (default on): only ``false`` turns it off."""
        return self.get("warnings", "anthropicExtraUsage") is not False

    @property
    def mermaid_mode(self) -> Literal["off", "final", "streaming"]:
        """``markdown.mermaid``: when Mermaid code blocks are drawn as diagrams (default ``streaming``)."""
        value = self.get("markdown", "mermaid")
        return value if value in ("off", "final") else "streaming"

    @property
    def code_block_indent(self) -> str:
        """``markdown.codeBlockIndent``: what a code block's lines start with (default two spaces)."""
        return self._typed(("markdown", "codeBlockIndent"), str, "  ")

    # -- shell, sessions, tools ----------------------------------------------------------

    @property
    def shell_path(self) -> str | None:
        value = self._typed(("shellPath",), str, None)
        return expand_tilde(value) if value else None

    @property
    def shell_command_prefix(self) -> str | None:
        return self._typed(("shellCommandPrefix",), str, None) or None

    @property
    def session_dir(self) -> str | None:
        value = self._typed(("sessionDir",), str, None)
        return expand_tilde(value) if value else None

    def builtin_extension_enabled(self, name: str) -> bool:
        """Whether Pi 1.6's built-in extension ``builtin:<name>`` loads: a ``-builtin:<name>`` entry
        in ``extensions`` turns it off, ``+builtin:<name>`` on; the project file's entry wins over
        the user's (the last entry of a file counts)."""
        for layer in (self.project_settings, self.global_settings):
            entries = layer.get("extensions")
            verdict: bool | None = None
            for entry in entries if isinstance(entries, list) else ():
                if entry in (f"+builtin:{name}", f"-builtin:{name}"):
                    verdict = entry.startswith("+")
            if verdict is not None:
                return verdict
        return True

    @property
    def codemode_mode(self) -> Literal["on", "only"]:
        """``codemode.mode``: ``only`` hides the tools scripts can call from the model; anything
        else is ``on`` (Pi 1.6)."""
        return "only" if self.get("codemode", "mode") == "only" else "on"

    @property
    def codemode_inline_budget(self) -> int | float:
        """``codemode.inlineBudget``: estimated tokens the codemode description may spend on
        tool declarations (default 3000; a value that is not a number of zero or more is ignored)."""
        value = self.get("codemode", "inlineBudget")
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            return value
        return 3000

    @property
    def default_tools(self) -> list[str] | None:
        """The tools ``defaultTools`` selects (``+name`` / ``-name`` applied), ``None`` when unset.
        A value that is not a list selects no tools, as in Pi 1.6, and is reported."""
        value = self.get("defaultTools")
        if value is None:
            return None
        if not isinstance(value, list):
            self._report(("defaultTools",), f"defaultTools is not a list ({type(value).__name__}); no tools selected")
        return resolve_default_tools(value)

    # -- startup -------------------------------------------------------------------------

    @property
    def local_model_fallback(self) -> bool:
        """``localModelFallback`` (ours, not Pi's): use the embedded model when nothing else is configured."""
        return self._typed(("localModelFallback",), bool, True)


    @property
    def default_project_trust(self) -> ProjectTrustDefault:
        """Global setting only: a project cannot vote on whether it is trusted."""
        value = self.global_settings.get("defaultProjectTrust")
        return value if value in ("always", "never") else "ask"


def _set_path(data: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    target = data
    for key in keys[:-1]:
        child = target.get(key)
        if not isinstance(child, dict):
            child = {}
            target[key] = child
        target = child
    target[keys[-1]] = value


def _unset_path(data: dict[str, Any], keys: tuple[str, ...]) -> None:
    target: Any = data
    for key in keys[:-1]:
        target = target.get(key) if isinstance(target, dict) else None
    if isinstance(target, dict):
        target.pop(keys[-1], None)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Replace ``path`` atomically with ``data`` as Pi formats it (two-space indent)."""
    import json
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".settings-", suffix=".json")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(json.dumps(data, indent=2, ensure_ascii=False))
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _has_path(data: dict[str, Any], keys: tuple[str, ...]) -> bool:
    value: Any = data
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return False
        value = value[key]
    return True


def _load_scope(scope: Scope, path: Path, issues: list[SettingsIssue]) -> dict[str, Any]:
    try:
        data = read_json_object(path)
    except ConfigFileError as error:
        issues.append(SettingsIssue(scope, path, error.reason))
        return {}
    return _migrate(data) if data is not None else {}
