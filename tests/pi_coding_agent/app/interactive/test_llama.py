"""``/llama`` and ``/login llama.cpp`` (ours, in-process) against a stand-in llama.cpp router
and Hugging Face API on 127.0.0.1 (``tests/support/llama_router.py``): the model list, load
(with the question about the loaded ones, the progress bar, Escape to stop), unload, the
Hugging Face search and download, the connection error, the embedded models; and the sign-in
that stores the server where Pi does. ``test_llama_pi.py`` holds the screens next to Pi's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.e2e._harness import Sandbox
from tests.support.llama_router import MIB, LlamaRouter, llama_router
from tests.support.local_model import SMALL_MODEL, cache_env_with_only

pytestmark = pytest.mark.timeout(120)

ROUTER_MODELS = [
    {"id": "coder-q4", "status": {"value": "loaded"}, "meta": {"n_ctx": 32768}},
    {"id": "big-q8", "status": {"value": "unloaded", "args": ["llama-server", "-c", "4096"]}},
]
HUB = {
    "acme/tiny-GGUF": {"downloads": 12345, "files": {"tiny-Q8_0.gguf": 6 * MIB, "tiny-Q4_K_M.gguf": 3 * MIB,
                                                      "mmproj-F16.gguf": MIB}},
    "acme/tinier-GGUF": {"downloads": 99, "files": {"tinier-F16.gguf": MIB}},
}  # fmt: skip


def _signed_in(router: LlamaRouter, key: str | None = None) -> Any:
    """``auth.json`` as Pi's ``/login llama.cpp`` leaves it."""

    def write(sandbox: Sandbox) -> None:
        credential: dict[str, Any] = {"type": "api_key", "env": {"LLAMA_BASE_URL": router.base_url}}
        if key:
            credential["key"] = key
        path = sandbox.agent_dir / "auth.json"
        path.write_text(json.dumps({"llama.cpp": credential}), encoding="utf-8")
        path.chmod(0o600)

    return write


def _frame(screen: str) -> list[str]:
    """The rows of ``/llama``'s frame (from its title to the key hints)."""
    lines = [line.rstrip() for line in screen.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("─")) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("─"))
    return lines[start:end]


def test_models_are_listed_loaded_with_progress_and_unloaded(tmp_path: Path) -> None:
    with llama_router(ROUTER_MODELS) as router:

        async def scenario(app: Driven) -> None:
            await app.command("/llama")
            screen = await app.wait_for("Download model…")
            assert _frame(screen) == [
                " llama.cpp models",
                f" {router.base_url}",
                "",
                "→ coder-q4                            loaded · 33k context",
                "  big-q8",
                "  local/qwen2.5-coder-1.5b            embedded · 1.04 GiB to set up",
                "  local/qwen2.5-coder-0.5b            embedded · 468.6 MiB to set up",
                "  Download model…                     Hugging Face owner/repository[:quant]",
                "",
                " enter load/unload/download • escape/ctrl+c close",
            ]
            await app.send("Down", "Enter")
            await app.wait_for("1 model is loaded")
            await app.send("Down", "Enter")  # keep it loaded
            screen = await app.wait_for("25%")
            assert _frame(screen)[:3] == [" Loading model", " big-q8", ""]
            assert "██████████──────────────────────────────" in screen
            router.release()
            screen = await app.wait_for("big-q8                              loaded · 8k context")
            assert "Loaded big-q8" in app.history()
            await app.send("Enter")  # big-q8 is first now: unload it
            await app.wait_for("Unload model?")
            await app.send("Enter")
            await app.wait_for("Unloaded big-q8", everywhere=True)
            await app.wait_for("load/unload/download")
            await app.send("Escape")
            await app.wait_until_gone("llama.cpp models")
            await app.command("/model")
            await app.type("coder")
            await app.wait_for("coder-q4 [llama.cpp]")
            await app.send("Escape")
            await app.quit()

        play(
            tmp_path,
            "ours",
            [],
            scenario,
            before=_signed_in(router, "sekrit"),
            env={"PI_LOCAL_CACHE": str(tmp_path / "none")},
        )
    posts = [(path, body) for method, path, body in router.requests if method == "POST"]
    assert posts == [("/models/load", {"model": "big-q8"}), ("/models/unload", {"model": "big-q8"})]
    assert router.authorization == "Bearer sekrit"


def test_a_model_found_on_hugging_face_is_downloaded_by_the_router(tmp_path: Path) -> None:
    with llama_router(ROUTER_MODELS, HUB) as router:

        async def scenario(app: Driven) -> None:
            await app.command("/llama")
            await app.wait_for("Download model…")
            await app.send("Up", "Enter")  # the last row
            await app.wait_for("Type at least 2 characters")
            await app.type("tin")
            screen = await app.wait_for("→ acme/tiny-GGUF  12.3k downloads")
            assert "  acme/tinier-GGUF  99 downloads" in screen
            await app.send("Enter")
            screen = await app.wait_for("Select quantization")
            assert _frame(screen)[:5] == [
                " Select quantization",
                " acme/tiny-GGUF",
                "",
                "→ Q4_K_M · 3.00 MiB · recommended",
                "  Q8_0 · 6.00 MiB",
            ]
            await app.send("Enter")
            screen = await app.wait_for("1.50 MiB / 3.00 MiB")
            assert _frame(screen)[:2] == [" Downloading model", " acme/tiny-GGUF:Q4_K_M"]
            assert "████████████████████──────────────────── 50%" in screen
            router.release()
            await app.wait_for("Downloaded acme/tiny-GGUF:Q4_K_M", everywhere=True)
            await app.wait_for("  acme/tiny-GGUF:Q4_K_M")
            await app.send("Escape")
            await app.wait_until_gone("llama.cpp models")
            await app.quit()

        play(tmp_path, "ours", [], scenario, before=_signed_in(router),
             env={"HF_ENDPOINT": router.base_url, "HF_TOKEN": "hf-test", "PI_LOCAL_CACHE": str(tmp_path / "none")})  # fmt: skip
    posts = [(path, body) for method, path, body in router.requests if method == "POST"]
    assert posts == [("/models", {"model": "acme/tiny-GGUF:Q4_K_M"})]
    searches = [path for method, path, _ in router.requests if path.startswith("/api/models?")]
    assert searches == ["/api/models?search=tin&filter=gguf&sort=downloads&direction=-1&limit=20"]
    assert any(path == "/models?reload=1" for _, path, _ in router.requests)


def test_escape_stops_a_load_after_asking(tmp_path: Path) -> None:
    models = [{"id": "big-q8", "status": {"value": "unloaded"}}]
    with llama_router(models) as router:

        async def scenario(app: Driven) -> None:
            await app.command("/llama")
            await app.wait_for("Download model…")
            await app.send("Enter")
            await app.wait_for("25%")  # the router is loading it
            await app.send("Escape")
            screen = await app.wait_for("Stop loading?")
            assert _frame(screen)[:2] == [" Stop loading?", " big-q8"]
            await app.send("Enter")
            await app.wait_for("load/unload/download")
            await app.send("Escape")
            await app.quit()

        play(
            tmp_path,
            "ours",
            [],
            scenario,
            before=_signed_in(router),
            env={"PI_LOCAL_CACHE": str(tmp_path / "none")},
        )
        assert router.entry("big-q8") == {"id": "big-q8", "status": {"value": "unloaded"}}
    posts = [(path, body) for method, path, body in router.requests if method == "POST"]
    assert posts == [("/models/load", {"model": "big-q8"}), ("/models/unload", {"model": "big-q8"})]


def test_an_unreachable_server_offers_retry_and_close(tmp_path: Path) -> None:
    async def scenario(app: Driven) -> None:
        await app.command("/llama")
        screen = await app.wait_for("Retry")
        frame = _frame(screen)
        assert frame[:3] == [" llama.cpp unavailable", " http://127.0.0.1:9", ""]
        assert frame[3].startswith(" Could not reach llama.cpp server at http://127.0.0.1:9: ")
        assert frame[-4:] == ["→ Retry", "  Close", "", " enter select • escape/ctrl+c cancel"]
        await app.send("Down", "Enter")
        await app.wait_until_gone("llama.cpp unavailable")
        assert app.provider.requests == []  # not sent to the model
        await app.quit()

    play(tmp_path, "ours", [], scenario, env={"LLAMA_BASE_URL": "http://127.0.0.1:9/v1/"})


def test_without_a_server_the_embedded_models_are_managed(tmp_path: Path) -> None:
    """A model cache holding only the small model (and the real runtime): it is set up, so
    choosing it makes it the session's model; the other asks before setting up."""

    async def scenario(app: Driven) -> None:
        await app.command("/llama")
        screen = await app.wait_for("llama.cpp models")
        frame = _frame(screen)
        assert frame[1] == " No llama.cpp server: /login llama.cpp to add one"
        assert "→ local/qwen2.5-coder-1.5b            embedded · 1.04 GiB to set up" in frame
        assert f"  local/{SMALL_MODEL}            embedded · set up" in frame
        assert "Download model…" not in screen
        assert frame[-1] == " enter load/unload/set up • escape/ctrl+c close"
        await app.send("Enter")
        screen = await app.wait_for("Set up model?")
        assert "1.04 GiB from Hugging Face, else PyPI; sha256 checked" in screen
        await app.send("Down", "Enter")  # No
        await app.wait_for("load/unload/set up")
        await app.send("Down", "Enter")
        await app.wait_for(f"Model: {SMALL_MODEL}", everywhere=True)
        await app.wait_until_gone("llama.cpp models")
        await app.quit()

    play(tmp_path, "ours", [], scenario, env=cache_env_with_only(tmp_path / "cache", SMALL_MODEL))


def test_login_checks_the_server_and_stores_it_as_pi_does(tmp_path: Path) -> None:
    with llama_router(ROUTER_MODELS) as router:
        router.api_key = "sekrit"

        async def scenario(app: Driven) -> None:
            for key, outcome in (("wrong", "Failed to save API key for llama.cpp: Invalid API Key"),
                                 ("sekrit", "Saved API key for llama.cpp.")):  # fmt: skip
                await app.type("/login llama.cpp")
                await app.wait_for("→ llama.cpp")  # completion: Enter takes it, Enter runs it
                await app.send("Enter")
                await app.wait_until_gone("→ llama.cpp")
                await app.send("Enter")
                screen = await app.wait_for("llama.cpp server URL")
                assert "e.g., http://127.0.0.1:9931" in screen
                await app.type(router.base_url + "/v1/")
                await app.send("Enter")
                await app.wait_for("API key (optional)")
                await app.type(key)
                await app.send("Enter")
                await app.wait_for(outcome, everywhere=True)
            await app.command("/llama")
            await app.wait_for("coder-q4                            loaded · 33k context")
            await app.send("Escape")
            await app.quit()

        app = play(tmp_path, "ours", [], scenario, env={"PI_LOCAL_CACHE": str(tmp_path / "none")})
    stored = (app.sandbox.agent_dir / "auth.json").read_text(encoding="utf-8")
    expected = {"llama.cpp": {"type": "api_key", "key": "sekrit", "env": {"LLAMA_BASE_URL": router.base_url}}}
    assert stored == json.dumps(expected, indent=2)


def test_the_embedded_setup_reports_to_the_progress_screen_and_stops_when_asked() -> None:
    """The setup runs in a thread (``prepare_local_model``); its reports reach the screen on
    the loop, and once the user stopped it the next report ends it."""
    import asyncio
    import threading

    from pi_coding_agent.app.interactive.commands._llama import _SetupProgress
    from pi_coding_agent.core.local_model import LoadProgress, SetupError

    async def run() -> list[LoadProgress]:
        shown: list[LoadProgress] = []
        stopping = threading.Event()
        progress = _SetupProgress(shown.append, stopping)

        def setup() -> None:
            progress.stage("downloading Qwen from PyPI")
            progress.advance(3 * MIB, 6 * MIB, "B")
            progress.advance(2, 9, "packages")
            stopping.set()
            progress.advance(3, 9, "packages")

        with pytest.raises(SetupError, match="setup stopped"):
            await asyncio.to_thread(setup)
        await asyncio.sleep(0)
        return shown

    assert asyncio.run(run()) == [
        LoadProgress("Downloading Qwen from PyPI"),
        LoadProgress("Downloading Qwen from PyPI", 0.5, "3.00 MiB / 6.00 MiB"),
        LoadProgress("Downloading Qwen from PyPI", 2 / 9, "2 packages / 9 packages"),
    ]
