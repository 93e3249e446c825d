"""A pytest plugin that records the CPU each test costs, child processes included (issue 23).

Use: ``PI_TEST_CPU_LOG=/tmp/cpu.jsonl pytest -p tests.support.cpu_usage ...``; then
``python -m tests.support.cpu_usage /tmp/cpu.jsonl`` prints the files that cost the most.

Each test (setup, call and teardown, so a module-scoped fixture's teardown counts for the module's
last test) appends one JSON line: its node id, its file, the wall seconds and the CPU seconds of
this process (``RUSAGE_SELF``) and of the children it waited for (``RUSAGE_CHILDREN``: Node for
Pi's CLI, ``pi`` subprocesses), plus what the children still running used meanwhile (the Node
process that serves the oracle for the whole session, ``tests/support/oracle.py``). A tmux server is not our child (it detaches), so the CPU of a
pane's server and of the program it ran is read from ``/proc`` just before the pane is closed and
added to the test that closed it.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_TICK = os.sysconf("SC_CLK_TCK")
_detached_cpu = 0.0


def _cpu(who: int) -> tuple[float, float]:
    usage = resource.getrusage(who)
    return usage.ru_utime, usage.ru_stime


def _process_tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its live descendants, plus the children they waited for."""
    children: dict[int, list[int]] = defaultdict(list)
    stats = _proc_stats()
    for pid, fields in stats.items():
        children[int(fields[1])].append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        fields = stats.get(pid)
        if fields is not None:
            total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
        todo.extend(children.get(pid, []))
    return total / _TICK


def _live_children() -> dict[int, float]:
    """CPU seconds so far of each running child of this process (its own, not its children's)."""
    me = os.getpid()
    return {
        pid: (int(fields[11]) + int(fields[12])) / _TICK
        for pid, fields in _proc_stats().items()
        if int(fields[1]) == me
    }


def _proc_stats() -> dict[int, list[str]]:
    """Each live process's ``/proc/PID/stat`` fields after its name (``fields[1]`` is the parent)."""
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        stats[int(entry.name)] = raw[raw.rindex(")") + 2 :].split()
    return stats


def _live_delta(before: dict[int, float], after: dict[int, float]) -> float:
    """What running children used between two readings. A child that ended in between is in
    ``RUSAGE_CHILDREN`` with all its CPU, so what it had used before is taken off."""
    grown = sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())
    return grown - sum(cpu for pid, cpu in before.items() if pid not in after)


def _tmux_server_pid(pane: Any) -> int | None:
    try:
        return int(pane._run("display-message", "-p", "#{pid}").strip())
    except ValueError:
        return None


def _patch_tmux() -> None:
    try:
        from tests.pi_coding_agent.app.interactive._tmux import TmuxPane
    except ImportError:
        return
    close = TmuxPane.close

    def measured_close(self: Any) -> None:
        global _detached_cpu
        server = _tmux_server_pid(self)
        if server is not None:
            _detached_cpu += _process_tree_cpu(server)
        close(self)

    TmuxPane.close = measured_close  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PI_TEST_CPU_LOG"):
        _patch_tmux()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    log = os.environ.get("PI_TEST_CPU_LOG")
    if not log:
        yield
        return
    started, own, kids, detached = (
        time.monotonic(),
        _cpu(resource.RUSAGE_SELF),
        _cpu(resource.RUSAGE_CHILDREN),
        _detached_cpu,
    )
    live = _live_children()
    yield
    own_after, kids_after = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    live_delta = _live_delta(live, _live_children())
    record = {
        "test": item.nodeid,
        "file": item.nodeid.split("::", 1)[0],
        "wall": round(time.monotonic() - started, 3),
        "self": round(own_after[0] - own[0] + own_after[1] - own[1], 3),
        "children": round(kids_after[0] - kids[0] + kids_after[1] - kids[1] + live_delta, 3),
        "tmux": round(_detached_cpu - detached, 3),
    }
    with open(log, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def table(path: Path, top: int = 20) -> str:
    """The ``top`` files by CPU seconds (self + children + tmux), with the total."""
    per_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0, 0.0])
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        row = per_file[record["file"]]
        row[0] += 1
        row[1] += record["self"]
        row[2] += record["children"] + record["tmux"]
        row[3] += record["self"] + record["children"] + record["tmux"]
        row[4] += record["wall"]
    ranked = sorted(per_file.items(), key=lambda item: -item[1][3])
    lines = [f"{'CPU-s':>8} {'self':>7} {'child':>7} {'wall':>7} {'tests':>5}  file"]
    for name, (count, own, kids, cpu, wall) in ranked[:top]:
        lines.append(f"{cpu:8.1f} {own:7.1f} {kids:7.1f} {wall:7.1f} {int(count):5d}  {name}")
    total = [sum(row[i] for row in per_file.values()) for i in range(5)]
    lines.append(f"{total[3]:8.1f} {total[1]:7.1f} {total[2]:7.1f} {total[4]:7.1f} {int(total[0]):5d}  "
                 f"all {len(per_file)} files")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 20))
