"""The README's command on a machine with nothing configured: the embedded model answers and does a
tool task, with no network at all (a network namespace of its own); the next run in that folder
reads the system prompt's evaluated state from disk; and ``--provider local``.

Uses the embedded models from pi's cache (``./test`` sets them up first; CI keeps the cache).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, REPO, Sandbox, run_ours
from tests.support.local_model import (
    DEFAULT_MODEL,
    SMALL_MODEL,
    cache_env,
    kept_cache_env,
    kept_work_folder,
    model_file,
    require_runtime,
    require_source_runtime,
)

pytestmark = pytest.mark.slow

ANNOUNCEMENT = "pi: no provider configured: embedded model local/qwen2.5-coder-0.5b (offline)"


def _offline_pi(
    tmp_path: Path, *prompts: str, model: str = SMALL_MODEL, work: Path | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    """``./pi -p PROMPT...`` from a fresh folder (``work``, else ``tmp_path/work``): no keys, no
    agent folder, no network."""
    if extra.get("PI_LOCAL_RUNTIME") == "source":
        require_source_runtime()
    else:
        require_runtime()
    model_file(model)
    work = work or tmp_path / "work"
    work.mkdir(exist_ok=True)
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    env = {
        **keep, **cache_env(), "HOME": str(tmp_path / "home"), "PI_CODING_AGENT_DIR": str(tmp_path / "no-agent-dir"),
        "PI_LOCAL_MODEL": model, **extra,
    }
    isolate = ["unshare", "--net"] if shutil.which("unshare") and os.geteuid() == 0 else []
    return subprocess.run(
        [*isolate, str(REPO / "pi"), "-p", *prompts], cwd=work, env=env, capture_output=True, text=True,
        timeout=900, check=False,
    )


TOOL_TASK = "Create a file named hello.txt whose only content is: hi"


@pytest.mark.timeout(900)
@pytest.mark.parametrize("runtime", ["prebuilt", "source"])
def test_a_fresh_machine_gets_a_tool_task_done_and_an_answer_from_the_embedded_model(tmp_path: Path, runtime: str) -> None:
    """One run, two prompts (the second reuses the evaluated system prompt): the file is written,
    and the printed answer (the last one's) is right; with the default (prebuilt) runtime and with
    the source build that machines without a fitting wheel get.

    The source build runs the same code over another library, so its run offers only the one tool
    the task needs (``--tools write``): a system prompt of about 600 tokens instead of 1 400, the
    same path (library load, chat template, a grammar-constrained tool call, the answer). It runs
    in a kept folder (``kept_work_folder``), so after a machine's first session its system
    prompt's state is read from pi's cache; the prebuilt run's folder is new each time, since its
    second run checks that the first one evaluated that state and kept it."""
    if runtime == "source":
        with kept_work_folder("source-tool-task") as work:
            _the_tool_task_and_the_answer(
                tmp_path, work, "--tools", "write", PI_LOCAL_RUNTIME="source", **kept_cache_env()
            )
        return
    _the_tool_task_and_the_answer(tmp_path, tmp_path / "work")
    _the_next_run_reads_the_system_prompts_state_from_disk(tmp_path)


def _the_tool_task_and_the_answer(tmp_path: Path, work: Path, *tools: str, **extra: str) -> None:
    result = _offline_pi(tmp_path, *tools, TOOL_TASK, "What is 2 + 3? Reply with the number only.", work=work, **extra)
    assert result.returncode == 0, result.stderr
    assert (work / "hello.txt").read_text().strip() == "hi"
    assert [line for line in result.stderr.splitlines() if line.startswith("pi: no provider")] == [ANNOUNCEMENT]
    assert len(ANNOUNCEMENT) < 80
    assert "5" in result.stdout
    assert not (tmp_path / "no-agent-dir" / "models.json").exists()


def _the_next_run_reads_the_system_prompts_state_from_disk(tmp_path: Path) -> None:
    """A second ``pi -p`` in the same folder, with the first run's first prompt: the first run
    evaluated the system prompt and tools and kept their KV state; this one reads it (``cacheRead``
    of its first turn), counts the same prompt tokens, and does the task again."""
    (first_session,) = (tmp_path / "no-agent-dir" / "sessions").rglob("*.jsonl")
    entries = [json.loads(line) for line in first_session.read_text().splitlines()]
    before = next(e["message"]["usage"] for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant")
    (tmp_path / "work" / "hello.txt").unlink()
    run = _offline_pi(tmp_path, "--mode", "json", TOOL_TASK)
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    messages = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    after = messages[0]["usage"]
    assert before["cacheRead"] == 0
    assert after["cacheRead"] >= 256 and after["input"] < before["input"] - 256
    assert after["cacheRead"] + after["input"] == before["input"]
    assert (tmp_path / "work" / "hello.txt").read_text().strip() == "hi"


@pytest.mark.timeout(900)
def test_the_readmes_question_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    """The README's first command with the default embedded model (the 1.5B): on a fresh machine
    it answered "What is 17 + 25?" by writing ``sum.txt`` into the empty folder and narrating "the
    task" (issue 27). A question that asks for no change gets no file written (the write guard
    refuses it) and an answer with the sum. One prompt, from a kept folder: the system prompt's
    state is read from pi's cache after the first run on a machine (``kept_work_folder``)."""
    with kept_work_folder("readme-question") as work:
        result = _offline_pi(tmp_path, "What is 17 + 25?", model=DEFAULT_MODEL, work=work, **kept_cache_env())
        assert result.returncode == 0, result.stderr
        assert list(work.iterdir()) == []
    assert "42" in result.stdout
    assert "the task" not in result.stdout.lower()


@pytest.mark.timeout(900)
def test_provider_local_wins_over_configured_providers(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")  # a provider with a key, never reached
    result = run_ours(sandbox, "--provider", "local", "--no-tools", "--mode", "json", "-p", "Say OK.", timeout=600,
                      **cache_env(), PI_LOCAL_MODEL=SMALL_MODEL)
    assert result.returncode == 0, result.stderr
    ends = [e["message"] for e in result.json_lines() if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert ends and all((m["provider"], m["model"], m["api"]) == ("local", SMALL_MODEL, "local") for m in ends)
    assert "no provider configured" not in result.stderr  # chosen, not a fallback
    listed = run_ours(sandbox, "--list-models", "local")
    assert [line.split()[:2] for line in listed.stdout.splitlines()[1:]] == [
        ["local", "qwen2.5-coder-0.5b"], ["local", "qwen2.5-coder-1.5b"]
    ]
    assert run_ours(sandbox, "--model", OPENAI_MODEL, "--list-models").returncode == 0
