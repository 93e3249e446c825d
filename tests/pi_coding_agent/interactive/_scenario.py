"""One interactive ``pi`` (ours, or Pi 0.85's own through ``pi-cli``) in tmux, against a
scripted provider on 127.0.0.1, in a throwaway home; and what its session files say.

``Run.submit`` types a prompt and presses Enter until the editor lets go of it (Pi refuses
submissions until its startup work is done, which doubles as "ready" for its keys).
``pi_reads_the_same`` hands session files to the live oracle and to our reader and checks
both build the same context.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.pi_coding_agent.interactive._tmux import TmuxPane, editor_lines
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider, Turn

SETTINGS: dict[str, Any] = {
    "retry": {"enabled": False},
    "defaultProvider": "scripted-openai",
    "defaultModel": "scripted-model",
}
SUBMIT_LIMIT = 90.0


@dataclass
class Run:
    which: str
    sandbox: Sandbox
    pane: TmuxPane
    provider: ScriptedProvider

    @property
    def ours(self) -> bool:
        return self.which == "ours"

    def submit(self, text: str, key: str = "Enter") -> None:
        """Type ``text`` and press ``key``; again while the editor still holds it."""
        pane = self.pane
        pane.type(text)
        pane.wait_for(text[:40], region="editor")
        deadline = time.monotonic() + SUBMIT_LIMIT
        pane.send(key)
        pressed = time.monotonic()
        while True:
            shown = "\n".join(editor_lines(pane.screen()))
            if text[:40] not in shown:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} was never accepted:\n{pane.screen()}")
            if time.monotonic() - pressed > 1.0:
                pane.send(key)
                pressed = time.monotonic()
            time.sleep(0.03)

    @staticmethod
    def editor_text(screen: str) -> str:
        return "\n".join(editor_lines(screen))

    def command(self, text: str) -> None:
        """A slash command: typed, then Enter (completion is closed with a space first)."""
        self.submit(text)

    def quit(self) -> None:
        self.pane.send("C-d")
        self.pane.wait_for("[exit 0]")

    def session_files(self) -> list[Path]:
        return self.sandbox.session_files()

    def entries(self, path: Path | None = None) -> list[dict[str, Any]]:
        if path is None:
            [path] = self.session_files()
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def messages(self, path: Path | None = None) -> list[dict[str, Any]]:
        return [entry["message"] for entry in self.entries(path) if entry.get("type") == "message"]

    def settings_file(self) -> dict[str, Any]:
        return dict(json.loads((self.sandbox.agent_dir / "settings.json").read_text(encoding="utf-8")))


def pi_command(which: str, *args: str) -> list[str]:
    if which == "pi":
        return [str(oracle.require_live_oracle() / "pi-cli"), *args]
    return [str(OUR_PI), *args]


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
    models: dict[str, Any] | None = None,
) -> Iterator[Run]:
    """A running ``pi`` (``which``: ``ours`` or ``pi``) whose provider serves ``turns``."""
    with ScriptedProvider(turns, summary=summary) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url, {**SETTINGS, **(settings or {})})
        if models is not None:
            (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
        for name, text in (files or {}).items():
            (sandbox.work / name).write_text(text, encoding="utf-8")
        pane = TmuxPane(pi_command(which, *args), sandbox.work, sandbox.env(TERM="xterm-256color", **(env or {})),
                        height=height)  # fmt: skip
        try:
            pane.wait_for("scripted-model", limit=90)
            yield Run(which, sandbox, pane, provider)
        finally:
            pane.close()


def pi_reads_the_same(files: list[Path]) -> list[dict[str, Any]]:
    """Pi's context of each session file (the live oracle), checked equal to ours; Pi's contexts."""
    oracle.require_live_oracle()
    requests = [{"jsonl": path.read_text(encoding="utf-8")} for path in files]
    with ThreadPoolExecutor(max_workers=max(1, len(requests))) as pool:
        pis = list(pool.map(lambda r: oracle.run_oracle("session-context", r), requests))
    for path, request, pi in zip(files, requests, pis, strict=True):
        ours = oracle.run_conformance("session-context", request)
        assert ours == pi, f"{path}: Pi builds another context than we do"
    return [answer for _, answer in pis]
