"""The startup header: name and version, the main keys (all of them once Ctrl+O expands it)
and the line saying Pi can explain itself; below it the context files, the prompt templates
and skills this session offers as commands, its extensions, and the skill and prompt
and theme conflicts found while loading them, and the custom themes."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.app.interactive._extension_sources import (
    Source,
    extensions_section,
    grouped_lines,
    home_short,
    source_of,
)
from pi_coding_agent.app.interactive._startup_resources import context_label, diagnostic_lines
from pi_coding_agent.core.paths import CONFIG_DIR_NAME
from pi_coding_agent.customize.resources import ResourceDiagnostic

if TYPE_CHECKING:
    from pathlib import Path

    from pi_coding_agent.app.interactive._startup_resources import StartupResources
    from pi_coding_agent.app.interactive._themes import ThemeChoice
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession, SlashCommand
    from pi_tui import Keybindings

_EXPANDED = (
    ("app.interrupt", "to interrupt"), ("app.clear", "to clear"), (None, "twice to exit"),
    ("app.exit", "to exit (empty)"), ("app.suspend", "to suspend"), ("tui.editor.deleteToLineEnd", "to delete to end"),
    ("app.thinking.cycle", "to cycle thinking level"), ("cycle", "to cycle models"),
    ("app.model.select", "to select model"), ("app.tools.expand", "to expand tools"),
    ("app.thinking.toggle", "to expand thinking"), ("app.editor.external", "for external editor"),
    ("/", "for commands"), ("!", "to run bash"), ("!!", "to run bash (no context)"),
    ("app.message.followUp", "to queue follow-up"), ("app.message.dequeue", "to edit all queued messages"),
    ("app.clipboard.pasteImage", "to paste image (with text fallback)"), ("drop files", "to attach"),
)  # fmt: skip


class HeaderHost(Protocol):
    """What the header shows: the version and keys, the session's resources as found at
    startup, the themes."""

    @property
    def version(self) -> str: ...
    @property
    def agent_dir(self) -> Path: ...
    @property
    def session(self) -> AgentSession: ...
    @property
    def startup_resources(self) -> StartupResources: ...
    @property
    def themes(self) -> ThemeChoice: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def keys(self) -> Keybindings: ...


def header_text(host: HeaderHost, expanded: bool) -> str:
    theme, keys = host.theme, host.keys

    def hint(key: str, description: str) -> str:
        return theme.fg("dim", key) + theme.fg("muted", f" {description}")

    logo = theme.bold(theme.fg("accent", "pi")) + theme.fg("dim", f" v{host.version}")
    if not expanded:
        compact = theme.fg("muted", " · ").join(
            (hint(keys.text("app.interrupt"), "interrupt"),
             hint(f"{keys.text('app.clear')}/{keys.text('app.exit')}", "clear/exit"),
             hint("/", "commands"), hint("!", "bash"), hint(keys.text("app.tools.expand"), "more"))
        )  # fmt: skip
        more = theme.fg(
            "dim", f"Press {keys.text('app.tools.expand')} to show full startup help and loaded resources."
        )
        lines = [logo, compact, more, "", _onboarding(host)]
    else:
        lines = [logo]
        for action, description in _EXPANDED:
            if action is None:
                lines.append(hint(f"{keys.text('app.clear')} twice", "to exit"))
            elif action == "cycle":
                lines.append(
                    hint(
                        f"{keys.text('app.model.cycleForward')}/{keys.text('app.model.cycleBackward')}",
                        description,
                    )
                )
            elif "." in action:
                lines.append(hint(keys.text(action), description))
            else:
                lines.append(hint(action, description))
        lines += ["", _onboarding(host)]
    return "\n".join(lines)


def _onboarding(host: HeaderHost) -> str:
    return host.theme.fg(
        "dim", "Pi can explain its own features and look up its docs. Ask it how to use or extend Pi."
    )


def resource_sections(host: HeaderHost, expanded: bool) -> list[str]:
    """``[Context]``, ``[Skills]``, ``[Prompts]`` and ``[Extensions]`` (names; once expanded
    their files, grouped by scope), each drawn on its own below the header (an extension's
    header too), as in Pi."""
    theme, loaded = host.theme, host.startup_resources
    sections: list[str] = []
    if loaded.context_paths:
        heading = theme.fg("mdHeading", "[Context]")
        if expanded:
            body = [theme.fg("dim", f"  {home_short(path)}") for path in loaded.context_paths]
        else:
            body = [
                theme.fg(
                    "dim", "  " + ", ".join(context_label(p, host.session.cwd) for p in loaded.context_paths)
                )
            ]
        sections.append("\n".join([heading, *body]))
    commands = host.session.available_commands()
    for title, source in (("Skills", "skill"), ("Prompts", "prompt")):
        found = [c for c in commands if c.source == source]
        if found:
            sections.append("\n".join([theme.fg("mdHeading", f"[{title}]"), *_listed(host, found, expanded)]))
    listing = extensions_section(host.session.extensions, theme, expanded)
    if listing:
        sections.append("\n".join(listing))
    themes = sorted((t for t in host.themes.themes.values() if t.source), key=lambda t: t.name)
    if themes:
        heading = theme.fg("mdHeading", "[Themes]")
        if expanded:
            body = grouped_lines([t.source or "" for t in themes], _origins(host), theme)
        else:
            body = [theme.fg("dim", "  " + ", ".join(t.name for t in themes))]
        sections.append("\n".join([heading, *body]))
    return sections


def _origins(host: HeaderHost) -> dict[str, Source]:
    """Where each loaded file came from (as Pi, a skipped one has none of its own): a theme
    found in a themes folder, from there."""
    skipped = {c.loser_path for c in host.themes.collisions}
    files = {path: info for path, info in host.startup_resources.origins.items() if path not in skipped}
    folders: dict[str, Source] = {str(host.agent_dir / "themes"): ("auto", "user", None)}
    folders[os.path.join(host.session.cwd, CONFIG_DIR_NAME, "themes")] = ("auto", "project", None)
    themes = {
        t.source: source_of(t.source, {**folders, **files}) for t in host.themes.themes.values() if t.source
    }
    runner = host.session.extensions
    found = {**(runner.sources if runner is not None else {}), **files}
    return {**found, **{path: info for path, info in themes.items() if info is not None}}


def _listed(host: HeaderHost, found: list[SlashCommand], expanded: bool) -> list[str]:
    """Skills by name (files once expanded), templates as ``/name`` (both ways)."""
    theme = host.theme
    names = {c.path: f"/{c.name}" if c.source == "prompt" else c.name.removeprefix("skill:") for c in found}
    if not expanded:
        return [theme.fg("dim", "  " + ", ".join(sorted(names.values())))]
    paths = [path for path in names if path]
    if found[0].source == "prompt":
        return grouped_lines(paths, _origins(host), theme, names.__getitem__, lambda p, _: names[p])
    return grouped_lines(paths, _origins(host), theme)


def conflict_sections(host: HeaderHost, titles: tuple[str, ...]) -> list[str]:
    """``[Skill conflicts]``, ``[Prompt conflicts]`` and ``[Theme conflicts]`` (those of
    ``titles``): shown with ``quietStartup`` too, as in Pi."""
    loaded = host.startup_resources
    themes = [
        ResourceDiagnostic("collision", f'name "{c.name}" collision', c.loser_path, c)
        for c in host.themes.collisions
    ]
    themes += loaded.theme_diagnostics
    found = {"Skill conflicts": loaded.skill_diagnostics, "Prompt conflicts": loaded.prompt_diagnostics,
             "Theme conflicts": themes}  # fmt: skip
    sections = []
    for title in titles:
        if found[title]:
            lines = diagnostic_lines(found[title], _origins(host), host.theme)
            sections.append("\n".join([host.theme.fg("warning", f"[{title}]"), *lines]))
    return sections
