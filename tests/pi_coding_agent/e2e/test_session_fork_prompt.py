"""``--session <id>`` of another project's session: Pi's question "Fork this session into
current directory? [y/N]" read from stdin. ``y`` forks (a new session here whose
``parentSession`` is the original), ``n`` says "Aborted.", end of input stops quietly; both
exit 0. Side by side with Pi 0.85, one Pi run and one of ours per answer."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(300)

QUESTION = "Session found in different project: {cwd}\nFork this session into current directory? [y/N] "


@pytest.mark.parametrize("answer", ["", "n\n", "y\n"], ids=["end-of-input", "no", "yes"])
def test_another_project_s_session_is_offered_as_a_fork(tmp_path: Path, answer: str) -> None:
    results = {}
    for which, run in (("pi", run_pi), ("ours", run_ours)):
        with ScriptedProvider([{"text": "first"}, {"text": "second"}]) as provider:
            sandbox = Sandbox.create(tmp_path / which, provider.base_url)
            assert run_ours(sandbox, "-p", "hello").returncode == 0
            [original] = sandbox.session_files()
            session_id = json.loads(original.read_text(encoding="utf-8").splitlines()[0])["id"]
            elsewhere = sandbox.root / "elsewhere"
            elsewhere.mkdir()
            done = run(
                dataclasses.replace(sandbox, work=elsewhere),
                "-p",
                "--session",
                session_id,
                "again",
                stdin=answer,
            )
            forks = [path for path in sandbox.session_files() if path != original]
            headers = [json.loads(path.read_text(encoding="utf-8").splitlines()[0]) for path in forks]
            results[which] = (
                done.returncode,
                done.stderr.replace(str(sandbox.work), "<cwd>"),
                [(h["cwd"] == str(elsewhere), h["parentSession"] == str(original)) for h in headers],
            )
    question = QUESTION.format(cwd="<cwd>")
    expected_stderr = question + ("Aborted.\n" if answer == "n\n" else "")
    assert results["ours"] == results["pi"] == (0, expected_stderr, [(True, True)] if answer == "y\n" else [])
