"""Command line parsing with Pi's rules (``pi [options] [--] [@files...] [messages...]``).

Pi's parser is permissive and order-based, not getopt-like, and scripts depend on its
corners, so this follows it rule by rule:

* a value-taking flag at the very end is ignored (it does not swallow anything);
* ``-p/--print`` takes the next argument as a message unless it starts with ``@`` or
  ``-`` (``---...`` is still a message);
* ``--list-models`` takes the next argument as a search unless it starts with ``-``/``@``;
* unknown ``--flags`` are kept (extensions may define them); unknown short flags are errors;
* ``--thinking`` with an invalid level is a warning; ``--mode`` without a valid mode is an error
  (Pi 1.6; 0.85 ignored it);
* ``--tools`` mixing names with ``+name``/``-name`` entries is an error (Pi 1.6);
* ``--`` ends option parsing; later ``@x`` are still files.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing would cost more than parsing
if TYPE_CHECKING:
    from typing import Literal

    Mode = Literal["text", "json", "rpc"]
    DiagnosticKind = Literal["error", "warning"]

# Plain classes, not dataclasses: this module is on the path of ``pi --version`` and
# ``pi --help``, which should not pay for importing ``dataclasses`` (and ``inspect``, ``ast``...).


class Diagnostic:
    __slots__ = ("kind", "message")

    def __init__(self, kind: DiagnosticKind, message: str) -> None:
        self.kind: DiagnosticKind = kind
        self.message = message

    def __str__(self) -> str:
        return f"{'Error' if self.kind == 'error' else 'Warning'}: {self.message}"


class Args:
    """Everything the command line said; ``None``/``False`` for what it did not say."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.file_args: list[str] = []
        self.unknown_flags: dict[str, str | bool] = {}
        self.diagnostics: list[Diagnostic] = []
        self.help = False
        self.version = False
        self.mode: Mode | None = None
        self.print = False
        self.continue_session = False
        self.resume = False
        self.provider: str | None = None
        self.model: str | None = None
        self.api_key: str | None = None
        self.system_prompt: str | None = None
        self.append_system_prompt: list[str] | None = None
        self.name: str | None = None
        self.no_session = False
        self.session: str | None = None
        self.session_id: str | None = None
        self.fork: str | None = None
        self.session_dir: str | None = None
        self.models: list[str] | None = None
        self.no_tools = False
        self.no_builtin_tools = False
        self.tools: list[str] | None = None
        self.exclude_tools: list[str] | None = None
        self.thinking: str | None = None
        self.export: str | None = None
        self.extensions: list[str] | None = None
        self.no_extensions = False
        self.no_mcp = False
        """``--no-mcp``: no MCP servers connect and there are no MCP tools in this run."""
        self.skills: list[str] | None = None
        self.prompt_templates: list[str] | None = None
        self.themes: list[str] | None = None
        self.use_theme: str | None = None
        self.no_skills = False
        self.no_prompt_templates = False
        self.no_themes = False
        self.no_context_files = False
        self.list_models: str | bool | None = None
        self.tui_mode: str | None = None
        self.verbose = False
        self.project_trust_override: bool | None = None
        self.offline = False
        self.argv: list[str] = []
        """The arguments as given (parsed again once extensions registered their flags)."""


def _split_names(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


_VALUE_FLAGS = {
    "--provider": "provider",
    "--model": "model",
    "--api-key": "api_key",
    "--system-prompt": "system_prompt",
    "--session": "session",
    "--session-id": "session_id",
    "--fork": "fork",
    "--session-dir": "session_dir",
    "--export": "export",
}
_LIST_FLAGS = {
    "--append-system-prompt": "append_system_prompt",
    "--extension": "extensions",
    "-e": "extensions",
    "--skill": "skills",
    "--prompt-template": "prompt_templates",
    "--theme": "themes",
}
_SWITCHES = {
    "--help": "help",
    "-h": "help",
    "--version": "version",
    "-v": "version",
    "--continue": "continue_session",
    "-c": "continue_session",
    "--resume": "resume",
    "-r": "resume",
    "--no-session": "no_session",
    "--no-tools": "no_tools",
    "-nt": "no_tools",
    "--no-builtin-tools": "no_builtin_tools",
    "-nbt": "no_builtin_tools",
    "--no-extensions": "no_extensions",
    "-ne": "no_extensions",
    "--no-mcp": "no_mcp",
    "--no-skills": "no_skills",
    "-ns": "no_skills",
    "--no-prompt-templates": "no_prompt_templates",
    "-np": "no_prompt_templates",
    "--no-themes": "no_themes",
    "--no-context-files": "no_context_files",
    "-nc": "no_context_files",
    "--verbose": "verbose",
    "--offline": "offline",
}


def parse_args(args: list[str], boolean_flags: frozenset[str] = frozenset()) -> Args:
    """``boolean_flags``: extension flags that take no value (known once extensions loaded)."""
    result = Args()
    result.argv = list(args)
    i = 0
    count = len(args)
    while i < count:
        arg = args[i]
        has_next = i + 1 < count
        if arg == "--":
            for positional in args[i + 1 :]:
                if positional.startswith("@"):
                    result.file_args.append(positional[1:])
                else:
                    result.messages.append(positional)
            break
        if arg in _SWITCHES:
            setattr(result, _SWITCHES[arg], True)
        elif arg == "--mode":
            mode = args[i + 1] if has_next else None
            if mode is None or mode.startswith("-"):
                result.diagnostics.append(Diagnostic("error", "--mode requires text, json, or rpc"))
            elif mode in ("text", "json", "rpc"):
                i += 1
                result.mode = mode  # type: ignore[assignment]
            else:
                i += 1
                result.diagnostics.append(
                    Diagnostic("error", f'Invalid mode "{mode}". Valid values: text, json, rpc')
                )
        elif arg in _VALUE_FLAGS and has_next:
            i += 1
            setattr(result, _VALUE_FLAGS[arg], args[i])
        elif arg in _LIST_FLAGS and has_next:
            i += 1
            attribute = _LIST_FLAGS[arg]
            values: list[str] | None = getattr(result, attribute)
            if values is None:
                values = []
                setattr(result, attribute, values)
            values.append(args[i])
        elif arg in ("--name", "-n"):
            if has_next:
                i += 1
                result.name = args[i]
            else:
                result.diagnostics.append(Diagnostic("error", "--name requires a value"))
        elif arg == "--models" and has_next:
            i += 1
            result.models = _split_names(args[i])
        elif arg in ("--tools", "-t") and has_next:
            i += 1
            tools = _split_names(args[i])
            from pi_coding_agent.core.settings import tool_list_error  # only for --tools (see --thinking)

            problem = tool_list_error(tools)
            if problem is None:
                result.tools = tools
            else:
                result.diagnostics.append(Diagnostic("error", f"{arg}: {problem}"))
        elif arg in ("--exclude-tools", "-xt") and has_next:
            i += 1
            result.exclude_tools = _split_names(args[i])
        elif arg == "--thinking" and has_next:
            i += 1
            level = args[i]
            from pi_ai import THINKING_LEVELS  # only for --thinking: keeps --help/--version light

            if level in THINKING_LEVELS:
                result.thinking = level
            else:
                result.diagnostics.append(
                    Diagnostic(
                        "warning",
                        f'Invalid thinking level "{level}". Valid values: {", ".join(THINKING_LEVELS)}',
                    )
                )
        elif arg in ("--print", "-p"):
            result.print = True
            following = args[i + 1] if has_next else None
            if (
                following is not None
                and not following.startswith("@")
                and (not following.startswith("-") or following.startswith("---"))
            ):
                result.messages.append(following)
                i += 1
        elif arg == "--use-theme":
            theme = args[i + 1] if has_next else None
            if theme is None or theme.startswith("-"):
                result.diagnostics.append(Diagnostic("error", "--use-theme requires a theme name"))
            else:
                result.use_theme = theme
                i += 1
        elif arg == "--list-models":
            if has_next and not args[i + 1].startswith("-") and not args[i + 1].startswith("@"):
                i += 1
                result.list_models = args[i]
            else:
                result.list_models = True
        elif arg == "--tui-mode":
            tui_mode = args[i + 1] if has_next else None
            if tui_mode in ("regular", "fullscreen"):
                result.tui_mode = tui_mode
                i += 1
            elif tui_mode is None or tui_mode.startswith("-"):
                result.diagnostics.append(Diagnostic("error", "--tui-mode requires regular or fullscreen"))
            else:
                i += 1
                result.diagnostics.append(
                    Diagnostic("error", f'Invalid TUI mode "{tui_mode}". Valid values: regular, fullscreen')
                )
        elif arg in ("--approve", "-a"):
            result.project_trust_override = True
        elif arg in ("--no-approve", "-na"):
            result.project_trust_override = False
        elif arg.startswith("@"):
            result.file_args.append(arg[1:])
        elif arg.startswith("--"):
            if "=" in arg:
                key, _, value = arg[2:].partition("=")
                result.unknown_flags[key] = value
            else:
                following = args[i + 1] if has_next and arg[2:] not in boolean_flags else None
                if following is not None and not following.startswith("-") and not following.startswith("@"):
                    result.unknown_flags[arg[2:]] = following
                    i += 1
                else:
                    result.unknown_flags[arg[2:]] = True
        elif arg.startswith("-"):
            result.diagnostics.append(Diagnostic("error", f"Unknown option: {arg}"))
        else:
            result.messages.append(arg)
        i += 1
    return result
