"""One interactive ``pi`` (ours, or Pi 0.85's / 1.6's own through ``pi-cli`` / ``pi-cli-current``) in tmux, against a
scripted provider on 127.0.0.1, in a throwaway home; and what its session files say.

A run starts once its keys work (``Run.wait_ready``: Pi draws its editor before its
startup is done); ``Run.submit`` types a prompt, presses Enter and waits until the editor
lets go of it.
``pi_reads_the_same`` hands session files to the live oracle and to our reader and checks
both build the same context.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_coding_agent.customize.themes import builtin_theme
from pi_tui import color_to_hex, parse_color
from tests.pi_coding_agent.app.interactive._tmux import TmuxPane, editor_text
from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider, Turn

SETTINGS: dict[str, Any] = {
    "retry": {"enabled": False},
    "defaultProvider": "scripted-openai",
    "defaultModel": "scripted-model",
}
SUBMIT_LIMIT = 90.0


class SessionFiles:
    """What a run leaves in its sandbox: session files, their entries, the saved settings."""

    sandbox: Sandbox

    def session_files(self) -> list[Path]:
        return self.sandbox.session_files()

    def entries(self, path: Path | None = None) -> list[dict[str, Any]]:
        """The file's lines but Pi 1.6's system messages: ours writes them (their tests are
        e2e/test_system_messages_written.py), Pi 0.85 none, and both must read alike here."""
        if path is None:
            [path] = self.session_files()
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return [line for line in lines if not (line.get("type") == "message" and line["message"]["role"] == "system")]

    def messages(self, path: Path | None = None) -> list[dict[str, Any]]:
        return [entry["message"] for entry in self.entries(path) if entry.get("type") == "message"]

    def settings_file(self) -> dict[str, Any]:
        """The saved settings; ``{}`` while the file is being rewritten (Pi writes it in place,
        so a poll can read it empty or half-written)."""
        try:
            return dict(json.loads((self.sandbox.agent_dir / "settings.json").read_text(encoding="utf-8")))
        except json.JSONDecodeError:
            return {}


@dataclass
class Run(SessionFiles):
    which: str
    sandbox: Sandbox
    pane: TmuxPane
    provider: ScriptedProvider

    @property
    def ours(self) -> bool:
        return self.which == "ours"

    editor_text = staticmethod(editor_text)  # as the extensions' tmux tests read it off a run

    def wait_ready(self) -> None:
        """Until the application's keys work: Pi draws its editor before it installs them
        (its startup goes on in the background), so a typed probe is cleared with Ctrl+C
        until it goes. Presses are more than Pi's 0.5 s double-press (quit) window apart."""
        pane = self.pane
        pane.type("probe-ready")
        pane.wait_for("probe-ready", region="editor")
        deadline = time.monotonic() + SUBMIT_LIMIT
        while "probe-ready" in editor_text(pane.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"the keys never started working:\n{pane.screen()}")
            pane.send("C-c")
            end = time.monotonic() + 1.0
            while time.monotonic() < end and "probe-ready" in editor_text(pane.screen()):
                time.sleep(0.03)
        time.sleep(0.6)  # out of the double-press window before anything else presses Ctrl+C

    def submit(self, text: str, key: str = "Enter") -> None:
        """Type ``text`` and press ``key``; wait until the editor let go of it."""
        pane = self.pane
        pane.type(text)
        pane.wait_for(text[:40], region="editor")
        pane.send(key)
        pane.wait_until(lambda s: text[:40] not in editor_text(s), f"{text!r} was never accepted", SUBMIT_LIMIT)

    def command(self, text: str) -> None:
        """A slash command: typed, then Enter (completion is closed with a space first)."""
        self.submit(text)

    def quit(self) -> None:
        self.pane.send("C-d")
        self.pane.wait_for("[exit 0]")



def pi_command(which: str, *args: str) -> list[str]:
    """``ours``, ``pi`` (Pi 0.85's ``pi-cli``) or ``pi16`` (Pi 1.6's ``pi-cli-current``)."""
    if which == "pi":
        return [str(oracle.require_live_oracle() / "pi-cli"), *args]
    if which == "pi16":
        return [str(oracle.require_live_oracle(current=True) / "pi-cli-current"), *args]
    return [str(OUR_PI), *args]


def theme_document(name: str, based_on: str = "dark") -> dict[str, Any]:
    """A theme file named ``name`` with the colours of our built-in ``based_on``, as ``#rrggbb``:
    the form Pi 0.85 reads too (the built-ins are OKHSL, which only Pi 1.6 reads)."""
    theme = builtin_theme(based_on)
    colors = {token: color_to_hex(parse_color(value)) for token, value in theme.colors.items()}
    return {"name": name, "colors": colors}


@contextmanager
def launch(
    tmp_path: Path,
    which: str,
    turns: list[Turn],
    *,
    settings: dict[str, Any] | None = None,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
    summary: str | None = None,
    height: int = 30,
    models: Callable[[str], dict[str, Any]] | None = None,
    ready: str | None = "scripted-model",
    probe: bool = True,
    shell: bool = False,
    before: Callable[[Sandbox], None] | None = None,
    extended_keys: bool = False,
    background: str | None = None,
    route: Callable[[dict[str, Any]], tuple[str, list[Turn]]] | None = None,
    tmux_env: bool = False,
) -> Iterator[Run]:
    """A running ``pi`` (``which``: ``ours``, ``pi`` or ``pi16``) whose provider serves ``turns``;
    ``models`` builds ``models.json`` from the provider's base URL. The run starts once
    ``ready`` shows and (``probe``) the editor's keys work; with ``shell`` it is started from
    an interactive bash (job control, for Ctrl+Z); ``before`` runs first, with the provider up
(to leave earlier sessions, say); ``extended_keys`` has tmux forward modified keys; ``background`` is the terminal's
background colour (which tmux then reports); ``route`` is the provider's (to hold a request, say)."""
    with ScriptedProvider(turns, summary=summary, route=route) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, {**SETTINGS, **(settings or {})})
        if models is not None:
            (sandbox.agent_dir / "models.json").write_text(json.dumps(models(provider.base_url)), encoding="utf-8")
        for name, text in (files or {}).items():
            (sandbox.work / name).write_text(text, encoding="utf-8")
        if before is not None:
            before(sandbox)
        command = pi_command(which, *args)
        environment = sandbox.env(TERM="xterm-256color", **(env or {}))
        pane = TmuxPane(None if shell else command, sandbox.work, environment, height=height,
                        extended_keys=extended_keys, background=background, tmux_env=tmux_env)  # fmt: skip
        try:
            if shell:
                pane.type(shlex.join(command))
                pane.send("Enter")
            run = Run(which, sandbox, pane, provider)
            if ready is not None:
                pane.wait_for(ready, limit=90)
            if probe:
                run.wait_ready()
            yield run
        finally:
            pane.close()


def pi_reads_the_same(files: list[Path]) -> list[dict[str, Any]]:
    """Pi's context of each session file (the live oracle), checked equal to ours; Pi's contexts.

    Pi 1.6's context must equal ours exactly; Pi 0.85's only without system messages (0.85 does
    not read a compaction's ``systemMessage`` and keeps the system messages it replaces)."""
    oracle.require_live_oracle()
    oracle.require_live_oracle(current=True)
    requests = [{"jsonl": path.read_text(encoding="utf-8")} for path in files]
    # One Node process per Pi for every file (a Node start is about 1.5 CPU-s), both at once;
    # ours answers in this process meanwhile.
    with ThreadPoolExecutor(max_workers=2) as pool:
        pi_runs = pool.submit(oracle.run_oracle_many, "session-context", requests)
        pi16_runs = pool.submit(oracle.run_oracle_many, "session-context", requests, current=True)
        ours = [oracle.conformance_in_process("session-context", r) for r in requests]
        pis, pi16s = pi_runs.result(), pi16_runs.result()
    for path, pi, pi16, our in zip(files, pis, pi16s, ours, strict=True):
        assert our == pi16, f"{path}: Pi 1.6 builds another context than we do"
        assert _without_system_messages(our[1]) == _without_system_messages(pi[1]), (
            f"{path}: Pi 0.85 builds another context than we do"
        )
    return [_without_system_messages(answer) for _, answer in pis]


def _without_system_messages(answer: dict[str, Any]) -> dict[str, Any]:
    """Pi's context without the Pi 1.6 system messages ours writes (see ``entries``)."""
    messages = [m for m in answer["context"]["messages"] if m["role"] != "system"]
    return {**answer, "context": {**answer["context"], "messages": messages}}
