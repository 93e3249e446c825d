"""Session paths that are not regular files (a FIFO, a character device, a directory, a socket)
are refused at once with one line, never read, waited on or locked: ``SessionManager.open``,
``set_session_file``, the listing, ``pi --session`` and ``pi --export``. The RPC side is in
``tests/pi_coding_agent/app/rpc/test_bad_session_paths.py``."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_coding_agent.core.session import NotRegularFileError, SessionManager, list_sessions
from tests.pi_coding_agent.core.session.helpers import assistant, user
from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox
from tests.reliability.figures import record

KINDS = {
    "a FIFO": "fifo",
    "a character device": "device",
    "a directory": "directory",
    "a socket": "socket",
}


def make_special(folder: Path, kind: str) -> tuple[Path, socket.socket | None]:
    """A path of ``kind`` (one of ``KINDS``' values); the socket must stay open while used."""
    if kind == "device":
        return Path("/dev/zero"), None
    path = folder / f"{kind}.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        return path, server
    return path, None


@pytest.fixture(params=sorted(KINDS.items()), ids=sorted(KINDS.values()))
def special(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    description, kind = request.param
    path, held = make_special(tmp_path, kind)
    try:
        yield path, description
    finally:
        if held is not None:
            held.close()


def _refused(path: Path, description: str, error: NotRegularFileError, surface: str) -> None:
    assert str(error) == f"Session file {path} is not a regular file ({description}); refusing to read it"
    assert "\n" not in str(error)
    record("non_regular_path", surface=surface, kind=description, refused=1)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("read_only", [True, False], ids=["read-only", "writer"])
def test_open_refuses_it_with_one_line_and_no_lock(special: tuple[Path, str], read_only: bool) -> None:
    path, description = special
    with pytest.raises(NotRegularFileError) as caught:
        SessionManager.open(str(path), read_only=read_only)
    _refused(path, description, caught.value, "SessionManager.open")
    assert not Path(f"{path}.lock").exists()


@pytest.mark.timeout(20)
def test_switching_to_it_refuses_and_keeps_the_session(special: tuple[Path, str], tmp_path: Path) -> None:
    path, description = special
    manager = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    manager.append_message(user("still here"))
    kept = manager.append_message(assistant("written"))
    with pytest.raises(NotRegularFileError) as caught:
        manager.set_session_file(str(path))
    _refused(path, description, caught.value, "set_session_file")
    assert not Path(f"{path}.lock").exists()
    # Refused before the current file was let go: the session goes on in its own file.
    before = manager.get_session_file()
    after = manager.append_message(user("and after"))
    manager.close()
    reopened = SessionManager.open(str(before), read_only=True)
    assert [entry.id for entry in reopened.get_branch()][-2:] == [kept, after]


@pytest.mark.timeout(20)
def test_a_fifo_named_like_a_session_is_left_out_of_the_listing(tmp_path: Path) -> None:
    good = SessionManager.create(str(tmp_path), str(tmp_path))
    good.append_message(user("listed"))
    good.append_message(assistant("ok"))
    good.close()
    os.mkfifo(tmp_path / "2026-01-01T00-00-00-000Z_fifo.jsonl")
    (tmp_path / "2026-01-01T00-00-00-000Z_dir.jsonl").mkdir()
    infos = list_sessions(str(tmp_path), str(tmp_path))
    assert [info.path for info in infos] == [good.get_session_file()]
    assert infos[0].first_message == "listed"
    assert SessionManager.continue_recent(str(tmp_path), str(tmp_path)).get_session_file() == good.get_session_file()
    record("non_regular_path", surface="listing", kind="a FIFO", refused=1)
    record("non_regular_path", surface="listing", kind="a directory", refused=1)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("option", ["--session", "--export"])
def test_pi_refuses_it_with_one_line(special: tuple[Path, str], tmp_path: Path, option: str) -> None:
    path, description = special
    box = Sandbox.create(tmp_path / "box", "http://127.0.0.1:9")
    arguments = ["--session", str(path), "-p", "hello"] if option == "--session" else ["--export", str(path), "out.html"]
    done = subprocess.run(
        [str(OUR_PI), *arguments], cwd=box.work, env=box.env(), capture_output=True, text=True, timeout=30,
        stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode != 0
    assert done.stderr == f"Error: Session file {path} is not a regular file ({description}); refusing to read it\n"
    assert done.stdout == ""
    assert not (box.work / "out.html").exists()
    record("non_regular_path", surface=f"pi {option}", kind=description, refused=1)
