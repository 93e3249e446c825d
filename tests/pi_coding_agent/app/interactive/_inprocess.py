"""Our ``pi`` driven in-process on a virtual terminal: the real command line (``main``), the
real ``InteractiveMode``, a scripted provider on 127.0.0.1, a throwaway home and cwd.

``run_app`` runs ``main(args)`` in this process with the run's environment, working
directory and a terminal-like stdin/stdout/stderr (what the command prints goes to the
virtual screen, as it would in a terminal), and hands the interactive mode a
``VirtualTerminal``. The test's ``scenario`` runs on the mode's own event loop beside it:
keys go in with ``send``/``type``/``paste``, and the ``wait_*`` helpers give the loop back
until the screen shows what is expected (they wake on each frame, they do not poll a clock).
When the scenario ends the app is quit, if it has not quit itself. A scenario is the same
``async`` function the tmux driver (``_scenario.TmuxApp``) runs against Pi's own TUI.
"""

from __future__ import annotations

import asyncio
import gc
import io
import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_coding_agent.app import interactive
from pi_coding_agent.app.cli import main
from tests.pi_coding_agent.app.interactive._scenario import SETTINGS, SessionFiles
from tests.pi_coding_agent.app.interactive._tmux import editor_text
from tests.pi_coding_agent.e2e._harness import Sandbox, as_if_run_in
from tests.support.scripted_provider import ScriptedProvider, Turn
from tests.support.virtual_terminal import VirtualTerminal

WAIT_LIMIT = 30.0
BACKGROUND_QUERY = "\x1b]11;?\x07"


@dataclass
class App(SessionFiles):
    """The running app as a scenario sees it (the same names as ``_scenario.TmuxApp``)."""

    sandbox: Sandbox
    provider: ScriptedProvider
    terminal: VirtualTerminal
    which: str = "ours"
    exit_code: int | None = None
    _task: asyncio.Future[int] | None = field(default=None, repr=False)

    @property
    def ours(self) -> bool:
        return True

    # ------------------------------------------------------------------ keys in

    async def send(self, *keys: str) -> None:
        self.terminal.send(*keys)
        await asyncio.sleep(0)

    async def type(self, text: str) -> None:
        self.terminal.type(text)
        await asyncio.sleep(0)

    async def paste(self, text: str) -> None:
        self.terminal.paste(text)
        await asyncio.sleep(0)

    async def submit(self, text: str, key: str = "Enter") -> None:
        """Type ``text`` and press ``key``; wait until the editor let go of it."""
        await self.type(text)
        await self.wait_for(text[:40], region="editor")
        await self.send(key)
        await self.wait_until(lambda s: text[:40] not in editor_text(s), f"{text!r} was never accepted")

    async def command(self, text: str) -> None:
        await self.submit(text)

    async def quit(self) -> None:
        await self.send("C-d")
        await self.wait_exit()

    async def wait_exit(self) -> None:
        """Until the app has quit (``exit_code`` is its status)."""
        assert self._task is not None
        try:
            self.exit_code = await asyncio.wait_for(asyncio.shield(self._task), WAIT_LIMIT)
        except TimeoutError:
            raise AssertionError(f"the app did not quit; the terminal shows:\n{self.screen()}") from None
        assert self.exit_code == 0, f"the app quit with {self.exit_code}:\n{self.screen()}"

    # ------------------------------------------------------------------ screen out

    def screen(self) -> str:
        return self.terminal.screen()

    def styled_screen(self) -> str:
        return self.terminal.styled_screen()

    def history(self) -> str:
        return self.terminal.history()

    def clipboard(self) -> str:
        return self.terminal.clipboard

    def record_output(self, path: Path) -> None:
        self.terminal.record_output(path)

    def editor(self) -> str:
        return editor_text(self.screen()).strip()

    async def wait_until(self, check: Callable[[str], bool], what: str, limit: float = WAIT_LIMIT,
                         everywhere: bool = False) -> str:  # fmt: skip
        """Give the event loop back until ``check`` holds for the screen (``everywhere``: the
        scrollback too); woken by every write to the terminal, and at least every 50 ms for
        checks on files."""
        deadline = asyncio.get_running_loop().time() + limit
        while True:
            shown = self.history() if everywhere else self.screen()
            if check(shown):
                return shown
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0 or (self._task is not None and self._task.done()):
                state = "the app quit" if left > 0 else "time is up"
                raise AssertionError(f"{what} ({state}); the terminal shows:\n{shown}") from self._failure()
            self.terminal.changed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self.terminal.changed.wait(), min(left, 0.05))

    def _failure(self) -> BaseException | None:
        """What ended the app, when an exception did."""
        task = self._task
        return task.exception() if task is not None and task.done() and not task.cancelled() else None

    async def wait_for(self, text: str, limit: float = WAIT_LIMIT, everywhere: bool = False,
                       region: str | None = None) -> str:  # fmt: skip
        if region == "editor":
            return await self.wait_until(lambda s: text in editor_text(s), f"{text!r} not in the editor", limit)
        return await self.wait_until(lambda s: text in s, f"{text!r} did not appear", limit, everywhere)

    async def wait_until_gone(self, text: str, limit: float = WAIT_LIMIT) -> str:
        return await self.wait_until(lambda s: text not in s, f"{text!r} is still there", limit)


Scenario = Callable[[App], Awaitable[None]]


def run_app(
    tmp_path: Path,
    turns: list[Turn],
    scenario: Scenario,
    *,
    settings: dict[str, Any] | None = None,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
    summary: str | None = None,
    height: int = 30,
    width: int = 100,
    models: Callable[[str], dict[str, Any]] | None = None,
    ready: str | None = "scripted-model",
    before: Callable[[Sandbox], None] | None = None,
    extended_keys: bool = False,
    background: str | None = None,
    route: Callable[[dict[str, Any]], tuple[str, list[Turn]]] | None = None,
    startup: Scenario | None = None,
) -> App:
    """Run ``pi args`` in-process until ``scenario`` is done with it (the options as
    ``_scenario.launch``'s; ``background``: the colour the terminal answers ``OSC 11`` with;
    ``startup`` answers a dialog shown before the interactive mode, such as the trust prompt).
    The finished ``App`` (its files, provider and last screen) is returned."""
    with ScriptedProvider(turns, summary=summary, route=route) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, {**SETTINGS, **(settings or {})})
        if models is not None:
            (sandbox.agent_dir / "models.json").write_text(json.dumps(models(provider.base_url)), encoding="utf-8")
        for name, text in (files or {}).items():
            (sandbox.work / name).write_text(text, encoding="utf-8")
        if before is not None:
            before(sandbox)
        answers = {BACKGROUND_QUERY: _osc11_answer(background)} if background else {}
        terminal = VirtualTerminal(width, height, answers=answers, extended_keys=extended_keys)
        app = App(sandbox, provider, terminal)
        with _process_of_the_run(sandbox, terminal, env or {}), _driven(app, scenario, ready, startup):
            code = main(list(args))
        app.exit_code = code
    if app._task is None:  # the scenario never ran: pi stopped before its interactive mode
        raise AssertionError(f"pi exited with {code} before its interactive mode; the terminal shows:\n{app.history()}")
    return app


def _osc11_answer(colour: str) -> str:
    """A terminal's answer to ``OSC 11 ?`` for ``#rrggbb`` (16 bits a channel, as xterm's)."""
    red, green, blue = (colour[i : i + 2] * 2 for i in (1, 3, 5))
    return f"\x1b]11;rgb:{red}/{green}/{blue}\x1b\\"


@contextmanager
def _driven(app: App, scenario: Scenario, ready: str | None, startup: Scenario | None) -> Iterator[None]:
    """``main`` runs the interactive mode on ``app``'s terminal, and ``scenario`` beside it;
    a startup dialog on the same terminal, with ``startup`` beside it (none expected without)."""
    original = interactive.run_interactive_mode
    original_select = interactive.startup_select

    async def select_with_startup(title: str, options: Any, agent_dir: Path) -> str | None:
        if startup is None:
            raise AssertionError(f"an unexpected startup dialog: {title!r}")
        dialog = asyncio.ensure_future(original_select(title, options, agent_dir, app.terminal))
        await startup(app)
        return await dialog

    async def with_scenario(runtime: Any, **options: Any) -> int:
        app._task = asyncio.ensure_future(original(runtime, terminal=app.terminal, **options))
        try:
            if ready is not None:
                await app.wait_for(ready)
            await scenario(app)
        finally:
            if not app._task.done():
                app._task.cancel()
            await asyncio.wait({app._task})
        return 0 if app._task.cancelled() else app._task.result()

    interactive.run_interactive_mode = with_scenario
    interactive.startup_select = select_with_startup
    try:
        yield
    finally:
        interactive.run_interactive_mode = original
        interactive.startup_select = original_select
        gc.unfreeze()  # ``main`` freezes what is alive when a run ends; a test process goes on


class _TerminalStream(io.TextIOBase):
    """stdin/stdout/stderr of a process in a terminal: a tty, whose output the screen shows."""

    def __init__(self, terminal: VirtualTerminal) -> None:
        self._terminal = terminal

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._terminal.write(text.replace("\n", "\r\n"))
        return len(text)


def _process_of_the_run(sandbox: Sandbox, terminal: VirtualTerminal, env: dict[str, str]) -> AbstractContextManager[None]:
    """The environment, working directory and standard streams of ``pi`` run in ``sandbox``."""
    stream = _TerminalStream(terminal)
    return as_if_run_in(sandbox, {"TERM": "xterm-256color", **env}, stream, stream, stream)
