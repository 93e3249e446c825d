"""The startup header: name and version, the main keys (all of them once Ctrl+O expands it),
the prompt templates and skills this session offers as commands, and its extensions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_coding_agent.modes.interactive._extension_sources import extensions_section

if TYPE_CHECKING:
    from pi_coding_agent.modes.interactive._mode import InteractiveMode

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


def header_text(mode: InteractiveMode, expanded: bool) -> str:
    theme, keys = mode.theme, mode.keys

    def hint(key: str, description: str) -> str:
        return theme.fg("dim", key) + theme.fg("muted", f" {description}")

    logo = theme.bold(theme.fg("accent", "pi")) + theme.fg("dim", f" v{mode.version}")
    if not expanded:
        compact = theme.fg("muted", " · ").join(
            (hint(keys.text("app.interrupt"), "interrupt"),
             hint(f"{keys.text('app.clear')}/{keys.text('app.exit')}", "clear/exit"),
             hint("/", "commands"), hint("!", "bash"), hint(keys.text("app.tools.expand"), "more"))
        )  # fmt: skip
        more = theme.fg(
            "dim", f"Press {keys.text('app.tools.expand')} to show full startup help and loaded resources."
        )
        lines = [logo, compact, more]
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
    return "\n".join(lines)


def resource_sections(mode: InteractiveMode, expanded: bool) -> list[str]:
    """``[Skills]``, ``[Prompts]`` and ``[Extensions]`` sections (names; their files when
    expanded), each drawn on its own below the header (an extension's header too), as in Pi."""
    theme = mode.theme
    commands = mode.session.available_commands()
    sections: list[str] = []
    for title, source in (("Skills", "skill"), ("Prompts", "prompt")):
        found = [c for c in commands if c.source == source]
        if not found:
            continue
        lines = [theme.fg("mdHeading", f"[{title}]")]
        if expanded:
            lines += [theme.fg("dim", f"  {c.path}") for c in found]
        else:
            names = sorted(
                f"/{c.name}" if source == "prompt" else c.name.removeprefix("skill:") for c in found
            )
            lines.append(theme.fg("dim", "  " + ", ".join(names)))
        sections.append("\n".join(lines))
    listing = extensions_section(mode.session.extensions, theme, expanded)
    return [*sections, "\n".join(listing)] if listing else sections
