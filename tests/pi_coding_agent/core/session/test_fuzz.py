"""The loader never crashes on a file, and reads it as Pi does (hypothesis fuzz).

Every generated file (``fuzz_lines``) is opened read-only and for writing, its context,
tree, branch and entries are built, one entry is appended, and the folder is listed: no
exception may escape except ``SessionError`` (a file that is no session: one line for the
user), and a read-only open never changes the file. A sample of the files is then read by
the live oracle (Pi 0.85), all in one Node process, which must see the same header, entries,
tree, leaf and context.

Each run draws its files from a new seed, printed with the test's output (``PI_FUZZ_SEED=N``
replays a run):

    PI_FUZZ_EXAMPLES=5000 PI_FUZZ_ORACLE=500 .venv/bin/python -m pytest tests/pi_coding_agent/core/session/test_fuzz.py -n 0

runs the larger, nightly-style version (defaults: 200 files, 40 of them compared with the oracle).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings

from pi_ai import to_builtins
from pi_coding_agent.core.messages import convert_to_llm
from pi_coding_agent.core.session import SessionError, SessionManager, list_sessions, read_header
from tests.pi_coding_agent.core.session.fuzz_lines import (
    SAMPLE_LINES,
    V1_LINES,
    has_odd_value,
    odd_files,
    session_files,
)
from tests.reliability.figures import record
from tests.support import deep_json
from tests.support.oracle import REPO, OracleServer, require_live_oracle, run_oracle, run_oracle_many
from tests.support.stream_checks import PYTHON_WORDING

sys.path.insert(0, str(REPO / "tools"))
from conformance_cmds import session_context

EXAMPLES = int(os.environ.get("PI_FUZZ_EXAMPLES", "200"))
ORACLE_SAMPLE = int(os.environ.get("PI_FUZZ_ORACLE", "40"))
SEED = int(os.environ.get("PI_FUZZ_SEED") or random.SystemRandom().randrange(2**32))


def _exercise(manager: SessionManager) -> None:
    context = manager.build_session_context()
    to_builtins(context.messages)
    convert_to_llm(context.messages)
    manager.build_context_entries()
    manager.get_tree()
    manager.get_branch()
    manager.get_entries_data()
    manager.verify()
    manager.get_session_name()
    leaf = manager.get_leaf_id()
    if leaf is not None:
        manager.get_children(leaf)


def _read_all(path: Path) -> None:
    before = path.read_bytes()
    try:
        reader = SessionManager.open(str(path), read_only=True)
    except SessionError:
        reader = None
    if reader is not None:
        _exercise(reader)
        for problem in reader.problems:
            assert not PYTHON_WORDING.search(problem.message), problem
    assert path.read_bytes() == before, "a read-only open changed the file"
    assert not Path(f"{path}.lock").exists()
    read_header(str(path))
    for info in list_sessions("/fuzz", str(path.parent)):
        assert isinstance(info.message_count, int) and isinstance(info.first_message, str)
        assert isinstance(info.all_messages_text, str)
        assert info.name is None or isinstance(info.name, str)


def _write_once(path: Path) -> None:
    try:
        writer = SessionManager.open(str(path), durable=False)  # the loader is under test, not the disk
    except SessionError:
        return
    with writer:
        _exercise(writer)
        from tests.pi_coding_agent.core.session.helpers import user

        new_id = writer.append_message(user("after the fuzz"))
        assert writer.get_leaf_id() == new_id
    again = SessionManager.open(str(path), read_only=True)
    assert again.get_entry(new_id) is not None
    last = again.build_session_context().messages[-1]
    assert to_builtins(last)["content"][0]["text"] == "after the fuzz"


def _documented(pi: Any) -> Any:
    """Pi's answer with the deliberate differences of ``docs/sessions/README.md`` applied: a model
    field or thinking level that is not a string (``null``, a number) is left out of our context."""
    context = pi.get("context") if isinstance(pi, dict) else None
    if not isinstance(context, dict):
        return pi
    if isinstance(context.get("model"), dict):
        context["model"] = {key: value for key, value in context["model"].items() if isinstance(value, str)}
    if "thinkingLevel" in context and not isinstance(context["thinkingLevel"], str):
        del context["thinkingLevel"]
    return pi


def _all_as_pi(cases: list[tuple[str, bytes]], *, pi_may_throw: bool = False) -> None:
    """Pi reads each ``(case, data)`` as we do, asked in one Node process."""
    require_live_oracle()
    answers = run_oracle_many("session-context", [{"jsonl": data.decode("utf-8")} for _, data in cases])
    for (case, data), answer in zip(cases, answers, strict=True):
        try:
            _compare(data, *answer, pi_may_throw=pi_may_throw)
        except AssertionError as error:
            raise AssertionError(f"{case} (PI_FUZZ_SEED={SEED}): {error}") from None


def _compare(data: bytes, pi_code: int, pi: Any, *, pi_may_throw: bool) -> None:
    """Pi's answer ``pi`` (exit code ``pi_code``) on ``data`` is ours (an error in both counts as
    the same). ``pi_may_throw``: a file Pi throws on (a missing ``message``, a number where it
    wants text) we read our way."""
    text = data.decode("utf-8")
    if pi_may_throw and pi_code == 1:
        return
    try:
        ours: Any = session_context.run({"jsonl": text})
        our_code = 0
    except session_context.Rejected as error:
        ours, our_code = {"error": {"message": str(error)}}, 1
    if pi_code == 1 or our_code == 1:
        assert (our_code, pi_code) == (1, 1), (ours, pi)  # error wording is ours to choose
        return
    difference = deep_json.first_difference(deep_json.loads(deep_json.dumps(ours)), _documented(pi))
    assert difference is None, f"{difference}\nfile:\n{text}"


@pytest.mark.slow
@pytest.mark.timeout(120 + EXAMPLES // 2 + ORACLE_SAMPLE)  # the opt-in runs take longer
def test_the_loader_survives_any_file_and_reads_it_as_pi() -> None:
    print(f"PI_FUZZ_SEED={SEED}")
    comparable: list[bytes] = []

    @seed(SEED)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(session_files())
    def survives(generated: tuple[bytes, bool]) -> None:
        data, pi_reads_it_alike = generated
        record("fuzz_input", target="session loader")
        if has_odd_value(data):
            record("odd_value_file", target="session loader (random)")
        folder = Path(tempfile.mkdtemp(prefix="pi-fuzz-"))
        try:
            path = folder / "2026-01-01T00-00-00-000Z_fuzz.jsonl"
            path.write_bytes(data)
            _read_all(path)
            _write_once(path)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if pi_reads_it_alike:
            comparable.append(data)

    survives()
    # Shrunk examples repeat themselves: compare distinct files, a sample of this run's.
    distinct = list(dict.fromkeys(comparable))
    sample = random.Random(SEED).sample(distinct, min(ORACLE_SAMPLE, len(distinct)))
    _all_as_pi([(f"generated file {number}", data) for number, data in enumerate(sample)])
    for _ in sample:
        record("fuzz_oracle", target="session loader")


ODD_FILES = odd_files(SAMPLE_LINES) + odd_files(V1_LINES, numbers_compare=False)


@pytest.mark.timeout(300)
def test_a_lone_surrogate_or_a_huge_number_anywhere_in_any_line(tmp_path: Path) -> None:
    """Each key and value of each kind of line (v3 and v1 files, header included) holding a lone
    surrogate or a 400-digit number in turn: nothing escapes, and a sample (a new one each run,
    ``PI_FUZZ_SEED``) reads as in Pi."""
    print(f"PI_FUZZ_SEED={SEED}")
    for number, (case, data, _) in enumerate(ODD_FILES):
        path = tmp_path / str(number) / "2026-01-01T00-00-00-000Z_odd.jsonl"
        path.parent.mkdir()
        path.write_bytes(data)
        try:
            _read_all(path)
            _write_once(path)
        except BaseException as error:
            raise AssertionError(f"{case}: {type(error).__name__}: {error}") from error
        record("fuzz_input", target="session loader: lone surrogates, huge numbers (every position)")
        record("odd_value_file", target="session loader (every position)")
    comparable = [(case, data) for case, data, pi_reads_it_alike in ODD_FILES if pi_reads_it_alike]
    sample = random.Random(SEED).sample(comparable, min(ORACLE_SAMPLE, len(comparable)))
    _all_as_pi(sample, pi_may_throw=True)
    for _ in sample:
        record("fuzz_oracle", target="session loader: lone surrogates, huge numbers (every position)")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b"[" * 1200 + b"]" * 1200, "nesting deeper than Python holds"),
        (b'{"a":"\xff"}', "invalid UTF-8 in a string"),
        (
            b'{"type":"message","id":"e0","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
            b'"message":{"role":"user","content":"x","timestamp":1e400}}',
            "the listing's int(inf)",
        ),
        (
            b'{"type":"message","id":"e0","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
            b'"message":{"role":"user","content":"x","timestamp":9007199254740993}}',
            "the listing's datetime beyond year 9999",
        ),
        (
            b'{"type":"message","id":"e0","parentId":null,"timestamp":"t","message":{"role":{},"content":"x"}}',
            "a role that is no string (unhashable)",
        ),
    ],
)
def test_regressions_found_by_the_fuzz(tmp_path: Path, line: bytes, why: str) -> None:
    del why
    path = tmp_path / "2026-01-01T00-00-00-000Z_s.jsonl"
    path.write_bytes(
        b'{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/fuzz"}\n' + line + b"\n"
    )
    _read_all(path)
    _write_once(path)


def test_regression_the_name_of_an_entry_without_an_id_counts(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        b'{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n'
        b'{"type":"session_info","timestamp":"2026-01-01T00:00:01.000Z","name":" name "}\n'
    )
    assert SessionManager.open(str(path), read_only=True).get_session_name() == "name"  # as Pi


INDICES = ["9" * 400, "-" + "9" * 400, "1e400", "1.5", "-0"]
NULL_FIELDS = ["provider", "model"]


def _v1_file(index: str) -> str:
    return (
        '{"type":"session","id":"v1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'
        '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n'
        '{"type":"compaction","timestamp":"2025-01-01T00:00:02.000Z","summary":"s","firstKeptEntryIndex":INDEX,"tokensBefore":1}\n'
    ).replace("INDEX", index)


def _null_field_file(field: str) -> bytes:
    message = {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "api": "anthropic-messages",
               "provider": "openai", "model": "gpt", "timestamp": 1, field: None}  # fmt: skip
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        {
            "type": "message",
            "id": "a",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": message,
        },
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@pytest.fixture(scope="module")
def pi_reads() -> dict[str, tuple[int, Any]]:
    """Pi's answers for the files of the tests below, asked in two Node processes: the v1 files'
    migration, and every file's context."""
    require_live_oracle()
    migrated = run_oracle_many("session-migrate", [{"jsonl": _v1_file(index)} for index in INDICES])
    files = [_v1_file(index) for index in INDICES] + [_null_field_file(field).decode() for field in NULL_FIELDS]
    contexts = run_oracle_many("session-context", [{"jsonl": text} for text in files])
    answers = {f"migrate {index}": answer for index, answer in zip(INDICES, migrated, strict=True)}
    answers.update({f"context {text}": answer for text, answer in zip(files, contexts, strict=True)})
    return answers


@pytest.mark.parametrize("index", INDICES)
def test_a_v1_first_kept_index_beyond_any_array_migrates_as_in_pi(
    index: str, pi_reads: dict[str, tuple[int, Any]]
) -> None:
    """Pi reads a 400-digit index as Infinity: ``entries[Infinity]`` is undefined, so the
    compaction gets no ``firstKeptEntryId``; before, ours overflowed converting it to a float."""
    from conformance_cmds import session_migrate

    legacy = _v1_file(index)
    ours = session_migrate.run({"jsonl": legacy})
    compaction = ours["entries"][2]
    assert "firstKeptEntryIndex" not in compaction and "firstKeptEntryId" not in compaction
    assert "openError" not in ours
    _, pi = pi_reads[f"migrate {index}"]
    assert pi["entries"][2].keys() == compaction.keys()
    _compare(legacy.encode(), *pi_reads[f"context {legacy}"], pi_may_throw=False)


@pytest.mark.parametrize("field", NULL_FIELDS)
def test_an_assistant_with_a_null_provider_or_model_sets_no_model_field(
    field: str, pi_reads: dict[str, tuple[int, Any]]
) -> None:
    """Found by the fuzz above: ``"model": null`` read as the stand-in ``""`` became a model id;
    as a missing key, it is left out (the documented difference for values that are no text)."""
    data = _null_field_file(field)
    context = session_context.run({"jsonl": data.decode()})["context"]
    assert set(context["model"]) == {"provider", "modelId"} - {"modelId" if field == "model" else "provider"}
    _compare(data, *pi_reads[f"context {data.decode()}"], pi_may_throw=False)


def test_the_batched_oracle_answers_as_the_oracle_itself() -> None:
    """``run_oracle_many`` (the kept Node process) gives what the ``oracle`` wrapper gives: for a v1
    file whose migration draws ids after another's, the ids of a fresh process (the counter
    restarts)."""
    require_live_oracle()
    requests = [{"jsonl": _v1_file("1")}, {"jsonl": _v1_file("0")}]
    first, second = run_oracle_many("session-context", requests)
    assert second == run_oracle("session-context", requests[1], served=False)
    assert first[1]["entries"][0]["id"] == second[1]["entries"][0]["id"] == "00000001"


def test_the_kept_oracle_process_outlives_the_folder_it_was_started_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by CI: the kept Pi 1.6 process, first asked by a test that ran in a temporary folder,
    answered every later request with ``ENOENT ... uv_cwd`` once that folder was gone. It runs in
    the repository instead, whoever starts it."""
    require_live_oracle(current=True)
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    server = OracleServer(current=True)
    try:
        request = {"jsonl": _v1_file("0")}
        code, answer = server.ask("session-context", request, timeout=120)
    finally:
        server.close()
    monkeypatch.chdir(tmp_path)
    assert "error" not in answer, answer
    assert (code, answer) == run_oracle("session-context", request, current=True, served=False)
