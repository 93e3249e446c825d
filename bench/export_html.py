#!/usr/bin/env python3
"""Export a long session to HTML with ours, Pi 0.85 and Pi 1.6, and load each pages in headless Chromium.

    .venv/bin/python bench/export_html.py [--session FILE] [--entries 100000] [--skip-pi] [--json]

Without ``--session`` writes the ``turns`` session of ``bench/session_resume.py`` (about 147 MB
at 100,000 entries). Sides: ours, Pi 0.85 (``pi-cli``) and Pi 1.6 (``pi-cli-current``).
Reports, for each side: the export's wall time, CPU time (user and system: steadier than wall
time on a loaded machine) and peak RSS, the page's
size, and the time Chromium takes from navigation until the shown branch is drawn (Pi's page
draws it in a script that has run by its ``load`` event; ours marks ``data-ready`` once its
first screen and the tree are drawn), with the number of entries drawn, and the ratios
ours / Pi. A page not loaded after ``--load-timeout`` seconds is reported as such.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from tests.support.chromium import BrowserPage  # noqa: E402

from session_resume import generate  # noqa: E402

ORACLE = Path(os.environ.get("PI_ORACLE_DIR", REPO.parent / "shared" / "oracle"))
OURS = REPO / ".venv" / "bin" / "pi"
SHOWN = "document.querySelectorAll('#messages [id^=\"entry-\"]:not([hidden])').length"
READY = """new Promise(done => { const check = () => document.body.hasAttribute("data-ready")
  ? done(Number(document.body.getAttribute("data-ready")) / 1000) : setTimeout(check, 5); check(); })"""


def _export(argv: list[str]) -> dict[str, float]:
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    assert status == 0, process.stderr.read() if process.stderr else status
    return {
        "export_s": wall,
        "export_cpu_s": usage.ru_utime + usage.ru_stime,
        "export_peak_rss_mb": usage.ru_maxrss / 1024,
    }


def _load(page: Path, ours: bool, timeout: float) -> dict[str, Any]:
    """Seconds from navigation until the shown branch is drawn: Pi's pages draw it in a script
    that has run by their ``load`` event; ours marks ``data-ready`` once its script has drawn
    the tree and the first screen of the branch (in page time, from navigation)."""
    with BrowserPage() as browser:
        try:
            load = browser.open(page, timeout=timeout)
        except TimeoutError:
            return {
                "load_s": None,
                "shown_entries": None,
                "requests": 0,
                "errors": [f"not loaded after {timeout:.0f} s"],
            }
        ready = browser.evaluate(READY) if ours else load
        return {
            "load_s": max(load, float(ready)),  # type: ignore[arg-type]
            "load_event_s": load,
            "shown_entries": browser.evaluate(SHOWN),
            "requests": len(browser.requests),
            "errors": [error[:300] for error in browser.errors[:3]],
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--session", type=Path, help="an existing session file (default: generate one)")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--skip-pi", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--load-timeout", type=float, default=600, help="seconds to wait for a page's load event"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pi-export-bench-") as folder:
        session = args.session
        if session is None:
            session = Path(folder) / "turns.jsonl"
            generate(session, args.entries)
        results: dict[str, Any] = {"session_mb": session.stat().st_size / 1e6}
        sides = {
            "ours": [str(OURS), "--export", str(session)],
            "pi": [str(ORACLE / "pi-cli"), "--export", str(session)],
            "pi16": [str(ORACLE / "pi-cli-current"), "--export", str(session)],
        }
        for side, command in sides.items():
            if side != "ours" and args.skip_pi:
                continue
            page = Path(folder) / f"{side}.html"
            result = _export([*command, str(page)])
            result["page_mb"] = page.stat().st_size / 1e6
            result.update(_load(page, side == "ours", args.load_timeout))
            page.unlink()
            results[side] = result
        for side in ("pi", "pi16"):
            if side in results:
                results[f"ratio_{side}"] = {
                    key: results["ours"][key] / results[side][key]
                    for key in ("export_s", "export_cpu_s", "page_mb", "load_s")
                    if results[side][key] and results["ours"][key]
                }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"session: {results['session_mb']:.1f} MB")
    for side in ("ours", "pi", "pi16"):
        if side in results:
            r = results[side]
            print(
                f"  {side:4}: export {r['export_s']:.1f} s ({r['export_cpu_s']:.1f} s CPU, {r['export_peak_rss_mb']:.0f} MB peak), page {r['page_mb']:.1f} MB, "
                f"load {r['load_s'] or 0:.1f} s, {r['shown_entries']} entries shown, {r['requests']} requests, errors {r['errors']}"
            )
    for side in ("pi", "pi16"):
        if f"ratio_{side}" in results:
            ratios = results[f"ratio_{side}"].items()
            print(f"  ours / {side}: " + ", ".join(f"{key} {value:.2f}" for key, value in ratios))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
