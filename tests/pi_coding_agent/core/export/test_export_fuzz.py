"""HTML export is total: any session file (the loader fuzz's files, and lone surrogates or
400-digit numbers at every position of every kind of line) is exported or refused with an
``ExportError``, never another exception; the page is well-formed UTF-8; a failed write leaves
the previous page as it was and no temporary file. Lone surrogates show as U+FFFD, as on Pi's
page (both rendered by headless Chromium)."""

from __future__ import annotations

import base64
import gzip
import json
import re
import resource
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from pi_ai.js_json import well_formed
from pi_coding_agent.core.export import ExportError, export_file
from pi_coding_agent.customize.themes import builtin_theme, export_palette
from tests.pi_coding_agent.core.session.fuzz_lines import SAMPLE_LINES, V1_LINES, odd_files, session_files
from tests.pi_coding_agent.core.session.test_fuzz import EXAMPLES
from tests.pi_coding_agent.e2e._harness import OUR_PI, Sandbox, run_pi
from tests.reliability.figures import record
from tests.support import oracle
from tests.support.chromium import BrowserPage

PALETTE = export_palette(builtin_theme("dark"))

SURROGATES = (
    '{"type":"session","version":3,"id":"odd","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/odd"}\n'
    '{"type":"message","id":"e0","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
    '"message":{"role":"user","content":"half \\ud83d an emoji","timestamp":1}}\n'
    '{"type":"message","id":"e1","parentId":"e0","timestamp":"2026-01-01T00:00:02.000Z",'
    '"message":{"role":"assistant","content":[{"type":"text","text":"low \\udc00 half"}],"api":"x","provider":"p",'
    '"model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":0}},'
    '"stopReason":"stop","timestamp":2}}\n'
)


def _export(session: Path, target: str) -> None:
    """Export ``session``: a page of well-formed UTF-8, or an ``ExportError`` of one line."""
    page = session.with_suffix(".html")
    try:
        export_file(str(session), str(page), palette=PALETTE)
    except ExportError as error:
        assert "\n" not in str(error), error
        record("export_input", target=target, refused=1)
    else:
        text = page.read_bytes().decode("utf-8")  # strict: no surrogate got through
        assert text.startswith("<!doctype html>") and text.endswith("</html>\n")
        record("export_input", target=target, exported=1)
    assert not [name for name in session.parent.iterdir() if name.suffix == ".tmp"]


@pytest.mark.timeout(120 + EXAMPLES // 4)
@settings(
    max_examples=EXAMPLES // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(session_files())
def test_any_session_file_is_exported_or_refused(generated: tuple[bytes, bool]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pi-export-fuzz-"))
    try:
        session = folder / "s.jsonl"
        session.write_bytes(generated[0])
        _export(session, "html export (fuzzed files)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.timeout(300)
def test_a_lone_surrogate_or_a_huge_number_anywhere(tmp_path: Path) -> None:
    for number, (case, data, _) in enumerate(odd_files(SAMPLE_LINES) + odd_files(V1_LINES)):
        session = tmp_path / str(number) / "s.jsonl"
        session.parent.mkdir()
        session.write_bytes(data)
        try:
            _export(session, "html export (every position)")
        except BaseException as error:
            raise AssertionError(f"{case}: {type(error).__name__}: {error}") from error


# Our page (the one with a ``page-data`` element) draws its entries after ``load`` (unpacked
# asynchronously) and then marks the body ``data-ready``; Pi's draws them during ``load``. The
# text is read at once on Pi's page, on ours once the mark is there (or 3 s of real time have
# passed), as JSON: ``JSON.stringify`` escapes lone surrogates.
SHOWN_TEXT = """new Promise(function (done) {
  var started = Date.now();
  (function look() {
    if (!document.getElementById("page-data") || document.body.hasAttribute("data-ready")
        || Date.now() - started > 3000) {
      done(JSON.stringify(document.body.innerText));
    } else {
      setTimeout(look, 20);
    }
  })();
})"""


def _shown(browser: BrowserPage, page: Path) -> str:
    """The text ``page`` shows once its scripts ran (``innerText``)."""
    browser.open(page, timeout=60)
    encoded = browser.evaluate(SHOWN_TEXT)
    assert isinstance(encoded, str)
    shown = json.loads(encoded)
    assert isinstance(shown, str)
    return shown


@pytest.mark.timeout(180)
def test_lone_surrogates_show_as_on_pi_s_page(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    session = tmp_path / "odd.jsonl"
    session.write_text(SURROGATES, encoding="ascii")
    ours = tmp_path / "ours.html"
    done = subprocess.run(
        [str(OUR_PI), "--export", str(session), str(ours)],
        cwd=box.work,
        env=box.env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, f"Exported to: {ours}\n"), done.stderr
    page = ours.read_text(encoding="utf-8")
    # The tree's data is written as JSON.stringify writes it; the text shows U+FFFD.
    assert "half \ufffd an emoji" in page and "low \ufffd half" in page
    with BrowserPage() as browser:  # one Chromium for both pages
        shown = _shown(browser, ours)
        assert "half \ufffd an emoji" in shown and "low \ufffd half" in shown
        oracle.require_live_oracle()
        theirs = tmp_path / "pi.html"
        assert run_pi(box, "--export", str(session), str(theirs)).returncode == 0
        pi_shown = _shown(browser, theirs)
    # Pi's page holds the lone surrogates themselves; a browser draws each as U+FFFD.
    assert "half \ud83d an emoji" in pi_shown and "low \udc00 half" in pi_shown
    assert "half \ufffd an emoji" in well_formed(pi_shown) and "low \ufffd half" in well_formed(pi_shown)
    record("export_input", target="html export (shown as on Pi's page)", exported=1)


def _small_files() -> None:
    """In the child: files may not grow beyond 4 KiB (the page is larger), and going over is an
    error (``EFBIG``) rather than a signal."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


@pytest.mark.timeout(60)
def test_a_failed_write_keeps_the_previous_page(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    session = tmp_path / "odd.jsonl"
    session.write_text(SURROGATES, encoding="ascii")
    page = tmp_path / "page.html"
    page.write_text("the previous page", encoding="utf-8")
    done = subprocess.run(
        [str(OUR_PI), "--export", str(session), str(page)],
        cwd=box.work,
        # Under the 4 KiB limit, a bytecode cache written by the child would be cut short and
        # break every later import of that module (in this run and the next).
        env=box.env(PYTHONDONTWRITEBYTECODE="1"),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        preexec_fn=_small_files,
    )
    assert done.returncode == 1
    assert done.stderr == f"Error: cannot write {page}: File too large\n"
    assert page.read_text(encoding="utf-8") == "the previous page"
    assert sorted(path.name for path in tmp_path.iterdir() if path.is_file()) == ["odd.jsonl", "page.html"]
    record("export_input", target="html export (write fails)", refused=1)


def test_the_script_data_is_json_as_node_writes_it(tmp_path: Path) -> None:
    session = tmp_path / "ids.jsonl"
    session.write_text(SURROGATES.replace('"id":"e1"', '"id":"e\\udc01"'), encoding="ascii")
    page = tmp_path / "ids.html"
    export_file(str(session), str(page), palette=PALETTE)
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', page.read_text())
    assert found is not None
    tree = gzip.decompress(base64.b64decode(json.loads(found.group(1))["tree"])).decode("utf-8")
    assert '"ids":["e0","e\\udc01"],"parents":[-1,0],' in tree
    assert json.loads(tree)["ids"] == ["e0", "e\udc01"]
