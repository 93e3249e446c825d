"""Pi 0.85's built-in slash commands: the list the editor completes, and which are ready."""

from __future__ import annotations

BUILTIN_COMMANDS: tuple[tuple[str, str], ...] = (
    ("settings", "Theme, message delivery, transport, and other preferences"),
    ("model", "Switch models"),
    ("scoped-models", "Enable/disable models for Ctrl+P cycling"),
    ("export", "Export session to HTML or JSONL"),
    ("import", "Import and resume a session from a JSONL file"),
    ("share", "Upload as private GitHub gist with shareable HTML link"),
    ("copy", "Copy last assistant message to clipboard"),
    ("name", "Set session display name"),
    ("session", "Show session file, ID, messages, tokens, and cost"),
    ("changelog", "Display version history"),
    ("hotkeys", "Show all keyboard shortcuts"),
    ("fork", "Create a new session from a previous user message"),
    ("clone", "Duplicate the current active branch into a new session"),
    ("tree", "Jump to any point in the session and continue from there"),
    ("trust", "Save project trust decision for future sessions"),
    ("login", "Manage OAuth or API-key credentials"),
    ("logout", "Manage OAuth or API-key credentials"),
    ("new", "Start a new session"),
    ("compact", "Manually compact context, optionally with custom instructions"),
    ("resume", "Pick from previous sessions"),
    ("reload", "Reload keybindings, extensions, skills, prompts, themes, and context files"),
    ("thinking", "Switch thinking level"),
    ("quit", "Quit pi"),
)
READY = {"quit", "thinking", "hotkeys"}


def split_command(text: str) -> tuple[str, str] | None:
    """``("name", "args")`` when ``text`` is a built-in slash command, else ``None``."""
    if not text.startswith("/"):
        return None
    name, _, args = text[1:].partition(" ")
    if name in {command for command, _ in BUILTIN_COMMANDS}:
        return name, args.strip()
    return None
