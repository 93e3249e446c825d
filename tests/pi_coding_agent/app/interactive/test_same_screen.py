"""Ours and Pi 0.85's TUI side by side in one test, same script, same terminal size: what
they draw must be the same text, line for line (colours aside), for a markdown answer with
a table, code, lists and a quote, for the footer after it, for read, bash and edit tool
calls (a diff) and their results, and for ``/hotkeys``."""

from __future__ import annotations

import re
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._scenario import Run, launch

# A scenario drives a whole session in a terminal; Pi's TUI alone takes seconds to start
# on a loaded machine, so the suite-wide 120 s limit is too tight here.
pytestmark = pytest.mark.timeout(600)

ANSWER = """# Plan

Some **bold** and `code` and a [link](https://example.com/x).

| Step | What happens |
|---|---|
| 1 | The file is read and its lines are counted one by one |
| 2 | Done |

```python
def f(x):
    return x + 1
```

- one
- two
  - nested

1. first
2. second

> quoted text

---

END-OF-ANSWER
"""


TOOLS = [
    {"text": "Looking.", "tool_calls": [
        {"id": "call_1", "name": "read", "arguments": {"path": "notes.txt"}},
        {"id": "call_2", "name": "bash", "arguments": {"command": "seq 1 30"}},
        {"id": "call_3", "name": "edit", "arguments": {"path": "notes.txt", "edits": [
            {"oldText": "second line", "newText": "second line, changed"}]}},
    ]},
    {"text": "TOOLS-DONE"},
]  # fmt: skip
NOTES = "first line\nsecond line\nthird line\n"


def _block(run: Run, start: str, end_marker: str) -> list[str]:
    """The lines from the one containing ``start`` up to the last one before the editor
    that contains ``end_marker``, trailing spaces and durations removed."""
    lines = [re.sub(r"Took \d+\.\d+s", "Took N s", line.rstrip()) for line in run.pane.history().split("\n")]
    first = max(i for i, line in enumerate(lines) if start in line)
    last = max(i for i, line in enumerate(lines) if end_marker in line)
    return lines[first : last + 1]


def test_answer_hotkeys_and_footer_look_like_pis(tmp_path: Path) -> None:
    runs: dict[str, Run] = {}
    with ExitStack() as stack:
        for which in ("pi", "ours"):
            folder = tmp_path / which
            folder.mkdir()
            runs[which] = stack.enter_context(
                launch(folder, which, [{"text": ANSWER}, *TOOLS], height=60, files={"notes.txt": NOTES})
            )
        for run in runs.values():
            run.submit("plan it")
        for run in runs.values():
            run.pane.wait_for("END-OF-ANSWER")
            run.pane.wait_for("↑10 ↓5")
        answers = {which: _block(run, "plan it", "END-OF-ANSWER") for which, run in runs.items()}
        assert answers["ours"] == answers["pi"]
        footers = {which: run.pane.screen().rstrip().split("\n")[-1] for which, run in runs.items()}
        assert footers["ours"] == footers["pi"]
        for run in runs.values():
            run.submit("use tools")
        for run in runs.values():
            run.pane.wait_for("TOOLS-DONE")
        tools = {which: _block(run, "use tools", "TOOLS-DONE") for which, run in runs.items()}
        assert "\n".join(tools["ours"]) == "\n".join(tools["pi"])
        for run in runs.values():
            run.command("/hotkeys")
        for run in runs.values():
            run.pane.wait_for("Run bash command (excluded from context)")
        hotkeys = {which: _block(run, "Keyboard Shortcuts", "└") for which, run in runs.items()}
        assert hotkeys["ours"] == hotkeys["pi"]
        for run in runs.values():
            run.quit()
