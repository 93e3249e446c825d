"""HTML export: ``pi --export`` writes one self-contained page; headless Chromium renders it.

Pages are opened over the DevTools protocol (``BrowserPage``): what the shown branch holds is
read from the live document before and after clicking a row of another branch in the tree,
with every request the page made and every console error. Corpus sessions are compared with
Pi's own page for the same file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

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
from pi_coding_agent.core.export import export_file
from pi_coding_agent.core.messages import BashExecutionMessage
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.customize.themes import THEME_TOKENS, builtin_theme, export_palette
from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.chromium import BrowserPage, screenshot
from tests.support.corpus import load_case, require_corpus

RED_PIXELS = (
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg=="
)


def _assistant(
    content: list[TextContent | ThinkingContent | ToolCall], stop: str = "stop"
) -> AssistantMessage:
    return AssistantMessage(
        content=content,
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        usage=Usage(input=10, output=5),
        stop_reason=stop,  # type: ignore[arg-type]
        timestamp=1,
    )


def _user(text: str, *images: ImageContent) -> UserMessage:
    return UserMessage(content=[TextContent(text=text), *images], timestamp=1)


def write_session(folder: Path) -> tuple[Path, dict[str, str]]:
    """A session with every kind of entry the page shows, and two branches."""
    manager = SessionManager.create(str(folder), str(folder / "sessions"))
    manager.append_model_change("anthropic", "claude-sonnet-4-5")
    manager.append_thinking_level_change("high")
    manager.append_message(
        _user("What does <app.py> do?", ImageContent(data=RED_PIXELS, mime_type="image/png"))
    )
    manager.append_message(
        _assistant(
            [
                ThinkingContent(thinking="Let me read the file first."),
                TextContent(text="Reading it now."),
                ToolCall(id="call_1", name="read", arguments={"path": "src/app.py"}),
            ],
            "toolUse",
        )
    )
    manager.append_message(
        ToolResultMessage(
            tool_call_id="call_1",
            tool_name="read",
            content=[TextContent(text="print('hi from app')")],
            is_error=False,
            timestamp=1,
        )
    )
    first_kept = manager.append_message(_assistant([TextContent(text="The file prints a greeting.")]))
    manager.append_message(
        BashExecutionMessage(
            command="ls src", output="app.py\n", exit_code=0, cancelled=False, truncated=False, timestamp=1
        )
    )
    compaction = manager.append_compaction("COMPACTED: the user asked about app.py.", first_kept, 1234)
    ids = {"compaction": compaction}
    ids["first_question"] = manager.append_message(_user("First branch question"))
    ids["first_answer"] = manager.append_message(_assistant([TextContent(text="First branch answer")]))
    manager.append_label_change(ids["first_question"], "abandoned idea")
    manager.branch_with_summary(
        compaction,
        "BRANCH SUMMARY: the first branch went nowhere.",
        details={"readFiles": [], "modifiedFiles": []},
        from_hook=False,
    )
    manager.append_message(_user("Second branch question"))
    manager.append_message(_assistant([TextContent(text="Second branch answer </script><b>not bold</b>")]))
    manager.append_session_info("Export demo")
    path = manager.get_session_file()
    manager.close()
    assert path is not None
    return Path(path), ids


SHOWN = """(() => {
  const messages = document.getElementById("messages");
  const shown = el => !el.closest("[hidden]");
  const count = selector => [...messages.querySelectorAll(selector)].filter(shown).length;
  return {
    entries: [...messages.querySelectorAll('[id^="entry-"]')].filter(shown).map(el => el.id.slice(6)),
    calls: [...messages.querySelectorAll('[id^="tool-call-"]')].filter(shown).map(el => el.id),
    text: [...messages.querySelectorAll('[id^="entry-"]')].filter(shown).map(el => el.textContent).join("\\n"),
    headings: count(":is(.markdown, .markdown-content) :is(h1, h2, h3, h4, h5, h6)"),
    items: count(":is(.markdown, .markdown-content) li"),
    code: count(":is(.markdown, .markdown-content) pre"),
    highlighted: count(":is(.markdown, .markdown-content) pre span[class]"),
    rows: [...document.querySelectorAll(".tree-node")].filter(el => !el.hidden && el.offsetParent !== null).length,
    tree: document.getElementById("tree-container").textContent,
    images: [...messages.querySelectorAll("img")].filter(shown).map(img => img.naturalWidth),
  };
})()"""


DRAWN = """new Promise(done => { const check = () => !document.getElementById("page-data")
  || document.body.hasAttribute("data-ready") ? done(true) : setTimeout(check, 5); check(); })"""
"""Our page unpacks its tree and draws it after the ``load`` event; Pi's has drawn everything by then."""


def _open(browser: BrowserPage, page: Path, query: str = "") -> None:
    browser.open(page, query)
    browser.evaluate(DRAWN)


def _click_row(browser: BrowserPage, entry_id: str) -> dict[str, Any]:
    browser.evaluate(f"document.querySelector('.tree-node[data-id=\\'{entry_id}\\']').click()")
    browser.evaluate(DRAWN)
    return dict(browser.evaluate(SHOWN))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def _chromium() -> Iterator[list[BrowserPage]]:
    pages: list[BrowserPage] = []
    yield pages
    for page in pages:
        page.close()


@pytest.fixture
def shared_browser(_chromium: list[BrowserPage]) -> Callable[[], BrowserPage]:
    """The module's one Chromium (a start costs about 1.5 CPU-s), started when a test first asks
    for it. What the pages of the tests before asked for and logged is forgotten: each test's
    ``requests`` and ``errors`` are its own pages' (as when ``test_corpus_sessions...`` opens
    one page after another)."""

    def page() -> BrowserPage:
        if not _chromium:
            _chromium.append(BrowserPage())
        browser = _chromium[0]
        browser.requests.clear()
        browser.errors.clear()
        return browser

    return page


def test_export_renders_the_tree_and_the_active_branch(
    tmp_path: Path, shared_browser: Callable[[], BrowserPage]
) -> None:
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
    assert "<title>Session Export</title>" in text

    browser = shared_browser()
    _open(browser, page)
    before = dict(browser.evaluate(SHOWN))  # type: ignore[arg-type]
    after = _click_row(browser, ids["first_answer"])
    assert browser.requests == [] and browser.errors == []
    assert before["images"] == [2]  # the image is embedded and decodes
    for shown in (
        "What does <app.py> do?",
        "Let me read the file first.",
        "Reading it now.",
        "src/app.py",
        "print('hi from app')",
        "The file prints a greeting.",
        "$ ls src",
        "app.py",
        "COMPACTED: the user asked about app.py.",
        "BRANCH SUMMARY: the first branch went nowhere.",
        "Second branch question",
        "Second branch answer </script><b>not bold</b>",
    ):
        assert shown in before["text"], shown
    assert "[abandoned idea]" in before["tree"] and "user: First branch question" in before["tree"]
    assert "First branch answer" not in before["text"]
    # Clicking the other branch in the tree shows it instead.
    assert "First branch answer" in after["text"] and "Second branch answer" not in after["text"]
    assert "BRANCH SUMMARY" not in after["text"] and "COMPACTED" in after["text"]


MARKDOWN_ATTACKS = (
    "# Heading\n\n- one\n- two\n\n```python\ndef f():\n    return 1\n```\n\n"
    '```html\n<img src=x onerror="window.pwned=4"><script>window.pwned=5</script>\n```\n\n'
    '[click](javascript:window.pwned=1) <img src=x onerror="window.pwned=2"> <script>window.pwned=3</script>\n\n'
    "![remote](http://127.0.0.1:9/pixel.png) [mail](mailto:a@b.c)\n\n"
    '<iframe src="http://127.0.0.1:9/"></iframe> <style>body{background:url(http://127.0.0.1:9/bg)}</style>'
)


def test_markdown_renders_and_nothing_from_the_session_runs_or_loads(
    tmp_path: Path, shared_browser: Callable[[], BrowserPage]
) -> None:
    manager = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    manager.append_message(_user(MARKDOWN_ATTACKS))
    manager.append_message(
        _assistant(
            [
                TextContent(text=MARKDOWN_ATTACKS),
                ToolCall(id="w1", name="write", arguments={"path": "a.py", "content": "x = 1\ny = '<b>'\n"}),
            ],
            "toolUse",
        )
    )
    manager.append_message(
        ToolResultMessage(
            tool_call_id="w1",
            tool_name="write",
            content=[TextContent(text="Wrote a.py")],
            is_error=False,
            timestamp=1,
        )
    )
    session = manager.get_session_file()
    manager.close()
    assert session is not None
    page = tmp_path / "attacks.html"
    export_file(session, str(page), palette=export_palette(builtin_theme("light")))
    browser = shared_browser()
    _open(browser, page)
    shown = dict(browser.evaluate(SHOWN))  # type: ignore[arg-type]
    assert browser.evaluate(
        "window.pwned === undefined && !document.querySelector('#messages iframe, #messages script')"
    )
    assert browser.requests == [] and browser.errors == []
    # The write tool's content is the file as written, highlighted: no JSON string with \\n.
    write = str(browser.evaluate("document.getElementById('tool-call-w1').innerText"))
    assert (shown["headings"], shown["items"], shown["code"]) == (2, 4, 4)
    assert shown["highlighted"] > 0
    # Coloured code is the code as written, as text.
    assert '<img src=x onerror="window.pwned=4"><script>window.pwned=5</script>' in shown["text"]
    assert "x = 1\ny = '<b>'" in write and "\\n" not in write


def _corpus_session(name: str, folder: Path) -> Path:
    data, _ = load_case("sessions", name)
    path = folder / f"{name}.jsonl"
    path.write_text(data["jsonl"], encoding="utf-8")
    return path


CORPUS = ("kimchi_session", "carlesba_skill_memory_branch")


DOWNLOAD = """new Promise(done => {
  URL.createObjectURL = blob => { window.downloaded = blob; return "blob:captured"; };
  HTMLAnchorElement.prototype.click = function () { window.downloadName = this.download; };
  document.querySelector(".download-json-btn").click();
  const wait = () => window.downloaded ? window.downloaded.text().then(text => done([window.downloadName, text]))
    : setTimeout(wait, 5);
  wait();
})"""

FILTERED_PREFIXES = """(() => {
  document.querySelector('.filter-btn[data-filter="user-only"]').click();
  return [...document.querySelectorAll(".tree-node")].filter(el => el.offsetParent !== null)
    .map(el => el.querySelector(".tree-prefix").textContent);
})()"""


def _jsonl(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_corpus_sessions_show_what_pi_s_page_shows(
    tmp_path: Path, shared_browser: Callable[[], BrowserPage]
) -> None:
    """For real sessions: the same entries, tool calls, headings, list items and code blocks on
    the shown branch, the same tree rows, and the same branch after a click on another branch;
    the same rows, indented the same, under the User filter; the same session file from
    ``↓ JSONL``; no request and no console error on either page."""
    require_corpus()
    oracle.require_live_oracle()
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    browser = shared_browser()
    for name in CORPUS:
        session = _corpus_session(name, tmp_path)
        assert run_ours(box, "--export", str(session), f"ours-{name}.html").returncode == 0
        assert run_pi(box, "--export", str(session), f"pi-{name}.html").returncode == 0
        pages = {}
        for side in ("ours", "pi"):
            _open(browser, box.work / f"{side}-{name}.html")
            shown = dict(browser.evaluate(SHOWN))  # type: ignore[arg-type]
            off_path = browser.evaluate(
                "(() => { const row = [...document.querySelectorAll('.tree-node')].find(el => !el.classList.contains('in-path')"
                " && el.offsetParent !== null); return row ? row.dataset.id : null; })()"
            )
            clicked = _click_row(browser, str(off_path)) if off_path else None
            filtered = browser.evaluate(FILTERED_PREFIXES)
            download = browser.evaluate(DOWNLOAD)
            pages[side] = (shown, off_path, clicked, filtered, download)
            assert browser.requests == [] and browser.errors == [], (side, name)
        (
            (ours, our_row, our_click, our_filtered, our_file),
            (pi, pi_row, pi_click, pi_filtered, pi_file),
        ) = (
            pages["ours"],
            pages["pi"],
        )
        assert our_filtered == pi_filtered, name
        assert our_file[0] == pi_file[0] and _jsonl(our_file[1]) == _jsonl(pi_file[1]), name
        for key in ("entries", "calls", "headings", "items", "code", "rows"):
            assert ours[key] == pi[key], (name, key)
        assert (ours["highlighted"] > 0) == (pi["highlighted"] > 0), name
        assert our_row == pi_row, name
        if our_click is not None and pi_click is not None:
            assert our_click["entries"] == pi_click["entries"] and our_click["entries"] != ours["entries"], (
                name
            )


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


def _page_colours(page: Path) -> dict[str, str]:
    """The theme's CSS variables at the top of an exported page, as ``#rrggbb``."""
    style = page.read_text(encoding="utf-8").split("</style>", 1)[0]
    found = dict(re.findall(r"--([A-Za-z]+):\s*([^;]+);", style))
    colours = {}
    for name in (*THEME_TOKENS, "exportPageBg", "exportCardBg", "exportInfoBg"):
        value = found[name].strip()
        rgb = re.fullmatch(r"rgb\((\d+), (\d+), (\d+)\)", value)
        colours[name] = "#{:02x}{:02x}{:02x}".format(*map(int, rgb.groups())) if rgb else value
    return colours


def test_pi_export_colours_are_pi_16s(tmp_path: Path) -> None:
    """``pi --export`` takes Pi 1.6's colours: its ``system`` theme for a terminal that reported
    nothing, light or dark by ``COLORFGBG``, with the page backgrounds derived from the
    message background, whatever the theme setting."""
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    settings = box.agent_dir / "settings.json"
    settings.write_text(
        json.dumps({**json.loads(settings.read_text(encoding="utf-8")), "theme": "dark"}), encoding="utf-8"
    )
    session, _ = write_session(tmp_path)
    seen = []
    for colorfgbg in ("15;0", "0;15"):
        pages = {side: box.work / f"{side}-{colorfgbg[-1]}.html" for side in ("ours", "pi")}
        assert (
            run_ours(box, "--export", str(session), str(pages["ours"]), COLORFGBG=colorfgbg).returncode == 0
        )
        done = run_pi(box, "--export", str(session), str(pages["pi"]), current=True, COLORFGBG=colorfgbg)
        assert done.returncode == 0, done.stderr
        ours, pi = _page_colours(pages["ours"]), _page_colours(pages["pi"])
        assert ours == pi, colorfgbg
        seen.append(ours["exportPageBg"])
    assert seen[0] != seen[1]  # light and dark pages


def test_export_of_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a session\n", encoding="utf-8")
    done = run_ours(box, "--export", str(bad))
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "not a valid pi session" in done.stderr


def test_a_long_branch_is_drawn_as_it_scrolls_into_view(
    tmp_path: Path, shared_browser: Callable[[], BrowserPage]
) -> None:
    """A branch bigger than the page's first window: the first entries are there at once, the
    rest appear as the reader scrolls, in order, until the whole branch is drawn; a link to an
    entry deep in the branch draws that entry, scrolls the conversation to it and makes its row
    the active one."""
    manager = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    branch = []
    for n in range(100):
        branch.append(manager.append_message(_user(f"question {n}\n\n" + "word " * 1500)))
        branch.append(
            manager.append_message(_assistant([TextContent(text=f"answer {n}\n\n" + "word " * 1500)]))
        )
    session = manager.get_session_file()
    manager.close()
    assert session is not None
    page = tmp_path / "long.html"
    export_file(session, str(page), palette=export_palette(builtin_theme("dark")))
    drawn = "[...document.querySelectorAll('#messages section.entry')].map(el => el.dataset.id)"
    browser = shared_browser()
    _open(browser, page)
    first = list(browser.evaluate(drawn))  # type: ignore[call-overload]
    assert 0 < len(first) < len(branch) and first == branch[: len(first)]
    assert browser.evaluate("document.getElementById('tree-status').textContent") == "200 / 200 entries"
    seen = first
    for _ in range(len(branch)):
        browser.evaluate(
            "new Promise(done => { const content = document.getElementById('content');"
            " content.scrollTop = content.scrollHeight; setTimeout(done, 20); })"
        )
        seen = list(browser.evaluate(drawn))  # type: ignore[call-overload]
        if len(seen) == len(branch):
            break
    assert seen == branch
    target = branch[150]
    _open(browser, page, f"leafId={branch[-1]}&targetId={target}")
    shown = browser.evaluate(
        f"[!!document.getElementById('entry-{target}'), document.querySelector('.tree-node.active').dataset.id]"
    )
    assert shown == [True, target]
    # The conversation is scrolled to the target: its top is in view, a frame later too.
    in_view = (
        "new Promise(done => requestAnimationFrame(() => {"
        " const view = document.getElementById('content').getBoundingClientRect();"
        f" const box = document.getElementById('entry-{target}').getBoundingClientRect();"
        " done([box.top >= view.top - 1 && box.top < view.bottom, document.getElementById('content').scrollTop > 0]); }))"
    )
    assert browser.evaluate(in_view) == [True, True]
    assert browser.requests == [] and browser.errors == []


PI16_CASE = (
    Path(__file__).resolve().parents[3]
    / "conformance"
    / "cases"
    / "session-context"
    / "pi16_second_root.json"
)
"""A session Pi 1.6 wrote (``tools/gen_pi16_sessions.py``): system messages that state and then
patch the prompt and tools, context edits, a usage entry, a compaction restating the prompt."""

SYSTEM_VIEW = """(() => {
  const rows = () => [...document.querySelectorAll(".tree-node")].filter(el => el.offsetParent !== null)
    .map(el => el.textContent);
  const view = {
    entries: [...document.querySelectorAll('#messages [id^="entry-"]')].map(el => el.id),
    system: [...document.querySelectorAll("#messages .system-entry")].map(entry =>
      [...entry.querySelectorAll(".system-prompt-header, .system-prompt-full, .system-prompt > pre, .tools-header, .tool-item-name")]
        .map(el => el.textContent)),
    header_prompts: document.querySelectorAll(".header ~ .system-prompt, .header ~ .tools-list").length,
    rows: rows(),
  };
  document.querySelector('.filter-btn[data-filter="all"]').click();
  view.all_rows = rows();
  return view;
})()"""


def test_pi16_system_messages_and_context_edits_show_as_on_pi_16s_page(
    tmp_path: Path, shared_browser: Callable[[], BrowserPage]
) -> None:
    """On the branch through Pi 1.6's system messages: the first shows the whole prompt and the
    tools, later ones what they change (sections updated or removed, tools removed), as on Pi
    1.6's page; context edits show only as tree rows under the All filter."""
    oracle.require_live_oracle(current=True)
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    session = tmp_path / "pi16.jsonl"
    session.write_text(json.loads(PI16_CASE.read_text(encoding="utf-8"))["jsonl"], encoding="utf-8")
    leaf = next(
        entry["id"]
        for entry in map(json.loads, session.read_text(encoding="utf-8").splitlines())
        if entry.get("message", {}).get("content") == "after the edits"
    )
    assert run_ours(box, "--export", str(session), "ours.html").returncode == 0
    done = run_pi(box, "--export", str(session), "pi.html", current=True)
    assert done.returncode == 0, done.stderr
    views = {}
    browser = shared_browser()
    for side in ("ours", "pi"):
        _open(browser, box.work / f"{side}.html", f"leafId={leaf}&targetId={leaf}")
        views[side] = browser.evaluate(SYSTEM_VIEW)
        assert browser.requests == [] and browser.errors == [], side
    ours, pi = views["ours"], views["pi"]
    assert ours == pi
    assert [blocks[0] for blocks in ours["system"]] == [
        "System Prompt",
        "System Prompt Update: addendum",
        "System Prompt Update: tools, rules, -addendum, tools -edit -write",
    ]
    assert any("[context omit: " in row for row in ours["all_rows"])
    assert not any("[context" in row for row in ours["rows"])
