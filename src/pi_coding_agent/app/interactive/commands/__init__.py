"""Pi 0.85's built-in slash commands: which text is one, what completion offers, what each does.

As in Pi, a command without arguments matches only exactly (``/quit now`` is a prompt), one
that takes arguments also as ``/name <args>``. Completion offers, in Pi's order, the
built-ins, the session's prompt templates, the extensions' commands, ``/llama`` (Pi's
built-in llama.cpp extension) and the skills (``/skill:name``, unless ``enableSkillCommands``
is off); a description starts with the command's argument hint and, for the session's
commands, where it comes from (``[u]`` user, ``[p]`` project, ``[t]`` this run). ``/debug``
is hidden, as in Pi. Handlers live by concern: ``_session`` (sessions and the tree),
``_models``, ``_app``, ``_auth`` (sign-in), ``_llama`` (llama.cpp servers), ``_mcp`` (MCP servers), ``_debug``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.core.local_model import LLAMA_COMMAND

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive.commands._app import AppCommandHost
    from pi_coding_agent.app.interactive.commands._auth import AuthCommandHost
    from pi_coding_agent.app.interactive.commands._debug import DebugHost
    from pi_coding_agent.app.interactive.commands._llama import LlamaHost
    from pi_coding_agent.app.interactive.commands._mcp import McpHost
    from pi_coding_agent.app.interactive.commands._models import ModelCommandHost
    from pi_coding_agent.app.interactive.commands._session import SessionCommandHost
    from pi_coding_agent.runtime.agent_session import AgentSession
    from pi_tui import Suggestion

    class CommandHost(
        AppCommandHost, SessionCommandHost, ModelCommandHost, AuthCommandHost, DebugHost, LlamaHost, McpHost, Protocol
    ):
        """What the built-in commands use, all together (each handler module names its own part)."""

BUILTIN_COMMANDS: tuple[tuple[str, str], ...] = (
    ("settings", "Open settings menu"),
    ("model", "Select model (opens selector UI)"),
    ("tree", "Navigate session tree (switch branches)"),
    ("thinking", "Set thinking level"),
    ("scoped-models", "Enable/disable models for Ctrl+P cycling"),
    ("export", "Export session (HTML default, or specify path: .html/.jsonl)"),
    ("import", "Import and resume a session from a JSONL file"),
    ("share", "Share session as a secret GitHub gist"),
    ("copy", "Copy last agent message to clipboard"),
    ("name", "Set session display name"),
    ("session", "Show session info and stats"),
    ("changelog", "Show changelog entries"),
    ("hotkeys", "Show all keyboard shortcuts"),
    ("fork", "Create a new fork from a previous user message"),
    ("clone", "Duplicate the current session at the current position"),
    ("trust", "Save project trust decision for future sessions"),
    ("login", "Configure provider authentication"),
    ("logout", "Remove provider authentication"),
    ("new", "Start a new session"),
    ("compact", "Manually compact the session context"),
    ("resume", "Resume a different session"),
    ("reload", "Reload keybindings, extensions, skills, prompts, themes, and context files"),
    ("quit", "Quit pi"),
)
ARGUMENT_HINTS = {"model": "<provider/model>", "thinking": "<level>", "login": "<provider>"}
"""Pi registers it from a built-in extension, so it is listed after the extensions' commands
and tagged as this run's (``[t]``)."""
HIDDEN_COMMANDS = frozenset({"debug"})
"""Run when typed exactly, never offered."""
TAKES_ARGUMENTS = frozenset({"model", "thinking", "export", "import", "name", "login", "compact", "llama"})
_NAMES = frozenset(name for name, _ in BUILTIN_COMMANDS)
_RUNNABLE = _NAMES | {LLAMA_COMMAND[0]} | HIDDEN_COMMANDS

Handler = Callable[["CommandHost", str], Awaitable[None]]


def split_command(text: str) -> tuple[str, str] | None:
    """``(name, arguments)`` when ``text`` is a built-in command, else ``None``."""
    if not text.startswith("/"):
        return None
    name, space, arguments = text[1:].partition(" ")
    if name not in _RUNNABLE or (space and name not in TAKES_ARGUMENTS):
        return None
    return name, arguments.strip()


def command_list(
    session: AgentSession, skills: bool = True, tag: Callable[[str], str | None] = lambda _path: None
) -> list[tuple[str, str]]:
    """What ``/`` completion offers, as ``(name, description)``: built-ins, prompt templates,
    extension commands, ``/llama``, ``/mcp`` (while MCP is on), then skills; ``tag(path)`` says where a file comes from."""
    builtins = [(name, _described(text, ARGUMENT_HINTS.get(name), None)) for name, text in BUILTIN_COMMANDS]
    found = session.available_commands()

    def listed(source: str) -> list[tuple[str, str]]:
        return [
            (c.name, _described(c.description, c.argument_hint, tag(c.path)))
            for c in found
            if c.source == source and c.name not in _NAMES
        ]

    name, text = LLAMA_COMMAND
    llama = [] if any(c.name == name for c in found) else [(name, f"[t] {text}")]
    if session.builtin_mcp and not any(c.name == "mcp" for c in found):
        from pi_coding_agent.core.mcp.texts import MCP_COMMAND

        llama.append((MCP_COMMAND[0], f"[t] {MCP_COMMAND[1]}"))
    return [*builtins, *listed("prompt"), *listed("extension"), *llama, *(listed("skill") if skills else [])]


def mcp_command(session: AgentSession, text: str) -> tuple[str, str] | None:
    """``("mcp", arguments)`` when ``text`` is ``/mcp`` and the built-in one answers it (MCP is
    on and no extension registered ``/mcp``, which then replaces it, as in Pi 1.6)."""
    from pi_coding_agent.app.interactive.commands._mcp import has_builtin_mcp

    if not (text == "/mcp" or text.startswith("/mcp ")) or not has_builtin_mcp(session):
        return None
    return "mcp", text[len("/mcp") :].strip()


def _described(description: str, hint: str | None, tag: str | None) -> str:
    """Pi's completion text: ``<hint> — [tag] description`` (each part only when present)."""
    tagged = f"[{tag}] {description}" if tag and description else f"[{tag}]" if tag else description
    return f"{hint} — {tagged}" if hint and tagged else hint or tagged


def is_builtin(name: str) -> bool:
    return name in _RUNNABLE


def argument_completions(host: CommandHost, name: str, prefix: str) -> list[Suggestion] | None:
    """What the built-in ``name`` offers after ``/name ``: ``/login`` the providers, ``/model``
    the models, ``/thinking`` the levels; the others nothing."""
    from pi_coding_agent.app.interactive.commands import _auth, _models

    completions = {
        "login": _auth.login_completions,
        "model": _models.model_completions,
        "thinking": _models.thinking_completions,
    }.get(name)
    return completions(host, prefix) if completions is not None else None


def _handlers() -> dict[str, Handler]:
    from pi_coding_agent.app.interactive.commands import _app, _auth, _debug, _llama, _mcp, _models, _session

    return {
        **_session.HANDLERS, **_models.HANDLERS, **_app.HANDLERS, **_auth.HANDLERS,
        **_debug.HANDLERS, **_llama.HANDLERS, **_mcp.HANDLERS,
    }  # fmt: skip


async def run_command(host: CommandHost, name: str, arguments: str) -> None:
    await _handlers()[name](host, arguments)


def startup_changelog(host: CommandHost) -> None:
    """What's new since the version last started (Pi's notice after an update)."""
    from pi_coding_agent.app.interactive.commands import _app

    _app.startup_changelog(host)


__all__ = [
    "ARGUMENT_HINTS",
    "BUILTIN_COMMANDS",
    "TAKES_ARGUMENTS",
    "command_list",
    "mcp_command",
    "run_command",
    "split_command",
    "startup_changelog",
]
