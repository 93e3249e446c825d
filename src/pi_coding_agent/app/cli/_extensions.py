"""Loading the run's extensions, and reading their flags from the command line.

Extensions are imported once, inside the event loop the run then keeps using (``run_async``),
so what their ``setup`` creates belongs to the loop their handlers run in. A flag an
extension registers is an option of this run: ``--plan`` (boolean) takes no value,
``--name VALUE`` (string) does; options nobody registered are still errors.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pi_coding_agent.app.cli._problems import problem_line

if TYPE_CHECKING:
    from pi_coding_agent.app.cli._args import Args
    from pi_coding_agent.customize.extensions import ExtensionError, ExtensionRunner

T = TypeVar("T")
_LOOP: list[asyncio.Runner] = []


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on the run's one event loop (created on first use)."""
    if not _LOOP:
        _LOOP.append(asyncio.Runner())
    return _LOOP[0].run(coroutine)


def close_loop() -> None:
    if _LOOP:
        _LOOP.pop().close()


LOAD_FAILURE_HINT = 'Hint: Start without extensions using "pi -ne".'


def refuse_failed_extensions(errors: Sequence[ExtensionError]) -> None:
    """Pi 0.85 does not start when an extension failed to load: one ``Error:`` line each,
    then the hint, exit status 1."""
    if not errors:
        return
    for error in errors:
        problem_line(f'Error: Failed to load extension "{error.extension_path}": {error.error}')
    print(LOAD_FAILURE_HINT, file=sys.stderr)
    raise SystemExit(1)


def load_cli_extensions(
    paths: Sequence[str],
    cwd: str,
    parsed: Args,
    into: ExtensionRunner | None = None,
    *,
    warn: Callable[[str], None] | None = None,
    npm_command: Sequence[str] | None = None,
) -> tuple[ExtensionRunner | None, list[ExtensionError]]:
    """Import and set up ``paths`` (into the runner ``into`` when given); those that failed
    are left out and returned (``refuse_failed_extensions``).

    ``parsed`` is re-read with the extensions' boolean flags, so ``pi --plan "task"`` keeps
    ``"task"`` as the message, and ``unknown_flags`` keeps only options no extension knows.
    """
    if not paths:
        return into, []
    from pi_coding_agent.app.cli._args import parse_args

    runner, errors = run_async(_load_both(paths, cwd, into, warn, npm_command))
    flags = {flag.name: flag for flag in runner.flags()}
    booleans = frozenset(name for name, flag in flags.items() if flag.type == "boolean")
    if booleans.intersection(parsed.unknown_flags):
        reparsed = parse_args(parsed.argv, booleans)
        parsed.messages, parsed.file_args, parsed.unknown_flags = (
            reparsed.messages, reparsed.file_args, reparsed.unknown_flags
        )
    for name in list(parsed.unknown_flags):
        if name in flags:
            value = parsed.unknown_flags.pop(name)
            runner.flag_values[name] = value if flags[name].type == "string" else True
    return runner, errors


async def _load_both(
    paths: Sequence[str],
    cwd: str,
    into: ExtensionRunner | None,
    warn: Callable[[str], None] | None,
    npm_command: Sequence[str] | None,
) -> tuple[ExtensionRunner, list[ExtensionError]]:
    """Python and TypeScript extensions into one runner, in the order of ``paths`` (Pi's order).

    TypeScript ones start the Node host (only when there is one); when Node cannot be had each
    is one warning line and the rest of the run goes on.
    """
    from pi_coding_agent.customize.extensions import ExtensionRunner, find_conflicts, load_extensions
    from pi_coding_agent.customize.ts_extensions import is_typescript_extension, load_typescript_extensions

    runner = into if into is not None else ExtensionRunner([], cwd)
    scripts = [path for path in paths if is_typescript_extension(path)]
    errors: list[ExtensionError] = []
    if scripts:
        loaded = await load_typescript_extensions(scripts, runner, npm_command=npm_command)
        for warning in loaded.warnings:
            (warn or (lambda line: print(f"Warning: {line}", file=sys.stderr)))(warning)
        runner.extensions.extend(loaded.extensions)
        errors += loaded.errors
    modules = [path for path in paths if not is_typescript_extension(path)]
    runner, python_errors = await load_extensions(modules, cwd, into=runner, check_conflicts=False)
    _in_given_order(runner, paths)
    return runner, errors + python_errors + find_conflicts(runner.extensions)


def _in_given_order(runner: ExtensionRunner, paths: Sequence[str]) -> None:
    """Extensions sorted as ``paths`` lists them (a package folder stands for its
    ``__init__.py``); those loaded before (``into``) stay first."""
    import os

    position = {os.path.abspath(path): index for index, path in enumerate(paths)}
    for path in paths:
        if os.path.basename(path) == "__init__.py":
            position.setdefault(os.path.dirname(os.path.abspath(path)), position[os.path.abspath(path)])
    runner.extensions.sort(key=lambda extension: position.get(os.path.abspath(extension.path), -1))
    runner.refresh_handlers()


async def start_extensions(runner: ExtensionRunner, reason: str = "startup") -> None:
    """``session_start`` then ``resources_discover``, as Pi emits them once a session is bound."""
    from pi_coding_agent.customize.extensions import SessionStartEvent

    await runner.emit(SessionStartEvent("session_start", reason))
    await runner.emit_resources_discover("startup" if reason != "reload" else "reload")


def print_errors_to_stderr(runner: ExtensionRunner) -> None:
    """Print and JSON modes: each extension error is one stderr line (Pi's wording)."""
    runner.on_error(lambda error: print(error, file=sys.stderr, flush=True))


def extension_trust(runner: ExtensionRunner, cwd: str, agent_dir: str) -> bool | None:
    """``project_trust``: the first yes/no of a global or ``-e`` extension (remembered in
    ``trust.json`` when it asks), or ``None`` to let the usual rules decide."""
    if not runner.has_handlers("project_trust"):
        return None
    stop = runner.on_error(lambda error: print(error, file=sys.stderr, flush=True))
    try:
        decision, remember = run_async(runner.emit_project_trust(cwd))
    finally:
        stop()
    if decision is not None and remember:
        from pi_coding_agent.core.settings import save_trust_decisions

        save_trust_decisions(agent_dir, [(cwd, decision)])
    return decision

