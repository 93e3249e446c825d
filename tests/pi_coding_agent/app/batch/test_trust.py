"""Batch tasks never borrow trust: ``pi batch`` (a real CLI process, a scripted provider on
127.0.0.1) runs from inside a folder saved as trusted, on a git repository and on plain
folders that carry a ``.pi/settings.json`` whose ``shellPath`` logs each command it runs,
a ``.pi/extensions`` file that logs its import, a ``.pi/skills`` skill and a
``.pi/APPEND_SYSTEM.md``. Without an opt-in none of them is obeyed (the scratch checkout sits
under the trusted folder, so an inherited decision would have trusted it, and the global
``defaultProjectTrust`` is ``always``); with ``"approve": true`` or ``pi batch --approve``
the project's settings, skills and prompt files apply (extensions never run in batch
tasks); a decision saved for a task's own folder counts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from pi_coding_agent.app.batch._session_setup import UNTRUSTED_NOTICE
from tests.pi_coding_agent.app.batch._support import MODEL, Scripts, git_repo, make_sandbox, read_jsonl
from tests.reliability.figures import record
from tests.support.oracle import REPO
from tests.support.scripted_provider import ScriptedProvider

PI = REPO / ".venv" / "bin" / "pi"
SKILL = "probe-skill"
APPEND_MARK = "PROJECT-APPEND-MARK"
RESOURCES = ("shellPath", "extension", "skill", "APPEND_SYSTEM.md")


def _project_files(shell: Path, extension_log: Path) -> dict[str, str]:
    return {
        "README.md": "a third-party project\n",
        ".pi/settings.json": json.dumps({"shellPath": str(shell)}),
        ".pi/extensions/probe.py": (
            f"with open({str(extension_log)!r}, 'a') as log:\n    log.write(__file__ + '\\n')\n\n\n"
            "def setup(pi):\n    pass\n"
        ),
        f".pi/skills/{SKILL}/SKILL.md": f"---\nname: {SKILL}\ndescription: Offered only in a trusted project.\n---\nx\n",
        ".pi/APPEND_SYSTEM.md": f"{APPEND_MARK}\n",
    }


def _plain_folder(path: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    return str(path)


class _Bench:
    """A sandbox whose work folder is saved as trusted in ``trust.json`` and whose global
    settings say ``defaultProjectTrust: always`` (neither may reach a task), holding a git
    repository and plain folders with trust-requiring ``.pi`` resources."""

    def __init__(self, tmp_path: Path, task_ids: list[str]) -> None:
        # Each task runs `echo task-<id>` with bash, then answers.
        scripts = Scripts(by_task={
            task_id: [{"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": f"echo task-{task_id}"}}]},
                      {"text": f"{task_id} done"}]
            for task_id in task_ids
        })
        settings = {"retry": {"enabled": False}, "defaultProjectTrust": "always"}
        self.sandbox, self.provider = make_sandbox(tmp_path, scripts, settings)
        self.shell_log = tmp_path / "shell.log"
        self.extension_log = tmp_path / "extension.log"
        shell = tmp_path / "probe-shell.sh"
        shell.write_text(f'#!/bin/sh\necho "$PWD $*" >> {self.shell_log}\nexec /bin/sh "$@"\n')
        shell.chmod(0o755)
        self.files = _project_files(shell, self.extension_log)
        self.work = self.sandbox.work
        self.trust({str(self.work): True})

    def trust(self, decisions: dict[str, bool]) -> None:
        (self.sandbox.agent_dir / "trust.json").write_text(json.dumps(decisions), encoding="utf-8")

    def run(self, tasks: list[dict[str, Any]], name: str, *flags: str) -> dict[str, dict[str, Any]]:
        """``pi batch`` in the trusted folder; its results by task id."""
        task_file = self.work / f"{name}.jsonl"
        task_file.write_text("".join(json.dumps({"prompt": f"[task:{t['id']}] go", "model": MODEL, **t}) + "\n"
                                     for t in tasks))
        out = self.work / f"{name}-results.jsonl"
        done = subprocess.run([str(PI), "batch", str(task_file), "--out", str(out), "--no-progress", *flags],
                              cwd=self.work, env=self.sandbox.env(), capture_output=True, text=True, timeout=120,
                              check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        return {line["id"]: line for line in read_jsonl(out)}

    def obeyed(self, task_id: str) -> set[str]:
        """Which of the project's resources the task used."""
        found = set()
        if self.shell_log.exists() and f"task-{task_id}" in self.shell_log.read_text():
            found.add("shellPath")
        if self.extension_log.exists():
            found.add("extension")  # no batch task loads extensions: any import counts against every task
        system = _system_prompts(self.provider, task_id)
        assert system, f"no request of {task_id} reached the provider"
        if any(f"<name>{SKILL}</name>" in text for text in system):
            found.add("skill")
        if any(APPEND_MARK in text for text in system):
            found.add("APPEND_SYSTEM.md")
        return found


def _system_prompts(provider: ScriptedProvider, task_id: str) -> list[str]:
    prompts = []
    for request in provider.requests:
        messages = request["body"].get("messages") or []
        if f"[task:{task_id}]" in json.dumps(messages):
            prompts += [str(m.get("content")) for m in messages if m.get("role") in ("system", "developer")]
    return prompts


def _check(bench: _Bench, results: dict[str, dict[str, Any]], expected: dict[str, set[str]], figure: str) -> None:
    """Every task ended ok, used exactly the resources expected, and an untrusted one says why."""
    untrusted = [task_id for task_id, used in expected.items() if not used]
    obeyed = {task_id: bench.obeyed(task_id) for task_id in expected}
    record(figure, tasks=len(results), untrusted=len(untrusted),
           obeyed_untrusted=sum(len(obeyed[task_id]) for task_id in untrusted),
           obeyed_approved=sum(len(used) for task_id, used in obeyed.items() if task_id not in untrusted))
    assert {task_id: r["status"] for task_id, r in results.items()} == dict.fromkeys(expected, "ok")
    assert obeyed == expected
    for task_id in expected:
        assert (UNTRUSTED_NOTICE in results[task_id]["warnings"]) == (task_id in untrusted), results[task_id]


APPROVED = {"shellPath", "skill", "APPEND_SYSTEM.md"}
"""What an approved task uses: its project's settings, skills and system prompt files (batch
tasks run no extensions, trusted or not)."""


def test_repo_and_directory_tasks_trust_only_what_they_are_told(tmp_path: Path) -> None:
    ids = ["repo-plain", "repo-approved", "dir-plain", "dir-approved", "dir-own-decision", "dir-overridden"]
    bench = _Bench(tmp_path, ids)
    repo = bench.work / "third-party"
    git_repo(repo, bench.files)
    plain = _plain_folder(bench.work / "plain", bench.files)
    own = _plain_folder(bench.work / "own", bench.files)
    refused = _plain_folder(bench.work / "refused", bench.files)
    # The work folder (and so the state folder under it) is trusted; `own` has a decision of its
    # own, and `refused` one that an explicit approval overrides, as `pi -a` overrides it.
    bench.trust({str(bench.work): True, own: True, refused: False})
    tasks = [
        {"id": "repo-plain", "repo": str(repo)},
        {"id": "repo-approved", "repo": str(repo), "approve": True},
        {"id": "dir-plain", "cwd": plain},
        {"id": "dir-approved", "cwd": plain, "approve": True},
        {"id": "dir-own-decision", "cwd": own},
        {"id": "dir-overridden", "cwd": refused, "approve": True},
    ]
    with bench.provider:
        results = bench.run(tasks, "tasks")
    checkout = Path(json.loads(Path(results["repo-plain"]["sessionFile"]).read_text().splitlines()[0])["cwd"])
    assert checkout.is_relative_to(bench.work)  # the scratch checkout sits inside the trusted folder
    expected = {"repo-plain": set(), "repo-approved": APPROVED, "dir-plain": set(), "dir-approved": APPROVED,
                "dir-own-decision": APPROVED, "dir-overridden": APPROVED}
    _check(bench, results, expected, "batch_trust")


def test_the_run_flag_approves_tasks_that_do_not_say_otherwise(tmp_path: Path) -> None:
    ids = ["flag-repo", "flag-refused", "flag-dir"]
    bench = _Bench(tmp_path, ids)
    repo = bench.work / "third-party"
    git_repo(repo, bench.files)
    plain = _plain_folder(bench.work / "plain", bench.files)
    own = _plain_folder(bench.work / "own", bench.files)
    bench.trust({str(bench.work): True, own: True})
    tasks = [
        {"id": "flag-repo", "repo": str(repo)},
        {"id": "flag-refused", "repo": str(repo), "approve": False},
        {"id": "flag-dir", "cwd": plain},
    ]
    with bench.provider:
        approved = bench.run(tasks, "approve", "--approve")
    _check(bench, approved, {"flag-repo": APPROVED, "flag-refused": set(), "flag-dir": APPROVED}, "batch_trust")


def test_no_approve_ignores_even_a_folders_own_decision(tmp_path: Path) -> None:
    bench = _Bench(tmp_path, ["own-refused"])
    own = _plain_folder(bench.work / "own", bench.files)
    bench.trust({str(bench.work): True, own: True})
    with bench.provider:
        results = bench.run([{"id": "own-refused", "cwd": own}], "refuse", "--no-approve")
    _check(bench, results, {"own-refused": set()}, "batch_trust")


def test_unreadable_trust_decisions_leave_the_task_untrusted_and_say_so(tmp_path: Path) -> None:
    bench = _Bench(tmp_path, ["bad-trust-file"])
    plain = _plain_folder(bench.work / "plain", bench.files)
    trust_file = bench.sandbox.agent_dir / "trust.json"
    trust_file.write_text('{"/somewhere": "yes"}')
    with bench.provider:
        results = bench.run([{"id": "bad-trust-file", "cwd": plain}], "bad")
    _check(bench, results, {"bad-trust-file": set()}, "batch_trust")
    assert results["bad-trust-file"]["warnings"][0] == (
        f"Cannot read trust decisions ({trust_file}: value for '/somewhere' must be true, false, or null); "
        "project settings are ignored"
    )
    assert trust_file.read_text() == '{"/somewhere": "yes"}'  # never rewritten
