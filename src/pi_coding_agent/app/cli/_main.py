"""Entry point of the ``pi`` console script.

A first word Pi reads as a subcommand runs that command: ``batch`` (``pi_coding_agent.app.batch``,
ours), ``pi auth ...`` (``_auth_command``), the package commands (``pi_coding_agent.customize.packages``),
or a one-line refusal for those not built yet (``_subcommands``);
``--version`` is answered right after parsing (the Pi release followed, a bare version line), and so is ``--help`` when no extension can
be there to add flags to it (else the run loads them first, as Pi does); everything else is
loaded only when a run is requested.
"""

from __future__ import annotations

import os
import sys

from pi_coding_agent import PI_COMPAT_VERSION, __version__
from pi_coding_agent.app.cli._args import parse_args
from pi_coding_agent.app.cli._subcommands import unbuilt_subcommand

PACKAGE_WORDS = frozenset(("install", "remove", "uninstall", "update", "list", "config"))
"""First words that make ``pi`` a package command (``pi_coding_agent.customize.packages``)."""
BATCH_WORD = "batch"
"""``pi batch TASKS.jsonl --out RESULTS.jsonl`` (``pi_coding_agent.app.batch``; not a Pi command)."""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from pi_coding_agent.core.startup_timing import mark

    mark("python main")
    # As Pi's entry does: every process pi starts (the bash tool, ``!`` commands, extensions'
    # children) can tell it runs under a coding agent.
    os.environ["PI_CODING_AGENT"] = "true"
    os.environ["AI_AGENT"] = "pi"
    if args and args[0] == BATCH_WORD:
        from pi_coding_agent.app.batch import batch_main

        return batch_main(args[1:])
    if args and args[0] == "auth":
        from pathlib import Path

        from pi_coding_agent.app.cli._auth_command import run_auth_command
        from pi_coding_agent.core.paths import get_agent_dir

        return run_auth_command(args, Path(get_agent_dir()))
    if args and args[0] == "mcp":
        from pi_coding_agent.app.cli._mcp_command import agent_dir_and_cwd, run_mcp_command

        return run_mcp_command(args[1:], *agent_dir_and_cwd())
    if args and args[0] in PACKAGE_WORDS:
        from pi_coding_agent.customize.packages import run_package_command

        code = run_package_command(args)
        if code is not None:
            return code
    refusal = unbuilt_subcommand(args, os.environ)
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 1
    parsed = parse_args(args)
    for diagnostic in parsed.diagnostics:
        print(diagnostic, file=sys.stderr)
    if any(d.kind == "error" for d in parsed.diagnostics):
        return 1
    if parsed.version:
        # A bare version, as Pi prints: clients compare it with the Pi release they need.
        print(f"{PI_COMPAT_VERSION} (Pi for Python {__version__})" if parsed.verbose else PI_COMPAT_VERSION)
        return 0
    if parsed.help and not _extensions_possible(parsed.extensions, parsed.no_extensions):
        from pi_coding_agent.app.cli._help import help_text

        print(help_text(), end="")
        return 0  # with extensions, the run answers once they loaded (their flags are listed)
    # httpx loads its own command-line client (rich, click, pygments) whenever those happen
    # to be installed; pi never uses it, and it costs more than the rest of the HTTP stack.
    # A None entry makes that optional import fail fast, so httpx keeps its stub instead.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    from pi_coding_agent.app.cli._run import run

    code = run(parsed)
    # The run is over: move everything still alive (a resumed session's decoded entries, say)
    # out of the collector's reach, so interpreter shutdown does not spend a full collection
    # on objects that are about to be freed anyway (~60 ms for a 100,000-entry session).
    import gc

    gc.freeze()
    return code


def _extensions_possible(sources: list[str] | None, no_extensions: bool) -> bool:
    """Whether a run could load an extension: ``-e``, or (without ``-ne``) an extensions
    folder, a project ``.pi`` folder, or user settings naming extensions or packages.
    Only decides whether ``--help`` may skip loading them."""
    if sources:
        return True
    if no_extensions:
        return False
    from pi_coding_agent.core.paths import CONFIG_DIR_NAME, get_agent_dir

    home = get_agent_dir()
    if os.path.isdir(os.path.join(home, "extensions")) or os.path.isdir(CONFIG_DIR_NAME):
        return True
    try:
        with open(os.path.join(home, "settings.json"), encoding="utf-8") as file:
            text = file.read()
    except OSError:
        return False
    return '"extensions"' in text or '"packages"' in text


if __name__ == "__main__":
    sys.exit(main())
