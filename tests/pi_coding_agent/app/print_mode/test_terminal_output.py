"""``pi -p`` and the terminal-output policy, end to end: the real ``pi`` on a pseudo-terminal
of its own, a scripted provider on 127.0.0.1 answering with every escape family (OSC 52,
titles, DSR and other queries, clears, cursor moves...). The terminal receives the answer's
text and colours and none of the sequences, so no query is answered into pi's input; piped,
the same answer comes out byte for byte. Pi 0.85 writes it raw to the terminal too (the
documented difference, docs/security.md). An ``Error:`` line quoting such text (an
extension's load error) reaches the terminal without the sequences too.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox
from tests.reliability.figures import record
from tests.support import oracle
from tests.support.escape_families import SAMPLES, SGR, leaks
from tests.support.pty_terminal import Pty
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(300)

ANSWER = "".join(f"<{n}>{sample}" for n, sample in enumerate(SAMPLES.values())) + "\x1b[1;32mdone\x1b[0m"
SHOWN = "".join(f"<{n}>" for n in range(len(SAMPLES))) + "\x1b[1;32mdone\x1b[0m"
ANSWERS = {  # what a terminal would send back, into pi's input, were the queries written
    b"\x1b[6n": b"\x1b[7;1R",
    b"\x1b[5n": b"\x1b[0n",
    b"\x1b[>c": b"\x1b[>41;380;0c",
    b"\x1b[21t": b"\x1b]lowned\x1b\\",
    b"\x1b]11;?": b"\x1b]11;rgb:0000/0000/0000\x1b\\",
    b"\x1bP$qm": b"\x1bP1$r0m\x1b\\",
    b"\x1bZ": b"\x1b[?62;22c",
}


def _on_a_pty(tmp_path: Path, command: list[str]) -> tuple[bytes, list[bytes]]:
    """What ``command -p`` wrote to its terminal, and the queries the terminal answered."""
    with ScriptedProvider([{"text": ANSWER}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        env = sandbox.env(TERM="xterm-256color")
        program = Pty([*command, "--no-session", "--model", OPENAI_MODEL, "-p", "hi"], sandbox.work, env, ANSWERS)
        try:
            code = program.wait_exit()
        finally:
            program.close()
    written = program.raw_since(0)
    assert code == 0, written
    return written, program.answered


def test_pi_p_on_a_terminal_writes_the_text_and_none_of_the_sequences(tmp_path: Path) -> None:
    written, answered = _on_a_pty(tmp_path, [str(OUR_PI)])
    shown = written.decode("utf-8").replace("\r\n", "\n")  # the terminal's own newline mapping
    found = leaks(shown)
    for family in SAMPLES:
        record("escape_family", family=family, surface="pty", leaked=int(bool(found)))
    assert not found, f"reached the terminal: {found[:5]}"
    assert answered == [], f"queries answered into pi's input: {answered}"
    assert shown == SHOWN + "\n"
    assert SGR.findall(shown) == ["\x1b[1;32m", "\x1b[0m"]


def test_pi_p_piped_is_byte_exact(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": ANSWER}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        done = subprocess.run(
            [str(OUR_PI), "--no-session", "--model", OPENAI_MODEL, "-p", "hi"],
            cwd=sandbox.work, env=sandbox.env(), stdin=subprocess.DEVNULL, capture_output=True, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == ANSWER.encode("utf-8") + b"\n"


def test_pi_0_85_writes_the_sequences_raw(tmp_path: Path) -> None:
    """The difference from Pi, pinned: its ``pi -p`` sends the answer's OSC 52, title and
    queries to the terminal as they came."""
    written, answered = _on_a_pty(tmp_path, [str(oracle.require_live_oracle() / "pi-cli")])
    assert b"\x1b]52;c;cHduZWQ=\x07" in written
    assert b"\x1b]0;owned\x07" in written
    assert b"\x1b[6n" in answered


def test_an_error_line_quoting_sequences_reaches_a_terminal_without_them(tmp_path: Path) -> None:
    """An extension that fails to load with an error full of escape sequences: pi's ``Error:``
    line on the terminal names it without them (piped, stderr keeps the text as it is)."""
    extension = tmp_path / "bad.py"
    extension.write_text(f"raise RuntimeError({ANSWER!r})\n", encoding="utf-8")
    sandbox = Sandbox.create(tmp_path / "run", "http://127.0.0.1:9")
    command = [str(OUR_PI), "-e", str(extension), "--no-session", "-p", "hi"]
    program = Pty(command, sandbox.work, sandbox.env(TERM="xterm-256color"), ANSWERS)
    try:
        code = program.wait_exit()
    finally:
        program.close()
    shown = program.raw_since(0).decode("utf-8").replace("\r\n", "\n")
    found = leaks(shown)
    for family in SAMPLES:
        record("escape_family", family=family, surface="pty stderr", leaked=int(bool(found)))
    assert code == 1 and "Failed to load extension" in shown and SHOWN in shown
    assert not found, f"reached the terminal: {found[:5]}"
    assert program.answered == []
    piped = subprocess.run(command, cwd=sandbox.work, env=sandbox.env(), capture_output=True, timeout=120, check=False)
    assert ANSWER.encode("utf-8") in piped.stderr
