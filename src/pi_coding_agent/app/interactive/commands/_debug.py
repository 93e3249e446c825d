"""``/debug`` (hidden, as in Pi): what the screen shows and what the agent holds, for a bug
report. Writes ``<agent dir>/pi-debug.log`` in Pi's layout: the terminal's size, every
rendered line with its visible width (as a JSON string, escapes and all), then the agent's
messages as JSON lines."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pi_ai import encode
from pi_ai.js_json import stringify
from pi_tui import Spacer, Text, visible_width

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._transcript import Transcript
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession
    from pi_tui import TUI

DEBUG_LOG = "pi-debug.log"


class DebugHost(Protocol):
    @property
    def session(self) -> AgentSession: ...
    @property
    def tui(self) -> TUI: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def agent_dir(self) -> Path: ...


def debug_report(
    lines: list[str], width: int, height: int, messages: list[bytes], now: datetime.datetime
) -> str:
    stamp = now.astimezone(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return "\n".join(
        [
            f"Debug output at {stamp}",
            f"Terminal: {width}x{height}",
            f"Total lines: {len(lines)}",
            "",
            "=== All rendered lines with visible widths ===",
            *(f"[{index}] (w={visible_width(line)}) {stringify(line)}" for index, line in enumerate(lines)),
            "",
            "=== Agent messages (JSONL) ===",
            *(message.decode("utf-8") for message in messages),
            "",
        ]
    )


async def debug(host: DebugHost, _arguments: str) -> None:
    terminal = host.tui.terminal
    width, height = terminal.columns, terminal.rows
    report = debug_report(
        host.tui.render(width), width, height, [encode(m) for m in host.session.messages],
        datetime.datetime.now(datetime.UTC),
    )  # fmt: skip
    path = host.agent_dir / DEBUG_LOG
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report, encoding="utf-8")
    except OSError as error:
        host.transcript.error(f"Could not write {path}: {error.strerror or error}")
        return
    theme = host.theme
    host.transcript.add(Spacer(1))
    host.transcript.add(
        Text(f"{theme.fg('accent', '✓ Debug log written')}\n{theme.fg('muted', str(path))}", 1, 1)
    )


HANDLERS = {"debug": debug}
