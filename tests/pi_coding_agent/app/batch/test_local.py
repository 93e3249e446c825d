"""The local runner against a scripted provider on 127.0.0.1: every kind of outcome with its
exact result, diffs of scratch worktrees and of plain directories, re-runs, interrupted
tasks (resumed or restarted), Pi's retry rules, per-provider limits."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.app.batch import BatchOptions, BatchResult, ProviderLimit, load_results, run_batch
from pi_coding_agent.app.batch._layout import BatchLayout
from pi_coding_agent.app.batch._limits import LocalLimiter, merge_limits
from pi_coding_agent.app.batch._workspace import Workspace, task_diff
from tests.pi_coding_agent.app.batch._support import (
    MODEL,
    Sandbox,
    Scripts,
    assert_pi_reads_them_alike,
    git_repo,
    make_sandbox,
    read_jsonl,
)

COST_PER_TURN = (10 * 1.0 + 5 * 2.0) / 1_000_000  # 10 input, 5 output tokens at the sandbox prices


def _options(sandbox: Sandbox, **values: Any) -> BatchOptions:
    values.setdefault("out", str(sandbox.root / "results.jsonl"))
    return BatchOptions(agent_dir=str(sandbox.agent_dir), cwd=str(sandbox.work), **values)


def _task(task_id: str, *prompts: str, **fields: Any) -> dict[str, Any]:
    texts = [f"[task:{task_id}] {prompt}" for prompt in prompts or ("go",)]
    return {"id": task_id, "prompts": texts, "model": MODEL, **fields}


def _by_id(results: list[BatchResult]) -> dict[str, BatchResult]:
    return {result.id: result for result in results}


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": f"call_{name}", "name": name, "arguments": arguments}


def test_each_kind_of_task_ends_with_its_result(tmp_path: Path) -> None:
    scripts = Scripts(
        by_task={
            "answer": [{"text": "Forty-two."}],
            "edit": [{"tool_calls": [_call("edit", path="app.py", edits=[{"oldText": "1", "newText": "2"}])]},
                     {"tool_calls": [_call("write", path="notes.txt", content="new\n")]},
                     {"text": "Changed."}],
            "broken": [{"fail": [{"status": 500, "body": {"error": {"message": "server on fire"}}}], "text": "never"}],
            "slow": [{"text": "a long answer that streams slowly", "chunk_delay": 0.3}],
            "costly": [{"tool_calls": [_call("read", path="data.txt")]}, {"tool_calls": [_call("read", path="data.txt")]},
                       {"text": "never reached"}],
            "chat": [{"text": "first answer"}, {"text": "second answer"}],
        }
    )
    sandbox, provider = make_sandbox(tmp_path, scripts)
    (sandbox.work / "data.txt").write_text("data\n")
    commit = git_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    tasks = [
        _task("answer", metadata={"expected": "42"}),
        _task("edit", repo=str(tmp_path / "repo"), rev="main"),
        _task("broken"),
        _task("slow", timeout=0.5),
        _task("costly", budget={"tokens": 20}),
        _task("chat", "one", "two"),
    ]
    with provider:
        results = _by_id(list(run_batch(tasks, _options(sandbox, jobs=3))))

    answer = results["answer"]
    assert (answer.status, answer.answer, answer.error, answer.metadata) == ("ok", "Forty-two.", None, {"expected": "42"})
    assert (answer.turns, answer.tool_calls, answer.model, answer.attempt, answer.diff) == (1, 0, MODEL, 1, None)
    assert answer.usage.to_json() == {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                                      "cost": pytest.approx(COST_PER_TURN)}

    edit = results["edit"]
    assert (edit.status, edit.answer, edit.turns, edit.tool_calls, edit.tool_calls_by_name) == (
        "ok", "Changed.", 3, 2, {"edit": 1, "write": 1})
    assert edit.diff is not None
    assert "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n" in edit.diff
    assert "new file mode 100644" in edit.diff and "+++ b/notes.txt\n@@ -0,0 +1 @@\n+new\n" in edit.diff
    assert edit.usage.total_tokens == 45 and edit.usage.cost == pytest.approx(3 * COST_PER_TURN)
    header = read_jsonl(Path(edit.session_file or ""))[0]
    assert header["type"] == "session" and header["cwd"] == str(tmp_path / "run.batch" / "worktrees" / "edit").replace(
        "run.batch", "results.batch")
    assert not Path(header["cwd"]).exists()  # the scratch worktree is gone, its diff kept
    assert commit  # the worktree was at this revision: its diff starts there

    broken = results["broken"]
    assert (broken.status, broken.answer, broken.turns) == ("error", None, 1)
    assert broken.error is not None and "server on fire" in broken.error

    slow = results["slow"]
    assert (slow.status, slow.error) == ("timeout", "timed out after 0.5 s")

    costly = results["costly"]
    # Three assistant messages: two answered calls, then the aborted one that never went out.
    assert (costly.status, costly.turns, costly.tool_calls) == ("budget", 3, 2)
    assert costly.error == "budget of 20 tokens reached (30 tokens, $0.0000 used)"
    assert scripts.count("costly", 2) == 0  # stopped before the third model call

    chat = results["chat"]
    assert (chat.status, chat.answer, chat.turns) == ("ok", "second answer", 2)
    roles = [e["message"]["role"] for e in read_jsonl(Path(chat.session_file or "")) if e["type"] == "message"]
    assert roles == ["system", "user", "assistant", "user", "assistant"]

    recorded = read_jsonl(sandbox.root / "results.jsonl")
    assert sorted(line["id"] for line in recorded) == sorted(results)
    assert {line["id"]: line for line in recorded}["answer"] == answer.to_json()
    for result in results.values():
        assert result.session_file is not None and Path(result.session_file).is_file()
        assert Path(result.session_file).parent == sandbox.root / "results.batch" / "sessions" / result.id


def test_a_directory_task_diffs_only_its_own_changes(tmp_path: Path) -> None:
    scripts = Scripts(by_task={"fix": [{"tool_calls": [_call("write", path="src/new.py", content="print(1)\n")]},
                                       {"tool_calls": [_call("edit", path="README", edits=[{"oldText": "old", "newText": "new"}])]},
                                       {"text": "done"}]})
    sandbox, provider = make_sandbox(tmp_path, scripts)
    project = tmp_path / "project"
    git_repo(project, {"README": "old text\n", "kept.txt": "dirty before\n"})
    (project / "kept.txt").write_text("changed before the task\n")  # not the task's doing
    (project / ".gitignore").write_text("*.log\n")
    index_before = (project / ".git" / "index").read_bytes()
    with provider:
        [result] = list(run_batch([_task("fix", cwd=str(project))], _options(sandbox)))
    assert result.status == "ok" and result.diff is not None
    assert "kept.txt" not in result.diff
    assert "+++ b/src/new.py\n@@ -0,0 +1 @@\n+print(1)\n" in result.diff
    assert "-old text\n+new text\n" in result.diff
    assert (project / ".git" / "index").read_bytes() == index_before
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True, check=True)
    assert status.stdout.splitlines() == [" M README", " M kept.txt", "?? .gitignore", "?? src/"]


def test_a_rerun_skips_finished_tasks_and_retry_failed_runs_failures_again(tmp_path: Path) -> None:
    scripts = Scripts(by_task={"good": [{"text": "fine"}], "flaky": [{"fail": [{"status": 500}], "text": "better now"}]})
    sandbox, provider = make_sandbox(tmp_path, scripts)
    tasks = [_task("good"), _task("flaky")]
    with provider:
        first = _by_id(list(run_batch(tasks, _options(sandbox))))
        assert (first["good"].status, first["flaky"].status) == ("ok", "error")
        requests = len(provider.requests)
        assert list(run_batch(tasks, _options(sandbox))) == []
        assert len(provider.requests) == requests
        again = list(run_batch(tasks, _options(sandbox, retry_failed=True)))
    assert [(r.id, r.status, r.answer, r.attempt) for r in again] == [("flaky", "ok", "better now", 2)]
    assert again[0].session_file != first["flaky"].session_file
    assert [line["id"] for line in read_jsonl(sandbox.root / "results.jsonl")] in (
        ["good", "flaky", "flaky"], ["flaky", "good", "flaky"])
    latest = load_results(str(sandbox.root / "results.jsonl"))
    assert {k: v.status for k, v in latest.items()} == {"good": "ok", "flaky": "ok"}


def test_a_session_that_finished_unrecorded_is_not_run_again(tmp_path: Path) -> None:
    """The runner died after the last answer reached the session file, before the result line."""
    scripts = Scripts(by_task={"done": [{"tool_calls": [_call("ls")]}, {"text": "all done"}]})
    sandbox, provider = make_sandbox(tmp_path, scripts)
    results = sandbox.root / "results.jsonl"
    with provider:
        [first] = list(run_batch([_task("done")], _options(sandbox)))
        results.write_text("")  # as if the crash came before the line was written
        requests = len(provider.requests)
        [harvested] = list(run_batch([_task("done")], _options(sandbox)))
    assert len(provider.requests) == requests
    assert (harvested.status, harvested.answer, harvested.turns, harvested.attempt) == ("ok", "all done", 2, 2)
    assert harvested.session_file == first.session_file and harvested.usage == first.usage


@pytest.mark.parametrize("worktree_left", [True, False])
def test_a_repo_task_cut_off_while_cleaning_up_keeps_its_diff(tmp_path: Path, worktree_left: bool) -> None:
    """The runner died after the result was kept in the state folder, before the result line:
    while the worktree was being removed (it may still be there) or just after."""
    scripts = Scripts(by_task={"edit": [{"tool_calls": [_call("write", path="new.txt", content="new\n")]}, {"text": "edited"}]})
    sandbox, provider = make_sandbox(tmp_path, scripts)
    git_repo(tmp_path / "repo", {"base.txt": "base\n"})
    results = sandbox.root / "results.jsonl"
    state = sandbox.root / "results.batch"
    task = _task("edit", repo=str(tmp_path / "repo"))
    with provider:
        [first] = list(run_batch([task], _options(sandbox)))
        assert first.diff is not None and "+++ b/new.txt" in first.diff
        results.write_text("")
        BatchLayout(str(state)).write_finished(first)
        [clone] = (state / "repos").glob("*.git")
        if worktree_left:
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(state / "worktrees" / "edit"), "HEAD"],
                           cwd=clone, check=True)
        requests = len(provider.requests)
        [again] = list(run_batch([task], _options(sandbox)))
    assert len(provider.requests) == requests and again == first
    assert load_results(str(results)) == {"edit": first}
    assert list((state / "worktrees").iterdir()) == [] and list((state / "finished").iterdir()) == []
    listed = subprocess.run(["git", "worktree", "list"], cwd=clone, capture_output=True, text=True, check=True).stdout
    assert len(listed.splitlines()) == 1  # the bare clone alone


async def _interrupt_at(sandbox: Sandbox, tasks: list[dict[str, Any]], reached: threading.Event, **options: Any) -> None:
    """Run until ``reached`` is set (on the provider's thread), then end the run as a signal does."""
    run = run_batch(tasks, _options(sandbox, **options))

    async def consume() -> list[BatchResult]:
        return [result async for result in run]

    consumer = asyncio.ensure_future(consume())
    await asyncio.to_thread(reached.wait, 60)
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer


@pytest.mark.oracle
@pytest.mark.parametrize("mode", ["resume", "restart"])
def test_an_interrupted_task_resumes_or_restarts(tmp_path: Path, mode: str) -> None:
    reached = threading.Event()
    hold = threading.Event()

    def before(task: str, turn: int) -> None:
        if task == "long" and turn == 2 and not hold.is_set():
            reached.set()  # the second prompt has gone out: interrupt here, once
            hold.set()
            time.sleep(0.5)

    scripts = Scripts(
        by_task={"long": [{"tool_calls": [_call("write", path="step1.txt", content="1\n")]}, {"text": "step one done"},
                          {"text": "step two done"}]},
        before=before,
    )
    sandbox, provider = make_sandbox(tmp_path, scripts)
    git_repo(tmp_path / "repo", {"base.txt": "base\n"})
    task = _task("long", "first", "second", repo=str(tmp_path / "repo"))
    with provider:
        asyncio.run(_interrupt_at(sandbox, [task], reached, interrupted=mode))
        assert not (sandbox.root / "results.jsonl").read_text()
        [result] = list(run_batch([task], _options(sandbox, interrupted=mode)))
    assert (result.status, result.answer, result.attempt) == ("ok", "step two done", 2)
    sessions = sorted((sandbox.root / "results.batch" / "sessions" / "long").glob("*.jsonl"))
    entries = [e for e in read_jsonl(Path(result.session_file or "")) if e["type"] == "message"]
    messages = [e["message"] for e in entries]
    if mode == "resume":
        # One session: the first prompt's turns are kept; the second prompt was sent once, and
        # the agent went on from it (its answer asked for again).
        assert len(sessions) == 1 and scripts.count("long", 0) == 1 and scripts.count("long", 2) == 2
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "toolResult", "assistant", "user", "assistant"]
        assert [m["content"][0]["text"] for m in messages if m["role"] == "user"] == ["[task:long] first", "[task:long] second"]
    else:
        assert len(sessions) == 2 and scripts.count("long", 0) == 2
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "toolResult", "assistant", "user", "assistant"]
    assert result.diff is not None and "+++ b/step1.txt" in result.diff
    assert_pi_reads_them_alike(sessions)


@pytest.mark.oracle
def test_resume_goes_on_from_the_last_tool_results(tmp_path: Path) -> None:
    """Cut off while the model was asked for its second turn: resuming keeps the first turn and
    its tool result, drops the turn that never came, and asks for it again."""
    reached = threading.Event()

    def before(task: str, turn: int) -> None:
        if task == "steps" and turn == 1 and not reached.is_set():
            reached.set()
            time.sleep(0.5)

    scripts = Scripts(
        by_task={"steps": [{"tool_calls": [_call("write", path="a.txt", content="a\n")]},
                           {"tool_calls": [_call("write", path="b.txt", content="b\n")]}, {"text": "both written"}]},
        before=before,
    )
    sandbox, provider = make_sandbox(tmp_path, scripts)
    git_repo(tmp_path / "repo", {"base.txt": "base\n"})
    task = _task("steps", repo=str(tmp_path / "repo"))
    with provider:
        asyncio.run(_interrupt_at(sandbox, [task], reached, interrupted="resume"))
        [result] = list(run_batch([task], _options(sandbox, interrupted="resume")))
    assert (result.status, result.answer, result.attempt, result.turns) == ("ok", "both written", 2, 3)
    assert [scripts.count("steps", turn) for turn in range(3)] == [1, 2, 1]
    messages = [e["message"] for e in read_jsonl(Path(result.session_file or "")) if e["type"] == "message"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]
    assert result.diff is not None and "+++ b/a.txt" in result.diff and "+++ b/b.txt" in result.diff
    assert_pi_reads_them_alike([Path(result.session_file or "")])  # the cut-off turn on a side branch


@pytest.mark.oracle
def test_resume_retries_the_continued_call_with_pi_settings(tmp_path: Path) -> None:
    """The call that goes on from a cut-off prompt follows the session's retry settings too:
    retried with them, made once without them."""
    reached = {"steps": threading.Event(), "again": threading.Event()}
    release = {"steps": threading.Event(), "again": threading.Event()}

    def before(task: str, turn: int) -> None:
        if task in reached and turn == 1 and not reached[task].is_set():
            reached[task].set()
            release[task].wait(30)  # the cut-off request is answered only after the resumed run

    overloaded = {"status": 429, "body": {"error": {"message": "rate limited, slow down"}}}
    first = {"tool_calls": [_call("write", path="a.txt", content="a\n")]}
    scripts = Scripts(
        by_task={"steps": [first, {"fail": [overloaded, overloaded], "tool_calls": [_call("write", path="b.txt", content="b\n")]},
                           {"text": "both written"}],
                 "again": [first, {"fail": [overloaded], "text": "x"}]},
        before=before,
    )
    sandbox, provider = make_sandbox(tmp_path, scripts, {"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 10}})
    with provider:
        asyncio.run(_interrupt_at(sandbox, [_task("steps")], reached["steps"], interrupted="resume"))
        [result] = list(run_batch([_task("steps")], _options(sandbox, interrupted="resume")))
        release["steps"].set()
        sandbox.write_settings({"retry": {"enabled": False}})
        asyncio.run(_interrupt_at(sandbox, [_task("again")], reached["again"], interrupted="resume"))
        [failed] = list(run_batch([_task("again")], _options(sandbox, interrupted="resume")))
        release["again"].set()
    assert (result.status, result.answer, result.attempt, result.turns) == ("ok", "both written", 2, 5)
    assert [scripts.count("steps", turn) for turn in range(3)] == [1, 4, 1]  # cut off, two failures, the answer
    messages = [e["message"] for e in read_jsonl(Path(result.session_file or "")) if e["type"] == "message"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "toolResult", "assistant", "assistant", "assistant",
                                             "toolResult", "assistant"]
    assert [m.get("stopReason") for m in messages[4:6]] == ["error", "error"]
    assert (failed.status, failed.attempt) == ("error", 2) and "rate limited" in (failed.error or "")
    assert scripts.count("again", 1) == 2  # the cut-off request and one more
    assert_pi_reads_them_alike([Path(result.session_file or ""), Path(failed.session_file or "")])


def test_transient_errors_are_retried_with_pi_settings(tmp_path: Path) -> None:
    overloaded = {"status": 429, "body": {"error": {"message": "rate limited, slow down"}}}
    scripts = Scripts(by_task={"busy": [{"fail": [overloaded, overloaded], "text": "made it"}]})
    sandbox, provider = make_sandbox(tmp_path, scripts, {"retry": {"enabled": True, "maxRetries": 3, "baseDelayMs": 10}})
    with provider:
        [result] = list(run_batch([_task("busy")], _options(sandbox)))
        assert (result.status, result.answer) == ("ok", "made it")
        assert scripts.count("busy", 0) == 3
        # The same with retries off for this task alone (its own settings win over settings.json).
        scripts.by_task["once"] = [{"fail": [overloaded], "text": "too late"}]
        [failed] = list(run_batch([_task("once", settings={"retry": {"enabled": False}})], _options(sandbox)))
    assert failed.status == "error" and "rate limited" in (failed.error or "")
    assert scripts.count("once", 0) == 1


def test_provider_limits_hold_across_tasks(tmp_path: Path) -> None:
    lock = threading.Lock()
    active = [0]
    peak = [0]
    starts: list[float] = []

    def before(_task: str, _turn: int) -> None:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
            starts.append(time.monotonic())
        time.sleep(0.3)
        with lock:
            active[0] -= 1

    scripts = Scripts(default=[{"text": "ok"}], before=before)
    sandbox, provider = make_sandbox(tmp_path, scripts)
    tasks = [_task(f"t{i}") for i in range(6)]
    limits = {"scripted-openai": ProviderLimit(concurrency=2)}
    with provider:
        results = list(run_batch(tasks, _options(sandbox, jobs=6, rate_limits=limits)))
        assert [r.status for r in results] == ["ok"] * 6 and peak[0] == 2
        starts.clear()
        paced = {"scripted-openai": ProviderLimit(requests_per_minute=300)}  # one start every 0.2 s
        began = time.monotonic()
        results = list(run_batch([_task(f"p{i}") for i in range(3)], _options(sandbox, out=None, jobs=3, rate_limits=paced)))
    assert [r.status for r in results] == ["ok"] * 3 and len(starts) == 3
    # The third request may not start before two intervals have passed (a lower bound only:
    # a busy machine can only make it later).
    assert max(starts) - began >= 0.4


async def test_the_rate_limiter_spaces_starts_and_frees_slots() -> None:
    limiter = LocalLimiter({"p": ProviderLimit(concurrency=1, requests_per_minute=600)})
    assert limiter.limits("p") and not limiter.limits("other")
    granted: list[float] = []

    async def request() -> None:
        await limiter.acquire("p")
        granted.append(time.monotonic())
        await asyncio.sleep(0.01)
        await limiter.release("p")

    began = time.monotonic()
    await asyncio.gather(*(request() for _ in range(4)))
    # 600/min: the k-th start is due 0.1 s * k after the first. A late wake-up only makes a
    # start later (so two neighbours may be closer than 0.1 s); none may come early (the
    # event loop may wake a sleeper up to its clock resolution early: a millisecond allowed).
    assert len(granted) == 4
    assert all(at - began >= 0.1 * k - 0.001 for k, at in enumerate(granted))
    await limiter.acquire("other")  # unlimited providers never wait


def test_system_prompt_tools_and_model_reach_the_request(tmp_path: Path) -> None:
    scripts = Scripts(by_task={"setup": [{"text": "ok"}]})
    sandbox, provider = make_sandbox(tmp_path, scripts)
    (sandbox.work / "AGENTS.md").write_text("Project rule: tabs.\n")
    task = _task("setup", tools=["read", "grep"], appendSystemPrompt=["Extra rule one.", "Extra rule two."])
    replaced = _task("setup", id="own", systemPrompt="You are a terse bot.", tools=[])
    replaced["prompts"] = ["[task:setup] again"]
    with provider:
        [result] = list(run_batch([task], _options(sandbox)))
        first = provider.requests[-1]["body"]
        [again] = list(run_batch([replaced], _options(sandbox)))
    assert result.status == "ok" and again.status == "ok"
    body = first
    system = body["messages"][0]
    assert system["role"] == "system"
    assert "Extra rule one." in system["content"] and "Extra rule two." in system["content"]
    assert "Project rule: tabs." in system["content"]
    assert [tool["function"]["name"] for tool in body["tools"]] == ["read", "grep"]
    assert body["model"] == "scripted-model"
    body = provider.requests[-1]["body"]
    assert body["messages"][0]["content"].startswith("You are a terse bot.") and "tools" not in body


def test_sync_iteration_is_refused_inside_a_loop(tmp_path: Path) -> None:
    async def inside() -> None:
        with pytest.raises(RuntimeError, match="inside an event loop use `async for result in run_batch"):
            list(run_batch([{"prompt": "x"}], BatchOptions(state_dir=str(tmp_path))))

    asyncio.run(inside())


def test_a_bad_working_directory_is_an_error_result(tmp_path: Path) -> None:
    sandbox, provider = make_sandbox(tmp_path, Scripts())
    tasks = [_task("nowhere", cwd=str(tmp_path / "missing")), _task("norepo", repo=str(tmp_path / "work"))]
    with provider:
        results = _by_id(list(run_batch(tasks, _options(sandbox))))
    assert results["nowhere"].status == "error"
    assert results["nowhere"].error == f"working directory {tmp_path / 'missing'} does not exist"
    assert results["norepo"].status == "error" and results["norepo"].error == f"repo {tmp_path / 'work'} is not a git repository"
    assert provider.requests == []
    assert json.loads((sandbox.root / "results.jsonl").read_text().splitlines()[0])["status"] == "error"


def test_rate_limit_options_combine_per_provider() -> None:
    assert merge_limits(["openai=4", "openai=90/min", "anthropic=2/s"]) == {
        "openai": ProviderLimit(concurrency=4, requests_per_minute=90.0),
        "anthropic": ProviderLimit(requests_per_minute=120.0),
    }
    with pytest.raises(ValueError, match="requests at once must be a whole number"):
        merge_limits(["openai=1.5"])


def test_an_edit_in_the_second_of_the_checkout_is_in_the_diff(tmp_path: Path) -> None:
    """Git trusts a cached file's stat only when the file is older than the index; the diff's
    snapshot works on a copy of the index, which must keep that age. The edit keeps the size
    and lands in the second of the checkout; the diff is taken a second later."""
    for attempt in range(5):
        repo = tmp_path / f"repo{attempt}"
        commit = git_repo(repo, {"app.py": "x = 1\n"})
        (repo / "app.py").write_text("x = 2\n")
        index_second = (repo / ".git" / "index").stat().st_mtime_ns // 10**9
        if (repo / "app.py").stat().st_ctime_ns // 10**9 == index_second:
            break
    else:
        pytest.fail("could not edit within the second of the checkout")
    time.sleep(max(0.0, index_second + 1.05 - time.time()))
    diff = asyncio.run(task_diff(Workspace(str(repo), str(repo), commit)))
    assert diff is not None and "-x = 1\n+x = 2\n" in diff
