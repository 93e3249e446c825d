"""The text of ``pi --help`` (ours; flags and semantics follow the Pi release ``PI_COMPAT_VERSION``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pi_coding_agent import PI_COMPAT_VERSION, __version__

if TYPE_CHECKING:
    from pi_coding_agent.customize.extensions import FlagDefinition


def extension_flags_text(flags: Sequence[FlagDefinition]) -> str:
    """Pi's ``Extension CLI Flags:`` section: ``--name [<value>]`` in 30 columns, then the
    description (``Registered by <path>`` without one)."""
    if not flags:
        return ""
    rows = [
        f"  --{flag.name}{' <value>' if flag.type == 'string' else ''}".ljust(30)
        + (flag.description or f"Registered by {flag.extension_path}")
        for flag in flags
    ]
    return "\nExtension CLI Flags:\n" + "\n".join(rows) + "\n"


def help_text(flags: Sequence[FlagDefinition] = ()) -> str:
    return _TEXT.format(version=PI_COMPAT_VERSION, own=__version__) + extension_flags_text(flags)


_TEXT = """pi - a coding agent that reads, edits and runs code in your project
(Pi for Python {own}, file- and protocol-compatible with Pi {version})

Usage:
  pi [options] [--] [@files...] [messages...]

Running:
  -p, --print [message]          Answer once and exit (no TTY needed); prints the final answer
  --mode <text|json>             Output of a one-shot run: the answer (text) or one JSON event per line
  --no-session                   Keep the conversation in memory only
  --session <path|id>            Open a session file, or the session whose id starts with <id>
  --session-id <id>              Use this exact session id (opened if it exists, created otherwise)
  -c, --continue                 Continue the most recent session of this directory
  -r, --resume                   Pick a session to resume (interactive; not available yet)
  --fork <path|id>               Copy a session into a new one for this directory and continue there
  --session-dir <dir>            Where session files are stored and looked up
  -n, --name <name>              Give the session a display name

Model:
  --provider <name>              Provider (anthropic, openai, google, or one from models.json)
  --model <pattern>              Model id, "provider/id", a fuzzy pattern; ":<level>" sets thinking
  --thinking <level>             off, minimal, low, medium, high, xhigh or max
  --api-key <key>                Key for this run (wins over auth.json and environment variables)
  --list-models [search]         Show the models you have credentials for and exit

Prompt and tools:
  --system-prompt <text|file>    Replace the built-in system prompt
  --append-system-prompt <text|file>
                                 Add to the system prompt (repeatable)
  -nc, --no-context-files        Do not load AGENTS.md / CLAUDE.md files
  -t, --tools <a,b,...>          Enable only these tools (names, or patterns where * matches anything);
                                 only +name/-name entries add to or remove from the defaults
  -xt, --exclude-tools <a,b,...> Disable these tools (names or * patterns)
  -nt, --no-tools                Start without any tools
  -nbt, --no-builtin-tools       Start without built-in tools (extension tools stay)
  -a, --approve / -na, --no-approve
                                 Trust (or ignore) this project's .pi settings for this run

Extensions:
  -e, --extension <path>         Load an extension (repeatable); builtin:<name> names one of
                                 Pi 1.6's built-in extensions, not implemented here (ignored)
  -ne, --no-extensions           Load no extensions but the -e ones
  --no-mcp                       Accepted for Pi 1.6 compatibility (MCP is not implemented here)

Skills and prompt templates:
  --skill <path>                 Load a skill (file or folder; repeatable)
  -ns, --no-skills               Load no skills but the --skill ones
  --prompt-template <path>       Load a prompt template (file or folder; repeatable)
  -np, --no-prompt-templates     Load no templates but the --prompt-template ones

Packages (bundles of skills, prompt templates, themes and extensions):
  pi install <source> [-l]       git:host/user/repo[@ref], pypi:name[==version], or a folder
  pi remove <source> [-l]        Remove it (and its files) again
  pi update --extensions         Update installed packages
  pi list                        Packages in user and project settings
  pi config [enable|disable <n>] Resources of packages and folders, enabled or not

Many runs:
  pi batch <tasks.jsonl> --out <results.jsonl>
                                 Every task of the file as its own session (pi batch --help)

  -h, --help                     Show this help
  -v, --version                  Show the Pi release followed ({version}); with --verbose, ours too

Built-in tools: read, bash, edit, write (enabled by default), grep, find, ls.

Input: piped stdin, then @file contents, then the first message form the first prompt;
further messages are sent one after another.

Files: settings, credentials (auth.json), models.json and sessions live in ~/.pi/agent
(or $PI_CODING_AGENT_DIR); sessions are JSONL files that Pi {version} reads too.
API keys come from --api-key, auth.json, or variables such as ANTHROPIC_API_KEY,
OPENAI_API_KEY and GEMINI_API_KEY.
"""
