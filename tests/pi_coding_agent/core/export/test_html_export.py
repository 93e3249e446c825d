"""HTML export: ``pi --export`` writes one self-contained page; headless Chromium renders it.

The rendered text is read back through a copy of the page with one extra script at its end
(``document.body.innerText`` after layout, so hidden parts do not count), before and after
clicking an entry of the other branch in the tree.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from pi_ai import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_coding_agent.core.messages import BashExecutionMessage
from pi_coding_agent.core.session import SessionManager
from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.chromium import dump_dom, screenshot

RED_PIXELS = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg=="


def _assistant(content: list[TextContent | ThinkingContent | ToolCall], stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(content=content, api="anthropic-messages", provider="anthropic",
                            model="claude-sonnet-4-5", usage=Usage(input=10, output=5), stop_reason=stop,  # type: ignore[arg-type]
                            timestamp=1)


def _user(text: str, *images: ImageContent) -> UserMessage:
    return UserMessage(content=[TextContent(text=text), *images], timestamp=1)


def write_session(folder: Path) -> tuple[Path, dict[str, str]]:
    """A session with every kind of entry the page shows, and two branches."""
    manager = SessionManager.create(str(folder), str(folder / "sessions"))
    manager.append_model_change("anthropic", "claude-sonnet-4-5")
    manager.append_thinking_level_change("high")
    manager.append_message(_user("What does <app.py> do?", ImageContent(data=RED_PIXELS, mime_type="image/png")))
    manager.append_message(_assistant([ThinkingContent(thinking="Let me read the file first."),
                                       TextContent(text="Reading it now."),
                                       ToolCall(id="call_1", name="read", arguments={"path": "src/app.py"})], "toolUse"))
    manager.append_message(ToolResultMessage(tool_call_id="call_1", tool_name="read",
                                             content=[TextContent(text="print('hi from app')")], is_error=False,
                                             timestamp=1))
    first_kept = manager.append_message(_assistant([TextContent(text="The file prints a greeting.")]))
    manager.append_message(BashExecutionMessage(command="ls src", output="app.py\n", exit_code=0, cancelled=False,
                                                truncated=False, timestamp=1))
    compaction = manager.append_compaction("COMPACTED: the user asked about app.py.", first_kept, 1234)
    ids = {"compaction": compaction}
    ids["first_question"] = manager.append_message(_user("First branch question"))
    ids["first_answer"] = manager.append_message(_assistant([TextContent(text="First branch answer")]))
    manager.append_label_change(ids["first_question"], "abandoned idea")
    manager.branch_with_summary(compaction, "BRANCH SUMMARY: the first branch went nowhere.",
                                details={"readFiles": [], "modifiedFiles": []}, from_hook=False)
    manager.append_message(_user("Second branch question"))
    manager.append_message(_assistant([TextContent(text="Second branch answer </script><b>not bold</b>")]))
    manager.append_session_info("Export demo")
    path = manager.get_session_file()
    manager.close()
    assert path is not None
    return Path(path), ids


CAPTURE = """<script>
(function () {
  var out = {before: document.body.innerText, image: document.images[0] ? document.images[0].naturalWidth : -1};
  var link = document.querySelector('nav li[data-id="%s"] > a');
  link.click();
  out.after = document.body.innerText;
  var pre = document.createElement("pre");
  pre.id = "rendered-text";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def _rendered(page: Path, click_id: str) -> dict[str, object]:
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", CAPTURE % click_id + "</body>"),
                     encoding="utf-8")
    dom = dump_dom(probe)
    found = re.search(r'<pre id="rendered-text">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return dict(json.loads(html.unescape(found.group(1))))


def test_export_renders_the_tree_and_the_active_branch(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    session, ids = write_session(tmp_path)
    result = run_ours(box, "--export", str(session), "out.html")
    assert (result.returncode, result.stdout, result.stderr) == (0, "Exported to: out.html\n", "")
    page = box.work / "out.html"
    text = page.read_text(encoding="utf-8")
    # Self-contained: nothing is loaded from anywhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text, re.I)
    assert "@import" not in text and not re.search(r"url\(\s*['\"]?(?!data:)", text) and "<link" not in text
    assert "<b>not bold</b>" not in text and "</script><b>" not in text

    rendered = _rendered(page, ids["first_answer"])
    before, after = str(rendered["before"]), str(rendered["after"])
    assert rendered["image"] == 2  # the image is embedded and decodes
    for shown in ("Export demo", "What does <app.py> do?", "Let me read the file first.", "Reading it now.",
                  "src/app.py", "print('hi from app')", "The file prints a greeting.", "$ ls src", "app.py",
                  "COMPACTED: the user asked about app.py.", "BRANCH SUMMARY: the first branch went nowhere.",
                  "Second branch question", "Second branch answer </script><b>not bold</b>",
                  "[abandoned idea]", "user: First branch question", "SESSION TREE"):
        assert shown in before, shown
    conversation = before.split("CONVERSATION", 1)[1]
    assert "First branch answer" not in conversation
    # Clicking the other branch in the tree shows it instead.
    shown_after = after.split("CONVERSATION", 1)[1]
    assert "First branch answer" in shown_after and "Second branch answer" not in shown_after
    assert "BRANCH SUMMARY" not in shown_after and "COMPACTED" in shown_after


def test_screenshot_of_an_export(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    session, _ = write_session(tmp_path)
    assert run_ours(box, "--export", str(session), "page.html").returncode == 0
    image = tmp_path / "page.png"
    screenshot(box.work / "page.html", image)
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_export_errors_and_default_name_match_pi(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    session, _ = write_session(tmp_path)
    before = session.read_bytes()
    ours = run_ours(box, "--export", str(session))
    assert session.read_bytes() == before  # exporting never touches the session file
    assert ours.returncode == 0 and ours.stdout == f"Exported to: pi-session-{session.stem}.html\n"
    assert (box.work / f"pi-session-{session.stem}.html").exists()
    missing = run_ours(box, "--export", "nope.jsonl")
    assert missing.returncode == 1
    assert missing.stderr.strip() == f"Error: File not found: {box.work / 'nope.jsonl'}"
    oracle.require_live_oracle()
    pi = run_pi(box, "--export", str(session))
    assert (pi.returncode, pi.stdout) == (ours.returncode, ours.stdout)
    pi_missing = run_pi(box, "--export", "nope.jsonl")
    assert pi_missing.returncode == missing.returncode
    assert re.sub(r"\x1b\[[0-9;]*m", "", pi_missing.stderr).strip() == missing.stderr.strip()


def test_export_of_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a session\n", encoding="utf-8")
    done = run_ours(box, "--export", str(bad))
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "not a valid pi session" in done.stderr
