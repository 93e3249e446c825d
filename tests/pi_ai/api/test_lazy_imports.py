"""The adapters and the catalog load nothing heavy until they are used: importing an API
module pulls in no HTTP library, and the catalog file is read on the first lookup."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("httpx", "httpcore", "anyio", "h11", "openai", "anthropic", "google")


def _modules_after(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    )
    return {
        line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")
    }


def test_api_modules_import_no_transport() -> None:
    modules = _modules_after(
        "import pi_ai.api.anthropic_messages, pi_ai.api.openai_completions, pi_ai.models"
    )
    assert "pi_ai.api._http" in modules
    assert sorted(m for m in modules if m.split(".")[0] in HEAVY) == []


def test_catalog_is_read_on_first_lookup() -> None:
    code = (
        "import pi_ai.models as m, sys; assert m._builtin.cache_info().currsize == 0; "
        "m.get_model('anthropic', 'claude-sonnet-4-5'); assert m._builtin.cache_info().currsize == 1"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_first_request_loads_httpx() -> None:
    code = (
        "import asyncio, sys, pi_ai\n"
        "from pi_ai import Context, Model, SimpleStreamOptions, UserMessage\n"
        "m = Model(id='x', name='x', api='anthropic-messages', provider='anthropic', base_url='http://127.0.0.1:9')\n"
        "async def go():\n"
        "    s = pi_ai.stream_simple(m, Context(messages=[UserMessage(content='hi', timestamp=0)]), SimpleStreamOptions(api_key='k'))\n"
        "    r = await s.result()\n"
        "    assert r.stop_reason == 'error' and r.error_message.startswith('Connection error.'), r.error_message\n"
        "assert 'httpx' not in sys.modules\n"
        "asyncio.run(go())\n"
        "assert 'httpx' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
