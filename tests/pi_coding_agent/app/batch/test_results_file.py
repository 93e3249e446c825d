"""The results file (durable, torn tails cut, foreign lines refused, one writer) and the
progress display (quiet off a terminal unless asked, one line redrawn on a terminal)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pi_coding_agent.app.batch import BatchResult, BatchStats, ResultsFileError, TokenUsage, load_results
from pi_coding_agent.app.batch._progress import ProgressDisplay, status_line
from pi_coding_agent.app.batch._results_file import ResultsFile


def _result(task_id: str, status: str = "ok") -> BatchResult:
    return BatchResult(id=task_id, status=status, answer="a", usage=TokenUsage(1, 2, 0, 0, 3, 0.5))  # type: ignore[arg-type]


def test_results_round_trip_and_later_lines_win(tmp_path: Path) -> None:
    path = tmp_path / "out" / "results.jsonl"
    results = ResultsFile(str(path))
    results.append(_result("a", "error"))
    results.append(_result("b"))
    results.append(_result("a"))
    results.close()
    lines = path.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["status"] == "error"
    loaded = load_results(str(path))
    assert loaded == {"a": _result("a"), "b": _result("b")}
    assert BatchResult.from_json(json.loads(lines[1])) == _result("b")


def test_a_torn_last_line_is_cut_and_its_task_counts_as_unfinished(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    whole = json.dumps(_result("a").to_json()) + "\n"
    path.write_text(whole + json.dumps(_result("b").to_json())[:40])
    assert set(load_results(str(path))) == {"a"}
    results = ResultsFile(str(path))
    assert results.dropped_torn_line and set(results.finished) == {"a"}
    results.append(_result("b"))
    results.close()
    assert path.read_text() == whole + json.dumps(_result("b").to_json(), ensure_ascii=False) + "\n"


def test_a_foreign_line_is_refused_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(_result("a").to_json()) + "\n{\"hello\": 1}\n")
    with pytest.raises(ResultsFileError, match=rf"^{path}:2: not a result line \('status'\); fix or remove that line"):
        ResultsFile(str(path))
    assert path.read_text().endswith('{"hello": 1}\n')


def test_one_runner_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    first = ResultsFile(str(path))
    with pytest.raises(ResultsFileError, match="another pi batch is writing this results file"):
        ResultsFile(str(path))
    first.close()
    ResultsFile(str(path)).close()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_quiet_off_a_terminal_unless_asked() -> None:
    stats = BatchStats(total=4, skipped=1)
    stats.record(_result("a"))
    stats.record(_result("b", "timeout"))
    line = status_line(stats)
    assert line.startswith("batch: 3/4 done, 0 running, 1 failed, 6 tokens, $1.00, ETA ")
    cheap = BatchStats(total=2, running=1)
    cheap.record(BatchResult(id="c", status="ok", usage=TokenUsage(10, 5, 0, 0, 15, 0.00002)))
    assert status_line(cheap).startswith("batch: 1/2 done, 1 running, 0 failed, 15 tokens, $0.0000, ETA ")
    cheap.record(BatchResult(id="d", status="ok", usage=TokenUsage(9_000, 3_000, 0, 0, 12_000, 0.0125)))
    assert status_line(cheap).startswith("batch: 2/2 done, 1 running, 0 failed, 12k tokens, $0.0125, ")
    quiet = io.StringIO()
    ProgressDisplay(quiet).update(stats, _result("b"))
    assert quiet.getvalue() == ""
    asked = io.StringIO()
    ProgressDisplay(asked, enabled=True).update(stats, BatchResult(id="b", status="timeout", error="timed out after 1 s"))
    assert asked.getvalue().startswith("b: timeout (timed out after 1 s) | batch: 3/4 done")
    terminal = _Terminal()
    display = ProgressDisplay(terminal)
    display.update(stats, None)
    assert terminal.getvalue() == ""  # nothing running yet: nothing drawn
    stats.running = 1
    display.update(stats, None)
    display.update(stats, _result("c"))
    display.finish(stats)
    text = terminal.getvalue()
    # Two redraws of one line in place, then the line cleared and the summary printed for good.
    assert text.count("\r\x1b[K") == 3 and text.count("\n") == 1
    assert text.rsplit("\r\x1b[K", 1)[1].startswith("batch: 3/4 done, 1 running, 1 failed") and text.endswith("\n")
