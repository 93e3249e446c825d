"""Differential: the same scripted provider drives Pi 0.85 (through the oracle's ``pi-cli``)
and our ``pi``; the ``--mode json`` streams, the files and the session contexts must agree.

Normalized before comparing (documented in docs/cli.md): timestamps and generated ids,
the session header's id/timestamp, temp paths, and what depends on wall-clock timing
rather than on behaviour: the ``usage`` of ``message_update`` lines (a message still being
filled in, at whatever moment the writer ran), what ``pending_start`` folds in an assistant
``message_start`` and
``tool_execution_update`` lines (bash output is throttled to one update per 100 ms, so a slow
machine produces more of them). Pi 1.6's additions, which we write and 0.85 does not
(``agent_settled.aborted``, ``tool_execution_end.durationMs``, the ``system`` messages with our
prompt and tools, their events and entries), are left out here; they are compared with Pi 1.6 in
``tests/pi_coding_agent/app/rpc/test_differential.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.rpc._support import pending_start, without_system_messages
from tests.pi_coding_agent.e2e._harness import (
    ANTHROPIC_MODEL,
    OPENAI_MODEL,
    Completed,
    Sandbox,
    oracle_context,
    run_ours,
    run_pi,
    scrub,
)
from tests.pi_coding_agent.e2e.test_cli_e2e import BUGGY, FIX_SCRIPT, TEST
from tests.support import oracle, pi16
from tests.support.scripted_provider import ScriptedProvider


def _normalize(events: list[dict[str, Any]], sandbox: Sandbox) -> list[dict[str, Any]]:
    replacements = {str(sandbox.work): "<work>", str(sandbox.root): "<root>"}
    normalized = []
    for original in pi16.as_pi085(without_system_messages(events)):  # Pi 0.85: no 1.6 message fields
        if original.get("type") == "tool_execution_update":
            continue
        event = dict(original)
        if event.get("type") == "session":
            event = {"type": "session", "version": event["version"], "cwd": event["cwd"]}
        elif event["type"] == "message_update":
            event.pop("usage", None)
        elif event["type"] == "message_start" and event["message"].get("role") == "assistant":
            event["message"] = pending_start(event["message"])
        elif event["type"] == "agent_settled":
            event.pop("aborted", None)
        elif event["type"] == "tool_execution_end":
            event.pop("durationMs", None)
            # Pi 1.6 added a result's structuredContent and isError; Pi 0.85 has neither.
            event["result"] = {k: v for k, v in event["result"].items() if k not in ("structuredContent", "isError")}
        elif event["type"] == "compaction_end" and event.get("result"):
            # An entry id (random); which entry it is gets compared through the session files.
            # The estimate after it counts the replayed system prompt as Pi 1.6 does and 0.85 did
            # not (docs/pi-1.6/tools-and-compaction.md): compared on its own (_estimate_after).
            result = {k: v for k, v in event["result"].items() if k != "estimatedTokensAfter"}
            event["result"] = {**result, "firstKeptEntryId": "<entry id>"}
        normalized.append(scrub(event, replacements))
    return normalized


def _estimate_after(events: list[dict[str, Any]]) -> int:
    """The first compaction's ``estimatedTokensAfter``."""
    end = next(e for e in events if e["type"] == "compaction_end" and e.get("result"))
    return int(end["result"]["estimatedTokensAfter"])


def _both(tmp_path: Path, script: list[dict[str, Any]], args: list[str],
          files: dict[str, str] | None = None, settings: dict[str, Any] | None = None) -> tuple[Completed, Completed,
                                                                                                Sandbox, Sandbox]:
    oracle.require_live_oracle()
    # One provider per run: scripted failures are counted per server.
    with ScriptedProvider(script) as ours_provider, ScriptedProvider(script) as pi_provider:
        ours_box = Sandbox.create(tmp_path / "ours", ours_provider.base_url, settings)
        pi_box = Sandbox.create(tmp_path / "pi", pi_provider.base_url, settings)
        for box in (ours_box, pi_box):
            for name, text in (files or {}).items():
                (box.work / name).write_text(text, encoding="utf-8")
        ours = run_ours(ours_box, *args)
        pi = run_pi(pi_box, *args)
    return ours, pi, ours_box, pi_box


@pytest.mark.parametrize("model", [OPENAI_MODEL, ANTHROPIC_MODEL], ids=["openai-completions", "anthropic-messages"])
def test_json_event_streams_match(tmp_path: Path, model: str) -> None:
    args = ["--mode", "json", "--model", model, "Fix the failing test in this project."]
    ours, pi, ours_box, pi_box = _both(tmp_path, FIX_SCRIPT, args, {"calc.py": BUGGY, "test_calc.py": TEST})
    assert pi.returncode == 0, pi.stderr
    assert ours.returncode == 0, ours.stderr
    mine = _normalize(ours.json_lines(), ours_box)
    theirs = _normalize(pi.json_lines(), pi_box)
    assert [e["type"] for e in mine] == [e["type"] for e in theirs]
    for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        assert a == b, f"event {index} ({a['type']}) differs"
    for box in (ours_box, pi_box):
        assert (box.work / "calc.py").read_text(encoding="utf-8") == "def add(a, b):\n    return a + b\n"
    # The session files mean the same thing to Pi.
    our_context = pi16.as_pi085(without_system_messages(oracle_context(ours_box.session_files()[0])))
    pi_context = oracle_context(pi_box.session_files()[0])
    replacements_ours = {str(ours_box.work): "<work>"}
    replacements_pi = {str(pi_box.work): "<work>"}
    assert scrub(our_context["context"], replacements_ours) == scrub(pi_context["context"], replacements_pi)
    assert [e["type"] for e in our_context["entries"]] == [e["type"] for e in pi_context["entries"]]


def test_text_mode_output_matches(tmp_path: Path) -> None:
    args = ["--model", OPENAI_MODEL, "-p", "Fix it"]
    ours, pi, _, _ = _both(tmp_path, FIX_SCRIPT, args, {"calc.py": BUGGY, "test_calc.py": TEST})
    assert (ours.returncode, ours.stdout) == (pi.returncode, pi.stdout) == (0, FIX_SCRIPT[-1]["text"] + "\n")


def test_failed_call_in_json_mode(tmp_path: Path) -> None:
    """Same events for a provider error; exit status differs on purpose (documented)."""
    script = [{"fail": [{"status": 400, "body": {"error": {"type": "invalid_request_error",
                                                          "message": "bad request"}}}], "text": "unused"}]
    args = ["--mode", "json", "--model", ANTHROPIC_MODEL, "hello"]
    ours, pi, ours_box, pi_box = _both(tmp_path, script, args)
    assert _normalize(ours.json_lines(), ours_box) == _normalize(pi.json_lines(), pi_box)
    assert pi.returncode == 0
    assert ours.returncode == 1
    error_message = ours.json_lines()[-2]["messages"][-1]["errorMessage"]
    assert ours.stderr.strip() == error_message


def test_auto_retry_events_match(tmp_path: Path) -> None:
    script = [{"fail": [{"status": 503, "body": {"error": {"type": "overloaded_error",
                                                          "message": "Overloaded"}}}], "text": "after retry"}]
    settings = {"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 10}}
    args = ["--mode", "json", "--model", ANTHROPIC_MODEL, "hello"]
    ours, pi, ours_box, pi_box = _both(tmp_path, script, args, settings=settings)
    mine, theirs = _normalize(ours.json_lines(), ours_box), _normalize(pi.json_lines(), pi_box)
    assert [e["type"] for e in mine] == [e["type"] for e in theirs]
    assert mine == theirs
    assert next(e for e in mine if e["type"].startswith("auto_retry"))["delayMs"] == 10
    assert (ours.returncode, pi.returncode) == (0, 0)


def test_list_models_table_matches(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    models = json.loads((sandbox.agent_dir / "models.json").read_text(encoding="utf-8"))
    models["providers"]["scripted-openai"]["models"].append(
        {"id": "big-thinker", "reasoning": True, "input": ["text", "image"], "contextWindow": 1048576,
         "maxTokens": 32768}
    )
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    for args in (["--list-models"], ["--list-models", "think"], ["--list-models", "nothing-here"]):
        ours, pi = run_ours(sandbox, *args), run_pi(sandbox, *args)
        assert ours.returncode == pi.returncode, args
        # Deliberate difference (docs/cli.md): our table also lists the embedded "local" models,
        # which widens its columns; the other rows must say the same.
        assert _table_cells(ours.stdout, without_provider="local") == _table_cells(pi.stdout), args
        assert "local" not in {row[0] for row in _table_cells(pi.stdout)}


def test_list_models_without_any_credentials(tmp_path: Path) -> None:
    """No provider has credentials: Pi says so whatever the search; ours too when the
    embedded models (ours alone, docs/cli.md) do not match it either."""
    oracle.require_live_oracle()
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    (sandbox.agent_dir / "models.json").write_text('{"providers": {}}', encoding="utf-8")
    for args in (["--list-models", "nothing-here"], ["--list-models", "qwen"], ["--list-models"]):
        ours, pi = run_ours(sandbox, *args), run_pi(sandbox, *args)
        assert ours.returncode == pi.returncode == 0, args
        first, *pages = pi.stdout.splitlines()
        assert first == "No models available. Use /login to log into a provider via OAuth or API key. See:"
        assert [Path(page.strip()).name for page in pages] == ["providers.md", "models.md"]
        if args[-1] == "nothing-here":
            mine, *our_pages = ours.stdout.splitlines()
            assert mine == first and len(our_pages) == len(pages)
            assert all(page.startswith("  ") and Path(page.strip()).is_file() for page in our_pages)
        else:  # the embedded models match: listed
            assert _table_cells(ours.stdout)[0] == ["provider", "model", "context", "max-out", "thinking", "images"]
            assert {row[0] for row in _table_cells(ours.stdout)[1:]} == {"local"}


def _table_cells(table: str, without_provider: str | None = None) -> list[list[str]]:
    rows = [line.split() for line in table.splitlines()]
    return [row for row in rows if not row or row[0] != without_provider]


def _entries(sandbox: Sandbox) -> list[dict[str, Any]]:
    (path,) = sandbox.session_files()
    answer = pi16.as_pi085(without_system_messages(oracle_context(path)))
    replacements = {str(sandbox.work): "<work>"}
    return [scrub(entry, replacements) for entry in answer["entries"]]


@pytest.mark.parametrize(
    "runs",
    [
        [["--model", "scripted-openai/thinker", "--thinking", "high", "-p", "a"], ["-c", "-p", "b"]],
        [["--model", "scripted-openai/thinker:low", "-p", "a"], ["-c", "--thinking", "minimal", "-p", "b"]],
        [["--model", "scripted-openai/scripted-model", "--thinking", "high", "-p", "a"],
         ["-c", "--model", "scripted-openai/thinker", "--name", "Second\nrun", "-p", "b"]],
    ],
    ids=["thinking-flag", "model-suffix-then-flag", "switch-model-and-name-on-resume"],
)
def test_session_entries_for_model_and_thinking_flags(tmp_path: Path, runs: list[list[str]]) -> None:
    """model_change / thinking_level_change entries as Pi writes them for new and resumed sessions."""
    oracle.require_live_oracle()
    script = [{"text": "one"}, {"text": "two"}]
    boxes = []
    with ScriptedProvider(script) as provider:
        for name, runner in (("ours", run_ours), ("pi", run_pi)):
            box = Sandbox.create(tmp_path / name, provider.base_url)
            models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
            models["providers"]["scripted-openai"]["models"].append({"id": "thinker", "reasoning": True})
            (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
            for args in runs:
                result = runner(box, *args)
                assert result.returncode == 0, (name, args, result.stderr)
            boxes.append(box)
    ours, pi = (_entries(box) for box in boxes)
    assert ours == pi


@pytest.mark.parametrize("model", [OPENAI_MODEL, ANTHROPIC_MODEL], ids=["openai-completions", "anthropic-messages"])
def test_connection_lost_mid_answer_is_retried_like_pi(tmp_path: Path, model: str) -> None:
    script = [{"fail": [{"cut_after": 4}], "text": "a complete answer at last"}]
    settings = {"retry": {"enabled": True, "maxRetries": 1, "baseDelayMs": 10}}
    args = ["--mode", "json", "--model", model, "hello"]
    ours, pi, ours_box, pi_box = _both(tmp_path, script, args, settings=settings)
    mine, theirs = _normalize(ours.json_lines(), ours_box), _normalize(pi.json_lines(), pi_box)
    assert [e["type"] for e in mine] == [e["type"] for e in theirs]
    assert mine == theirs
    assert any(e["type"] == "auto_retry_start" for e in mine)
    assert (ours.returncode, pi.returncode) == (0, 0)


def _entries_by_position(sandbox: Sandbox) -> list[dict[str, Any]]:
    """Entries with ids replaced by their positions (ids are random)."""
    entries = _entries_raw(sandbox)
    position = {entry["id"]: index for index, entry in enumerate(entries)}
    replacements = {str(sandbox.work): "<work>"}
    out = []
    for original in entries:
        entry = dict(original)
        if "firstKeptEntryId" in entry:
            entry["firstKeptEntryId"] = position.get(entry["firstKeptEntryId"], "missing")
        out.append(scrub(entry, replacements))
    return out


def _entries_raw(sandbox: Sandbox) -> list[dict[str, Any]]:
    (path,) = sandbox.session_files()
    return list(pi16.as_pi085(without_system_messages(oracle_context(path)))["entries"])


def test_threshold_compaction_matches_pi(tmp_path: Path) -> None:
    """A context past contextWindow - reserveTokens is compacted after the run, as Pi does it."""
    oracle.require_live_oracle()
    script = [
        {"text": "first answer"},
        {"text": "second answer " * 10, "usage": {"input": 3500, "output": 10}},
    ]
    settings = {"retry": {"enabled": False}, "compaction": {"reserveTokens": 1000, "keepRecentTokens": 60}}
    summary = "## Goal\nTalk about alpha and beta."
    args = ["--mode", "json", "--model", OPENAI_MODEL, "alpha " * 100, "beta " * 80]
    runs = []
    for name, runner in (("ours", run_ours), ("pi", run_pi)):
        with ScriptedProvider(script, summary=summary) as provider:
            box = Sandbox.create(tmp_path / name, provider.base_url, settings)
            models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
            models["providers"]["scripted-openai"]["models"][0]["contextWindow"] = 4000
            (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
            result = runner(box, *args)
            assert result.returncode == 0, (name, result.stderr)
            summary_requests = [r for r in provider.requests if "<conversation>" in json.dumps(r["body"])]
            assert len(summary_requests) == 1, name
            runs.append((result, box, summary_requests[0]["body"]))
    (ours, ours_box, ours_request), (pi, pi_box, pi_request) = runs
    mine, theirs = _normalize(ours.json_lines(), ours_box), _normalize(pi.json_lines(), pi_box)
    assert [e["type"] for e in mine] == [e["type"] for e in theirs]
    assert mine == theirs
    end = next(e for e in mine if e["type"] == "compaction_end")
    assert end["result"]["summary"] == summary and end["reason"] == "threshold"
    # Pi 0.85's estimate is the kept messages'; ours adds the replayed system prompt's (as 1.6).
    ours_after, pi_after = _estimate_after(ours.json_lines()), _estimate_after(pi.json_lines())
    assert 0 < pi_after < ours_after
    assert _entries_by_position(ours_box) == _entries_by_position(pi_box)
    # Same request shape (prose differs): no tools, one user message, the capped max tokens.
    assert ours_request["max_completion_tokens" if "max_completion_tokens" in ours_request else "max_tokens"] == (
        pi_request["max_completion_tokens" if "max_completion_tokens" in pi_request else "max_tokens"]
    )
    assert "tools" not in ours_request and "tools" not in pi_request
    conversation = "[User]: " + "alpha " * 100
    for body in (ours_request, pi_request):
        user = [m for m in body["messages"] if m["role"] == "user"]
        assert len(user) == 1
        text = user[0]["content"] if isinstance(user[0]["content"], str) else user[0]["content"][0]["text"]
        assert text.startswith(f"<conversation>\n{conversation.rstrip()}")
        assert "[Assistant]: first answer" in text


def test_overflow_error_compacts_and_retries_like_pi(tmp_path: Path) -> None:
    """A provider "prompt is too long" error: compact, then answer again (once), as Pi does.

    Against Pi 1.6: it counts the replayed system prompt in ``tokensBefore`` and in where to cut
    (0.85 did not), which here splits the turn (docs/pi-1.6/tools-and-compaction.md). The count
    itself differs by the prompts' words, so it is compared as counting the prompt on both sides."""
    oracle.require_live_oracle(True)
    too_long = {"status": 400, "body": {"type": "error", "error": {
        "type": "invalid_request_error", "message": "prompt is too long: 250000 tokens > 200000 maximum"}}}
    script = [{"text": "first answer"}, {"fail": [too_long], "text": "unused"}]
    settings = {"retry": {"enabled": False}, "compaction": {"reserveTokens": 1000, "keepRecentTokens": 60}}
    args = ["--mode", "json", "--model", ANTHROPIC_MODEL, "alpha " * 100, "beta " * 80]
    runs = []
    for name in ("ours", "pi"):
        with ScriptedProvider(script, summary="## Goal\nAlpha, then beta.") as provider:
            box = Sandbox.create(tmp_path / name, provider.base_url, settings)
            result = run_ours(box, *args) if name == "ours" else run_pi(box, *args, current=True)
            runs.append((result, box))
    (ours, ours_box), (pi, pi_box) = runs
    mine, theirs = _normalize(ours.json_lines(), ours_box), _normalize(pi.json_lines(), pi_box)
    assert [e["type"] for e in mine] == [e["type"] for e in theirs]
    prompt_counted = 1000  # the user's words alone are about 115 tokens
    for events in (mine, theirs):
        for event in events:
            if event["type"] == "compaction_end":
                assert event["result"]["tokensBefore"] > prompt_counted, event
                event["result"]["tokensBefore"] = "<counted with the prompt>"
    assert mine == theirs
    end = next(e for e in mine if e["type"] == "compaction_end")
    assert end["reason"] == "overflow" and end["willRetry"] is True
    ours_entries, pi_entries = _entries_by_position(ours_box), _entries_by_position(pi_box)
    for entries in (ours_entries, pi_entries):
        for entry in entries:
            if entry["type"] == "compaction":
                assert entry["tokensBefore"] > prompt_counted, entry
                entry["tokensBefore"] = "<counted with the prompt>"
    assert ours_entries == pi_entries
    assert (ours.returncode, pi.returncode) == (0, 0)


def test_compaction_between_turns_of_one_run_matches_pi(tmp_path: Path) -> None:
    """The context crosses the threshold after a tool call: compacted before the next model call."""
    oracle.require_live_oracle()
    script = [
        {"text": "first answer"},
        {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "tiny.txt"}}],
         "usage": {"input": 3500, "output": 10}},
        {"text": "done reading"},
    ]
    settings = {"retry": {"enabled": False}, "compaction": {"reserveTokens": 1000, "keepRecentTokens": 60}}
    args = ["--mode", "json", "--model", OPENAI_MODEL, "alpha " * 100, "beta " * 80]
    runs = []
    for name, runner in (("ours", run_ours), ("pi", run_pi)):
        with ScriptedProvider(script, summary="## Goal\nAlpha.", sequential=True) as provider:
            box = Sandbox.create(tmp_path / name, provider.base_url, settings)
            (box.work / "tiny.txt").write_text("x\n", encoding="utf-8")
            models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
            models["providers"]["scripted-openai"]["models"][0]["contextWindow"] = 4000
            (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
            result = runner(box, *args)
            assert result.returncode == 0, (name, result.stderr)
            runs.append((result, box, [r["body"] for r in provider.requests]))
    (ours, ours_box, ours_bodies), (pi, pi_box, pi_bodies) = runs
    mine, theirs = _normalize(ours.json_lines(), ours_box), _normalize(pi.json_lines(), pi_box)
    assert [e["type"] for e in mine] == [e["type"] for e in theirs]
    assert mine == theirs
    types = [e["type"] for e in mine]
    # Compacted inside the second run, between its tool result and its next model call.
    assert types.index("compaction_start") > types.index("tool_execution_end")
    assert _entries_by_position(ours_box) == _entries_by_position(pi_box)
    # The call after compaction starts from the summary, as Pi's does.
    assert [m["role"] for m in ours_bodies[-1]["messages"]] == [m["role"] for m in pi_bodies[-1]["messages"]]
