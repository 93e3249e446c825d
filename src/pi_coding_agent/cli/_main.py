"""Entry point of the ``pi`` console script.

``--version`` and ``--help`` are answered before anything heavy is imported, so they stay
fast; the run modes are loaded only when a run is requested.
"""

from __future__ import annotations

import sys

from pi_coding_agent import PI_COMPAT_VERSION, __version__

HELP = f"""pi - a coding agent that reads, edits and runs code in your project (Pi {PI_COMPAT_VERSION} for Python)

Usage:
  pi [options] [--] [@files...] [messages...]

Options:
  --print, -p          Non-interactive: answer the prompt and exit
  --mode <mode>        Output mode: text (default) or json
  --provider <name>    Provider name
  --model <pattern>    Model id or "provider/id"
  --version, -v        Print the version and exit
  --help, -h           Print this help and exit

Sessions are stored as JSONL under ~/.pi/agent/sessions (set PI_CODING_AGENT_DIR to move it);
they are the same files Pi {PI_COMPAT_VERSION} writes and reads.
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if any(arg in ("--version", "-v") for arg in args):
        print(f"{__version__} (pi {PI_COMPAT_VERSION} compatible)")
        return 0
    if any(arg in ("--help", "-h") for arg in args):
        print(HELP, end="")
        return 0
    print(
        "pi: run modes are not available yet in this build; only --version and --help work",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
