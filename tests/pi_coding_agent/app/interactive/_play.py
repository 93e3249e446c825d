"""One scenario, two programs: ours in-process on a virtual terminal (``_inprocess``, fast),
Pi 0.85's own TUI in tmux (``_scenario.launch``), so each scenario checks Pi's behaviour too.

A scenario is an ``async`` function of an app; ``TmuxApp`` gives a tmux run the names the
in-process ``App`` has (its waits block, which is fine: nothing else runs on its loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol

from tests.pi_coding_agent.app.interactive._inprocess import run_app
from tests.pi_coding_agent.app.interactive._scenario import Run, launch
from tests.pi_coding_agent.e2e._harness import Sandbox
from tests.support.scripted_provider import ScriptedProvider, Turn

EXIT_MARK = "[exit 0]"


class Driven(Protocol):
    """What a scenario drives: keys in, screen out, the files the run leaves."""

    which: str
    sandbox: Sandbox
    provider: ScriptedProvider

    @property
    def ours(self) -> bool: ...
    async def send(self, *keys: str) -> None: ...
    async def type(self, text: str) -> None: ...
    async def paste(self, text: str) -> None: ...
    async def submit(self, text: str, key: str = "Enter") -> None: ...
    async def command(self, text: str) -> None: ...
    async def quit(self) -> None: ...
    async def wait_exit(self) -> None: ...
    def screen(self) -> str: ...
    def styled_screen(self) -> str: ...
    def history(self) -> str: ...
    def clipboard(self) -> str: ...
    def record_output(self, path: Path) -> None: ...
    def editor(self) -> str: ...
    async def wait_until(self, check: Callable[[str], bool], what: str, limit: float = ...,
                         everywhere: bool = False) -> str: ...  # fmt: skip
    async def wait_for(self, text: str, limit: float = ..., everywhere: bool = False,
                       region: str | None = None) -> str: ...  # fmt: skip
    async def wait_until_gone(self, text: str, limit: float = ...) -> str: ...
    def session_files(self) -> list[Path]: ...
    def entries(self, path: Path | None = None) -> list[dict[str, Any]]: ...
    def messages(self, path: Path | None = None) -> list[dict[str, Any]]: ...
    def settings_file(self) -> dict[str, Any]: ...


class TmuxApp:
    """A tmux ``Run`` under the in-process ``App``'s names."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.which, self.sandbox, self.provider = run.which, run.sandbox, run.provider
        self.pane = run.pane

    @property
    def ours(self) -> bool:
        return self.run.ours

    async def send(self, *keys: str) -> None:
        self.pane.send(*keys)

    async def type(self, text: str) -> None:
        self.pane.type(text)

    async def paste(self, text: str) -> None:
        self.pane.paste(text)

    async def submit(self, text: str, key: str = "Enter") -> None:
        self.run.submit(text, key)

    async def command(self, text: str) -> None:
        self.run.command(text)

    async def quit(self) -> None:
        self.run.quit()

    async def wait_exit(self) -> None:
        self.pane.wait_for(EXIT_MARK)

    def screen(self) -> str:
        return self.pane.screen()

    def styled_screen(self) -> str:
        return self.pane.styled_screen()

    def history(self) -> str:
        return self.pane.history()

    def clipboard(self) -> str:
        return self.pane.clipboard()

    def record_output(self, path: Path) -> None:
        self.pane.record_output(path)

    def editor(self) -> str:
        return self.pane.editor()

    async def wait_until(self, check: Callable[[str], bool], what: str, limit: float = 30.0,
                         everywhere: bool = False) -> str:  # fmt: skip
        return self.pane.wait_until(check, what, limit, everywhere)

    async def wait_for(self, text: str, limit: float = 30.0, everywhere: bool = False,
                       region: str | None = None) -> str:  # fmt: skip
        return self.pane.wait_for(text, limit, everywhere, region=region)

    async def wait_until_gone(self, text: str, limit: float = 30.0) -> str:
        return self.pane.wait_until_gone(text, limit)

    def session_files(self) -> list[Path]:
        return self.run.session_files()

    def entries(self, path: Path | None = None) -> list[dict[str, Any]]:
        return self.run.entries(path)

    def messages(self, path: Path | None = None) -> list[dict[str, Any]]:
        return self.run.messages(path)

    def settings_file(self) -> dict[str, Any]:
        return self.run.settings_file()


def play(
    tmp_path: Path, which: str, turns: list[Turn], scenario: Callable[[Driven], Coroutine[Any, Any, None]], **options: Any
) -> Driven:
    """Run ``scenario`` against ``which`` (``ours``: in-process; ``pi``: Pi's TUI in tmux);
    ``options`` as ``_scenario.launch``'s. The finished app, for its files."""
    if which == "ours":
        return run_app(tmp_path, turns, scenario, **options)
    with launch(tmp_path, which, turns, **options) as run:
        app = TmuxApp(run)
        asyncio.run(scenario(app))
    return app
