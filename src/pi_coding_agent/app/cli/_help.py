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
    return (
        _TEXT.format(version=PI_COMPAT_VERSION, own=__version__)
        + extension_flags_text(flags)
        + _ENVIRONMENT
        + PROVIDER_VARIABLES
        + _LOCAL_VARIABLES
    )


_TEXT = """pi - a coding agent that reads, edits and runs code in your project
(Pi for Python {own}, file- and protocol-compatible with Pi {version})

Usage:
  pi [options] [--] [@files...] [messages...]

Commands:
  pi install <source> [-l]       Add a package (git:host/user/repo[@ref], pypi:name[==version]
                                 or a folder) to user settings (-l: this project's)
  pi remove <source> [-l]        Remove it (and its files) again; "pi uninstall" is the same
  pi update [source] [--extensions|--models|--all]
                                 Update installed packages, or fetch the gateways' model catalogs
  pi list                        Packages in user and project settings
  pi config [-l] [enable|disable <resource>]
                                 Resources of packages and folders, enabled or not
  pi auth check|print-api-key|print-bearer-token [--provider <name>] [--model <id>]
                                 Whether a provider is ready; print its key or bearer token
  pi batch <tasks.jsonl> --out <results.jsonl>
                                 Every task of the file as its own session (pi batch --help)
  pi <command> --help            Help for one of these

Running:
  -p, --print [message]          Answer once and exit (no terminal needed); prints the final answer
  --mode <text|json|rpc>         text: the answer; json: one JSON event per line; rpc: commands on
                                 stdin and events on stdout, for programs driving pi
  -c, --continue                 Continue the most recent session of this directory
  -r, --resume                   Pick a session to resume from a list
  --session <path|id>            Open a session file, or the session whose id starts with <id>
  --session-id <id>              Use this exact session id (opened if it exists, created otherwise)
  --fork <path|id>               Copy a session into a new one for this directory and continue there
  --session-dir <dir>            Where session files are stored and looked up
  --no-session                   Keep the conversation in memory only
  -n, --name <name>              Give the session a display name
  --export <session.jsonl> [out.html]
                                 Write a session as one self-contained HTML page and exit
  --tui-mode <regular|fullscreen>
                                 How the terminal UI draws: in the scrollback (regular, the
                                 default) or on the whole screen
  --verbose                      List the loaded resources at startup (even with quietStartup)
  --offline                      No network at startup (the same as PI_OFFLINE=1)

Model:
  --provider <name>              Provider (anthropic, openai, google, or one from models.json)
  --model <pattern>              Model id, "provider/id" or a fuzzy pattern; ":<level>" sets thinking
  --models <patterns>            Models Ctrl+P cycles through, comma-separated; globs
                                 (anthropic/*, *sonnet*) and ":<level>" suffixes allowed
  --thinking <level>             off, minimal, low, medium, high, xhigh or max
  --api-key <key>                Key for this run (wins over auth.json and environment variables)
  --list-models [search]         Show the models you have credentials for and exit

Prompt and tools:
  --system-prompt <text|file>    Replace the built-in system prompt
  --append-system-prompt <text|file>
                                 Add to the system prompt (repeatable)
  -nc, --no-context-files        Do not load AGENTS.md / CLAUDE.md files
  -t, --tools <a,b,...>          Enable only these tools (built-in, extension and custom ones; names,
                                 or patterns where * matches anything); a list of only +name/-name
                                 entries adds to or removes from the defaults
  -xt, --exclude-tools <a,b,...> Disable these tools (names or * patterns)
  -nt, --no-tools                Start without any tools
  -nbt, --no-builtin-tools       Start without the built-in tools; extension tools stay
  -a, --approve                  Trust this project's .pi folder for this run
  -na, --no-approve              Ignore this project's .pi folder for this run

Extensions, skills, prompt templates and themes:
  -e, --extension <path>         Load a Python extension (file or folder; repeatable); builtin:<name>
                                 names one of Pi 1.6's built-in extensions (only codemode is here)
  -ne, --no-extensions           Find no extensions (the -e ones still load)
  --no-mcp                       Disable built-in MCP support: no servers connect and no MCP tools
  --skill <path>                 Load a skill (file or folder; repeatable)
  -ns, --no-skills               Load no skills but the --skill ones
  --prompt-template <path>       Load a prompt template (file or folder; repeatable)
  -np, --no-prompt-templates     Load no templates but the --prompt-template ones
  --theme <path>                 Load a theme (file or folder; repeatable)
  --use-theme <name>             The theme for this run (name[/name]: dark/light pair)
  --no-themes                    Load no themes but the built-in ones and the --theme ones

  --                             What follows is messages and @files, never options
  -h, --help                     Show this help
  -v, --version                  Show the Pi release followed ({version}); with --verbose, ours too

Examples:
  pi                                          # the terminal UI
  pi "Explain src/"                           # the terminal UI, starting with a prompt
  pi -p "Find why test_calc.py fails and fix it"
  git diff | pi -p "Review this change"       # piped stdin is part of the prompt
  pi -p @notes.md @screenshot.png "What is missing?"
  pi -p -- "- a prompt that starts with a dash"
  pi -c "And now add a test"                  # continue this directory's last session
  pi --model anthropic/claude-sonnet-4-5:high "Plan the refactor"
  pi --models "sonnet:high,haiku:low"         # Ctrl+P switches between these
  pi --tools read,grep,find,ls -p "Describe the architecture"   # read-only
  pi --mode json -p "..." | jq .type          # every agent event as a JSON line
  pi --export session.jsonl out.html
  pi --provider local -p "..."                # the embedded model, even when keys are set

Built-in tools: read, bash, edit, write (enabled by default), grep, find, ls.

Input: piped stdin, then @file contents, then the first message form the first prompt;
further messages are sent one after another.

Files: settings, credentials (auth.json), models.json and sessions live in ~/.pi/agent
(or $PI_CODING_AGENT_DIR); sessions are JSONL files that Pi {version} reads too.
"""

_ENVIRONMENT = """
Environment variables (a key given with --api-key or stored in auth.json comes first):
"""

_LOCAL_VARIABLES = """  PI_CODING_AGENT_DIR            Where settings, credentials and sessions live (~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR    Where sessions are stored (--session-dir wins)
  PI_OFFLINE                     No network at startup (1, true or yes)
  PI_SHARE_VIEWER_URL            Where /share links point
  PI_LOCAL_MODEL                 The embedded model to use by default (its id)
  PI_LOCAL_CACHE                 Where the embedded model and its runtime are installed
  PI_LOCAL_THREADS               How many threads the embedded model uses
"""

PROVIDER_VARIABLES = """  ANT_LING_API_KEY               Ant Ling
  ANTHROPIC_AUTH_TOKEN           Anthropic
  ANTHROPIC_OAUTH_TOKEN          Anthropic
  ANTHROPIC_API_KEY              Anthropic
  AZURE_OPENAI_API_KEY           Azure
  BASETEN_API_KEY                Baseten
  CEREBRAS_API_KEY               Cerebras
  CLOUDFLARE_API_KEY             Cloudflare AI Gateway, Cloudflare Workers AI
  CLOUDFLARE_ACCOUNT_ID          Cloudflare AI Gateway, Cloudflare Workers AI
  CLOUDFLARE_GATEWAY_ID          Cloudflare AI Gateway
  DEEPSEEK_API_KEY               DeepSeek
  FIREWORKS_API_KEY              Fireworks
  COPILOT_GITHUB_TOKEN           GitHub Copilot
  GEMINI_API_KEY                 Google
  GOOGLE_CLOUD_API_KEY           Google Vertex AI
  GROQ_API_KEY                   Groq
  HF_TOKEN                       Hugging Face
  KIMI_API_KEY                   Kimi For Coding
  META_API_KEY                   Meta
  MINIMAX_API_KEY                MiniMax
  MINIMAX_CN_API_KEY             MiniMax CN
  MISTRAL_API_KEY                Mistral
  MOONSHOT_API_KEY               Moonshot AI, Moonshot AI CN
  NVIDIA_API_KEY                 NVIDIA
  OPENAI_API_KEY                 OpenAI
  OPENCODE_API_KEY               OpenCode Zen, OpenCode Go
  OPENROUTER_API_KEY             OpenRouter
  QWEN_TOKEN_PLAN_TEAM_API_KEY   Qwen Token Plan Team
  QWEN_TOKEN_PLAN_API_KEY        Qwen Token Plan Team, Qwen Token Plan Individual
  QWEN_TOKEN_PLAN_TEAM_CN_API_KEY Qwen Token Plan Team CN
  QWEN_TOKEN_PLAN_CN_API_KEY     Qwen Token Plan Team CN, Qwen Token Plan Individual CN
  QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY Qwen Token Plan Individual
  QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY Qwen Token Plan Individual CN
  RADIUS_API_KEY                 Radius
  TOGETHER_API_KEY               Together
  TYPESAFE_API_KEY               TypeSafe
  AI_GATEWAY_API_KEY             Vercel AI Gateway
  XAI_API_KEY                    xAI
  XIAOMI_API_KEY                 Xiaomi
  XIAOMI_TOKEN_PLAN_AMS_API_KEY  Xiaomi Token Plan AMS
  XIAOMI_TOKEN_PLAN_CN_API_KEY   Xiaomi Token Plan CN
  XIAOMI_TOKEN_PLAN_SGP_API_KEY  Xiaomi Token Plan SGP
  ZAI_API_KEY                    Z.AI
  ZAI_CODING_CN_API_KEY          Z.AI Coding CN
"""
"""The variables built-in providers read keys (or accounts) from, with the providers reading
each (written out so ``--help`` loads no catalog; a test rebuilds it from ``pi_ai``)."""
