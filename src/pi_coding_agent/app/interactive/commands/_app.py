"""Application commands: ``/settings``, ``/trust``, ``/reload``, ``/hotkeys``, ``/changelog``,
``/quit``."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pi_coding_agent.app.interactive._screen_settings import apply_fullscreen_settings, apply_image_settings
from pi_coding_agent.app.interactive.components import image_protocol
from pi_coding_agent.app.interactive.selectors import (
    HTTP_IDLE_TIMEOUTS,
    TRUST_LABELS,
    ModelThinkingMenu,
    SettingsSelector,
    ThinkingModel,
    TrustSelector,
    overrides_summary,
)
from pi_coding_agent.core.settings import (
    DEFAULT_THINKING_LEVEL,
    ConfigFileError,
    TrustChoice,
    needs_project_trust,
    save_trust_decisions,
    stored_trust_decision,
    stored_trust_entry,
)
from pi_tui import DynamicBorder, Markdown, Spacer, Text, read_keybindings_file

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._layout import Layout
    from pi_coding_agent.app.interactive._terminal_theme import TerminalTheme
    from pi_coding_agent.app.interactive._themes import ThemeChoice
    from pi_coding_agent.app.interactive._transcript import Transcript
    from pi_coding_agent.app.interactive._ui import InteractiveUI
    from pi_coding_agent.app.interactive.components import Footer
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession, AgentSessionRuntime
    from pi_tui import TUI, Editor, Keybindings, MarkdownTheme


class ShortcutRows(Protocol):
    """The extensions' shortcuts, for ``/hotkeys``."""

    def shortcut_rows(self) -> list[tuple[str, str]]: ...


class SettingsHost(Protocol):
    """What ``/settings`` reads and changes besides the settings file: the session's modes,
    the transcript's style, the TUI's mode and cursor, the editor's sizes, the theme."""

    @property
    def session(self) -> AgentSession: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def tui(self) -> TUI: ...
    @property
    def footer(self) -> Footer: ...
    @property
    def themes(self) -> ThemeChoice: ...
    @property
    def terminal_theme(self) -> TerminalTheme: ...
    @property
    def default_editor(self) -> Editor: ...
    @property
    def ui(self) -> InteractiveUI: ...
    def int_setting(self, key: str, default: int, low: int, high: int) -> int: ...
    def apply_theme(self, name: str | None = None) -> None: ...
    def render_session(self) -> None: ...


class AppCommandHost(SettingsHost, Protocol):
    """What the other application commands use: the reload of everything, the cards drawn
    into the chat, the keys listed by ``/hotkeys``, quitting."""

    @property
    def runtime(self) -> AgentSessionRuntime: ...
    @property
    def agent_dir(self) -> Path: ...
    @property
    def version(self) -> str: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def md_theme(self) -> MarkdownTheme: ...
    @property
    def keys(self) -> Keybindings: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def extensions(self) -> ShortcutRows: ...
    @property
    def reload_resources(self) -> Callable[[], list[str]] | None: ...
    trust_on_reload: str | None  # the folder /reload saves trust for, until it has a decision
    themes: ThemeChoice  # read anew by /reload
    def load_themes(self) -> ThemeChoice: ...
    def rebind(self) -> None: ...
    def shutdown(self, code: int = 0) -> None: ...

CHANGELOG = Path(__file__).resolve().parents[1] / "CHANGELOG.md"
RELOADED = "Reloaded keybindings, extensions, skills, prompts, themes, and context files"


def _setting_values(host: SettingsHost) -> dict[str, str]:
    session = host.session
    get = session.settings.get

    def flag(value: object, default: bool) -> str:
        return "true" if (value if isinstance(value, bool) else default) else "false"

    trust = get("defaultProjectTrust")
    return {
        "autocompact": flag(session.auto_compaction_enabled, True),
        "steering-mode": session.steering_mode,
        "follow-up-mode": session.follow_up_mode,
        "transport": session.settings.transport,
        "hide-thinking": flag(host.transcript.style.hide_thinking, False),
        "quiet-startup": "header" if get("quietStartup") == "header" else flag(get("quietStartup"), False),
        "http-idle-timeout": _idle_timeout_label(session.settings.http_idle_timeout_ms),
        "collapse-changelog": flag(get("collapseChangelog"), False),
        "install-telemetry": flag(get("enableInstallTelemetry"), True),
        "fullscreen-scrollbar": session.settings.fullscreen_scrollbar,
        "fullscreen-copy-on-select": flag(session.settings.fullscreen_copy_on_select, True),
        "fullscreen-wheel-scroll-lines": str(session.settings.fullscreen_wheel_scroll_lines),
        "image-width-cells": str(session.settings.image_width_cells),
        "terminal-progress": flag(session.settings.show_terminal_progress, False),
        "clear-on-shrink": flag(session.settings.clear_on_shrink, False),
        "mermaid-rendering": session.settings.mermaid_mode,
        "cache-miss-notices": flag(session.settings.show_cache_miss_notices, False),
        "anthropic-extra-usage": flag(session.settings.anthropic_extra_usage_warning, True),
        "default-project-trust": TRUST_LABELS.get(trust if isinstance(trust, str) else "ask", "Ask"),
        "double-escape-action": str(get("doubleEscapeAction") or "tree"),
        "tree-filter-mode": str(get("treeFilterMode") or "default"),
        "tui-mode": host.tui.mode,
        "fullscreen-exit-output": str(get("fullscreenExitOutput") or "transcript"),
        "theme": host.themes.requested or host.themes.resolve(),
        "show-images": flag(get("terminal", "showImages"), True),
        "auto-resize-images": flag(get("images", "autoResize"), True),
        "block-images": flag(get("images", "blockImages"), False),
        "skill-commands": flag(get("enableSkillCommands"), True),
        "show-hardware-cursor": flag(get("showHardwareCursor"), False),
        "editor-padding": str(host.int_setting("editorPaddingX", 0, 0, 3)),
        "output-padding": str(host.transcript.style.output_pad),
        "autocomplete-max-visible": str(host.int_setting("autocompleteMaxVisible", 5, 3, 20)),
        "model-thinking": overrides_summary(_thinking_overrides(session.settings.get("modelThinkingLevels"))),
    }


def _thinking_overrides(stored: object) -> dict[str, str]:
    """``modelThinkingLevels`` as ``{"provider/id": level}``, entries that are no level left out."""
    return {k: v for k, v in stored.items() if isinstance(v, str)} if isinstance(stored, dict) else {}


def _idle_timeout_label(milliseconds: int) -> str:
    """Pi's label for an idle timeout: a choice's name, else ``N sec``."""
    names = {value: label for label, value in HTTP_IDLE_TIMEOUTS.items()}
    return names.get(milliseconds, f"{milliseconds / 1000:g} sec")


_STORED: dict[str, tuple[tuple[str, ...], Callable[[str], Any]]] = {
    "quiet-startup": (("quietStartup",), lambda v: "header" if v == "header" else v == "true"),
    "http-idle-timeout": (("httpIdleTimeoutMs",), lambda v: HTTP_IDLE_TIMEOUTS[v]),
    "collapse-changelog": (("collapseChangelog",), lambda v: v == "true"),
    "install-telemetry": (("enableInstallTelemetry",), lambda v: v == "true"),
    "image-width-cells": (("terminal", "imageWidthCells"), int),
    "terminal-progress": (("terminal", "showTerminalProgress"), lambda v: v == "true"),
    "mermaid-rendering": (("markdown", "mermaid"), str),
    "cache-miss-notices": (("showCacheMissNotices",), lambda v: v == "true"),
    "anthropic-extra-usage": (("warnings", "anthropicExtraUsage"), lambda v: v == "true"),
    "double-escape-action": (("doubleEscapeAction",), str),
    "tree-filter-mode": (("treeFilterMode",), str),
    "fullscreen-exit-output": (("fullscreenExitOutput",), str),
    "show-images": (("terminal", "showImages"), lambda v: v == "true"),
    "auto-resize-images": (("images", "autoResize"), lambda v: v == "true"),
    "block-images": (("images", "blockImages"), lambda v: v == "true"),
    "skill-commands": (("enableSkillCommands",), lambda v: v == "true"),
    "default-project-trust": (("defaultProjectTrust",), lambda v: {b: a for a, b in TRUST_LABELS.items()}[v]),
}


_FULLSCREEN = {
    "fullscreen-scrollbar": "fullscreenScrollbar",
    "fullscreen-copy-on-select": "fullscreenCopyOnSelect",
    "fullscreen-wheel-scroll-lines": "fullscreenWheelScrollLines",
}


def _apply_setting(host: SettingsHost, key: str, value: str) -> None:
    session = host.session
    settings = session.settings
    if key in _STORED:
        keys, convert = _STORED[key]
        settings.set_global(keys, convert(value))
        if key == "image-width-cells":
            apply_image_settings(settings)
        if key == "show-images":
            host.transcript.style.show_images = value == "true"
        if key in ("image-width-cells", "cache-miss-notices", "mermaid-rendering", "show-images"):
            host.render_session()
    elif key in _FULLSCREEN:
        stored: object = value == "true" if key == "fullscreen-copy-on-select" else value
        settings.set_global((_FULLSCREEN[key],), int(value) if value.isdigit() else stored)
        apply_fullscreen_settings(host.tui, settings)
    elif key == "autocompact":
        session.set_auto_compaction_enabled(value == "true")
        host.footer.auto_compact = value == "true"
        host.footer.invalidate()
    elif key == "steering-mode":
        session.set_steering_mode("all" if value == "all" else "one-at-a-time")
    elif key == "follow-up-mode":
        session.set_follow_up_mode("all" if value == "all" else "one-at-a-time")
    elif key == "transport":
        settings.set_global(("transport",), value)
    elif key == "hide-thinking":
        host.transcript.set_hide_thinking(value == "true")
        settings.set_global(("hideThinkingBlock",), value == "true")
    elif key == "tui-mode":
        settings.set_global(("tuiMode",), value)
        host.tui.set_mode("fullscreen" if value == "fullscreen" else "regular")
        host.transcript.status(f"TUI mode: {value}")
    elif key == "theme":
        settings.set_global(("theme",), value)
        host.themes.requested = value
        host.apply_theme()
        host.terminal_theme.detect()  # a pair asks the terminal again and follows it, as in Pi
    elif key == "clear-on-shrink":
        settings.set_global(("terminal", "clearOnShrink"), value == "true")
        host.tui.renderer.clear_on_shrink = value == "true"
    elif key == "show-hardware-cursor":
        settings.set_global(("showHardwareCursor",), value == "true")
        host.tui.set_show_hardware_cursor(value == "true")
    elif key in ("editor-padding", "autocomplete-max-visible"):
        number = int(value)
        settings.set_global(
            ("editorPaddingX" if key == "editor-padding" else "autocompleteMaxVisible",), number
        )
        attribute = "padding_x" if key == "editor-padding" else "max_visible_items"
        setattr(host.default_editor, attribute, number)
    elif key == "output-padding":
        settings.set_global(("outputPad",), int(value))
        host.transcript.style.output_pad = int(value)
        host.render_session()


async def settings(host: SettingsHost, _: str) -> None:
    def change(key: str, value: str) -> None:
        _apply_setting(host, key, value)

    images = image_protocol() is not None

    def build(done: Callable[[], None]) -> SettingsSelector:
        return SettingsSelector(
            host.ui.context(), _setting_values(host), host.themes.names(), change, done, images=images,
            model_thinking=lambda _current, back: _model_thinking_menu(host, back),
        )  # fmt: skip

    host.ui.open(build)


def _model_thinking_menu(host: SettingsHost, done: Callable[[str | None], None]) -> ModelThinkingMenu:
    """Pi's per-model thinking levels: the available models, the session's and the default
    one first; a change is saved at once and, for the session's model, applied to it."""
    from pi_ai import get_supported_thinking_levels

    session = host.session
    settings = session.settings
    models = [ThinkingModel(m.provider, m.id, tuple(get_supported_thinking_levels(m)) if m.reasoning else ("off",))
              for m in session.available_models()]  # fmt: skip
    overrides = _thinking_overrides(settings.get("modelThinkingLevels"))
    first = [f"{m.provider}/{m.id}" for m in (session.model,) if m is not None]
    if settings.default_provider and settings.default_model:
        first.append(f"{settings.default_provider}/{settings.default_model}")
    global_default = settings.default_thinking_level or DEFAULT_THINKING_LEVEL

    def changed(model: ThinkingModel, level: str | None) -> None:
        if level is None:
            settings.unset_global(("modelThinkingLevels", model.key))
        else:
            settings.set_global(("modelThinkingLevels", model.key), level)
        current = session.model
        if current is not None and (current.provider, current.id) == (model.provider, model.id):
            session.set_thinking_level(level or global_default)
            host.footer.invalidate()

    return ModelThinkingMenu(
        host.ui.context(), models, overrides, first=first, global_default=global_default, on_change=changed, done=done
    )


async def trust(host: AppCommandHost, _: str) -> None:
    cwd = host.session.session_manager.get_cwd()
    try:
        saved = stored_trust_entry(host.agent_dir, cwd)
    except ConfigFileError as error:
        host.transcript.error(str(error))
        return

    def build(done: Callable[[], None]) -> TrustSelector:
        def chosen(option: TrustChoice) -> None:
            try:
                save_trust_decisions(host.agent_dir, option.updates)
            except (OSError, ConfigFileError) as error:
                host.transcript.error(str(error))
            else:
                decision = "trusted" if option.trusted else "untrusted"
                host.transcript.status(f"Saved trust decision: {decision}. Restart pi for this to take effect.")
            done()

        trusted_now = host.session.settings.project_trusted
        return TrustSelector(host.ui.context(), cwd, saved, trusted_now, on_select=chosen, on_cancel=done)

    host.ui.open(build)


async def reload(host: AppCommandHost, _: str) -> None:
    session = host.session
    if session.is_streaming:
        host.transcript.warning("Wait for the current response to finish before reloading.")
        return
    if session.is_compacting:
        host.transcript.warning("Wait for compaction to finish before reloading.")
        return
    theme = host.theme
    box = [DynamicBorder(lambda s: theme.fg("border", s)), Spacer(1),
           Text(theme.fg("muted", f"{RELOADED.replace('Reloaded', 'Reloading')}..."), 1, 0), Spacer(1),
           DynamicBorder(lambda s: theme.fg("border", s))]  # fmt: skip
    done = host.ui.show_selector(_Stack(box))
    host.tui.request_render(force=True)  # the box on a cleared screen, as Pi shows it
    host.tui.render_now()
    try:
        user, problem = read_keybindings_file(host.agent_dir / "keybindings.json")
        host.keys.set_user_bindings(user)
        warnings = host.reload_resources() if host.reload_resources is not None else []
        await host.runtime.reload()
        host.themes = host.load_themes()
        done()
        host.rebind()
        host.apply_theme()
        host.terminal_theme.detect()
    except Exception as error:
        done()
        host.transcript.error(f"Reload failed: {error}")
        return
    for warning in [*([problem] if problem else []), *warnings, *host.themes.problems]:
        host.transcript.warning(warning)
    host.transcript.status(f"{RELOADED}; saved project trust" if _save_trust_after_reload(host) else RELOADED)


def _save_trust_after_reload(host: AppCommandHost) -> bool:
    """Pi's implicit trust: a folder that needed no trust decision at start, and so was
    trusted, gets ``.pi`` resources during the run; ``/reload`` loads them and saves the folder
    as trusted in ``trust.json``, once (not when a decision is saved for it or above it)."""
    cwd = host.session.session_manager.get_cwd()
    if host.trust_on_reload != cwd or not host.session.settings.project_trusted or not needs_project_trust(cwd):
        return False
    try:
        saved = stored_trust_decision(host.agent_dir, cwd) is None
        if saved:
            save_trust_decisions(host.agent_dir, [(cwd, True)])
    except (ConfigFileError, OSError) as error:
        host.transcript.warning(f"Could not save project trust after reload: {error}")
        return False
    host.trust_on_reload = None
    return saved


class _Stack:
    def __init__(self, children: list[Any]) -> None:
        self.children = children

    def render(self, width: int) -> list[str]:
        return [line for child in self.children for line in child.render(width)]

    def invalidate(self) -> None:
        return


def _hotkeys_markdown(host: AppCommandHost) -> str:
    k = host.keys.display

    def table(title: str, rows: list[tuple[str, str]]) -> str:
        body = "\n".join(f"| `{keys}` | {action} |" for keys, action in rows)
        return f"**{title}**\n| Key | Action |\n|-----|--------|\n{body}"

    e = "tui.editor."
    navigation = [
        (f"{k(e + 'cursorUp')}` / `{k(e + 'cursorDown')}` / `{k(e + 'cursorLeft')}` / `{k(e + 'cursorRight')}",
         "Move cursor / browse history"),
        (f"{k(e + 'cursorWordLeft')}` / `{k(e + 'cursorWordRight')}", "Move by word"),
        (k(e + "cursorLineStart"), "Start of line"), (k(e + "cursorLineEnd"), "End of line"),
        (k(e + "jumpForward"), "Jump forward to character"), (k(e + "jumpBackward"), "Jump backward to character"),
        (f"{k(e + 'pageUp')}` / `{k(e + 'pageDown')}", "Scroll by page"),
    ]  # fmt: skip
    editing = [
        (k("tui.input.submit"), "Send message"), (k("tui.input.newLine"), "New line"),
        (k(e + "deleteWordBackward"), "Delete word backwards"), (k(e + "deleteWordForward"), "Delete word forwards"),
        (k(e + "deleteToLineStart"), "Delete to start of line"), (k(e + "deleteToLineEnd"), "Delete to end of line"),
        (k(e + "yank"), "Paste the most-recently-deleted text"), (k(e + "yankPop"), "Cycle through the deleted text after pasting"),
        (k(e + "undo"), "Undo"),
    ]  # fmt: skip
    other = [
        (k("tui.input.tab"), "Path completion / accept autocomplete"), (k("app.interrupt"), "Cancel autocomplete / abort streaming"),
        (k("app.clear"), "Clear editor (first) / exit (second)"), (k("app.exit"), "Exit (when editor is empty)"),
        (k("app.suspend"), "Suspend to background"), (k("app.thinking.cycle"), "Cycle thinking level"),
        (f"{k('app.model.cycleForward')}` / `{k('app.model.cycleBackward')}", "Cycle models"),
        (k("app.model.select"), "Open model selector"), (k("app.tools.expand"), "Toggle tool output expansion"),
        (k("app.thinking.toggle"), "Toggle thinking block visibility"), (k("app.editor.external"), "Edit message in external editor"),
        (k("app.message.copy"), "Copy last assistant message"), (k("app.message.followUp"), "Queue follow-up message"),
        (k("app.message.dequeue"), "Restore queued messages"), (k("app.clipboard.pasteImage"), "Paste image or text from clipboard"),
        ("/", "Slash commands"), ("!", "Run bash command"), ("!!", "Run bash command (excluded from context)"),
    ]  # fmt: skip
    tables = [table("Navigation", navigation), table("Editing", editing), table("Other", other)]
    extension_keys = host.extensions.shortcut_rows()
    if extension_keys:
        tables.append(table("Extensions", extension_keys))
    return "\n\n".join(tables)


def _card(host: AppCommandHost, title: str, markdown: str) -> None:
    theme = host.theme

    def border() -> DynamicBorder:
        return DynamicBorder(lambda s: theme.fg("border", s))

    for child in (Spacer(1), border(), Text(theme.bold(theme.fg("accent", title)), 1, 0), Spacer(1),
                  Markdown(markdown, 1, 1, host.md_theme), border()):  # fmt: skip
        host.transcript.add(child)


async def hotkeys(host: AppCommandHost, _: str) -> None:
    _card(host, "Keyboard Shortcuts", _hotkeys_markdown(host))


def changelog_entries() -> list[tuple[tuple[int, int, int], str]]:
    """``(version, markdown)`` of each ``## x.y.z`` (or ``## [x.y.z]``) section, newest first as
    written; a ``##`` heading without a version ends the section before it (Pi's parsing)."""
    try:
        lines = CHANGELOG.read_text(encoding="utf-8").split("\n")
    except OSError:
        return []
    entries: list[tuple[tuple[int, int, int], str]] = []
    version: tuple[int, int, int] | None = None
    body: list[str] = []
    for line in [*lines, "## end"]:
        if not line.startswith("## "):
            if version is not None:
                body.append(line)
            continue
        if version is not None and body:
            entries.append((version, "\n".join(body).strip()))
        found = re.match(r"##\s+\[?(\d+)\.(\d+)\.(\d+)\]?", line)
        version = (int(found[1]), int(found[2]), int(found[3])) if found else None
        body = [line] if found else []
    return entries


async def changelog(host: AppCommandHost, _: str) -> None:
    entries = changelog_entries()
    body = "\n\n".join(text for _, text in reversed(entries)) or "No changelog entries found."
    _card(host, "What's New", body)


def startup_changelog(host: AppCommandHost) -> None:
    """Pi's notice after an update: the entries newer than ``lastChangelogVersion`` (all of
    them condensed to one line with ``collapseChangelog``), then the version is recorded. A
    first run only records it; a resumed session shows nothing."""
    if host.session.messages:
        return
    settings = host.session.settings
    last = settings.get("lastChangelogVersion")
    if not isinstance(last, str):
        settings.set_global(("lastChangelogVersion",), host.version)
        return
    found = re.match(r"^(\d+)\.(\d+)\.(\d+)", last)
    seen = (int(found[1]), int(found[2]), int(found[3])) if found else (0, 0, 0)
    new = [(version, text) for version, text in changelog_entries() if version > seen]
    if not new:
        return
    settings.set_global(("lastChangelogVersion",), host.version)
    theme = host.theme
    children: list[Any] = [Spacer(1)] if host.layout.chat.children else []
    children.append(DynamicBorder(lambda s: theme.fg("border", s)))
    if settings.get("collapseChangelog") is True:
        latest = ".".join(map(str, new[0][0]))
        children.append(Text(f"Updated to v{latest}. Use {theme.bold('/changelog')} to view full changelog.", 1, 0))
    else:
        children += [Text(theme.bold(theme.fg("accent", "What's New")), 1, 0), Spacer(1),
                     Markdown("\n\n".join(text for _, text in new), 1, 0, host.md_theme), Spacer(1)]  # fmt: skip
    for child in [*children, DynamicBorder(lambda s: theme.fg("border", s))]:
        host.transcript.add(child)


async def quit_pi(host: AppCommandHost, _: str) -> None:
    host.shutdown(0)


HANDLERS = {
    "settings": settings, "trust": trust, "reload": reload, "hotkeys": hotkeys, "changelog": changelog,
    "quit": quit_pi,
}  # fmt: skip
