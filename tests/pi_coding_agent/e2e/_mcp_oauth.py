"""An agent folder for signing in to the SDK-built OAuth server (tests/support/mcp_oauth_server.py)
headless: ``mcp.json`` names it twice (``guarded`` signs in, ``plain`` sends a fixed header), and a
stand-in ``xdg-open`` in ``<root>/bin`` plays the browser: it fetches the authorization URL and
follows the redirect to the loopback callback."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.pi_coding_agent.e2e._harness import Sandbox

BROWSER = """#!{python}
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=30) as answer:
    answer.read()
"""


def oauth_sandbox(root: Path, url: str, base_url: str = "http://127.0.0.1:9") -> Sandbox:
    """A sandbox under ``root`` whose ``mcp.json`` points at the OAuth server at ``url``; put
    ``root / "bin"`` first on ``PATH`` for the stand-in browser."""
    sandbox = Sandbox.create(root, base_url)
    servers = {"guarded": {"url": url}, "plain": {"url": url, "headers": {"Authorization": "Bearer x"}}}
    (sandbox.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    browser = root / "bin" / "xdg-open"
    browser.parent.mkdir()
    browser.write_text(BROWSER.format(python=sys.executable), encoding="utf-8")
    browser.chmod(0o755)
    return sandbox
