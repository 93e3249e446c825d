"""The ``llama.cpp`` server's models as codemode classifiers, as Pi 1.6's ``/llama`` lists them:
``catalog_entry`` stores each selectable model as a classifier too (a chat model through
``llama-cpp-classify`` at the server; a decision model, which is no chat model unless it also
writes text, through System One at ``<server>/v1`` with images as ``images``), the next start
offers the stored classifiers to codemode's ``models`` when a server is configured, and a
``classify`` run reaches the stand-in llama.cpp server on 127.0.0.1 with the credential's key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_ai import AbortSignal
from pi_ai.api._http import close_clients
from pi_coding_agent.core.auth import AuthStorage
from pi_coding_agent.core.local_model import catalog_entry
from pi_coding_agent.core.local_model._llama_server import parse_model
from pi_coding_agent.core.model_registry import ModelCatalog
from pi_coding_agent.runtime.agent_session._models_access import models_access
from tests.support.llama_router import llama_router

MODELS = [
    {"id": "chatty", "status": {"value": "loaded"}, "meta": {"n_ctx": 8192}},
    {
        "id": "judge",
        "status": {"value": "sleeping"},
        "architecture": {"input_modalities": ["text", "image"], "output_modalities": ["decisions"]},
    },
    {"id": "later", "status": {"value": "unloaded"}},
]
SPAM = {"spam": {"type": "bool", "instructions": "Spam?", "criteria": {"true": "Unsolicited", "false": ""}}}
PNG = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}


def _sign_in(agent_dir: Path, server: str) -> None:
    path = agent_dir / "auth.json"
    credential = {"type": "api_key", "key": "sk-l", "env": {"LLAMA_BASE_URL": server}}
    path.write_text(json.dumps({"llama.cpp": credential}), encoding="utf-8")
    path.chmod(0o600)


async def test_stored_llama_models_classify_through_codemode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LLAMA_BASE_URL", raising=False)
    monkeypatch.delenv("LLAMA_API_KEY", raising=False)
    with llama_router(MODELS) as router:
        router.logprobs = {"Yes": -0.1, "No": -2.0}
        parsed = [model for model in map(parse_model, MODELS) if model is not None]
        entry = catalog_entry(router.base_url, parsed, set(), {})
        assert [(m.get("type", "chat"), m["id"], m["api"]) for m in entry] == [
            ("chat", "chatty", "openai-completions"),
            ("classifier", "chatty", "llama-cpp-classify"),
            ("classifier", "judge", "typesafe-system-one"),
        ]
        chatty, judge = entry[1], entry[2]
        assert (chatty["baseUrl"], chatty["input"], chatty["contextWindow"]) == (
            router.base_url,
            ["text"],
            8192,
        )
        assert "compat" not in chatty
        assert (judge["baseUrl"], judge["input"]) == (f"{router.base_url}/v1", ["text", "image"])
        assert judge["compat"] == {"imageInput": "images", "sendImageOptInHeader": False}

        store = {"llama.cpp": {"models": entry, "checkedAt": 1}}
        (tmp_path / "models-store.json").write_text(json.dumps(store), encoding="utf-8")
        _sign_in(tmp_path, router.base_url)
        access = models_access(ModelCatalog.load(tmp_path, AuthStorage.load(tmp_path / "auth.json")))
        listed = access.models_of_type("classifier", "llama.cpp")
        assert listed == [chatty, judge]
        available = await access.available_of_type("classifier", None)
        assert [m for m in available if m["provider"] == "llama.cpp"] == [chatty, judge]
        assert access.models_of_type("classifier", None)[-2:] == [chatty, judge]  # after pi-ai's catalog

        answered = await access.run(
            "classify", chatty, {"state": {"m": "hi"}, "questions": SPAM}, AbortSignal()
        )
        decided = await access.run(
            "classify", judge, {"state": {"m": "hi"}, "images": [PNG], "questions": SPAM}, AbortSignal()
        )
        await close_clients()
    assert answered["stopReason"] == "stop", answered.get("errorMessage")
    assert answered["answers"]["spam"]["probability"] > 0.8
    paths = [path for method, path, _ in router.requests if method == "POST"]
    assert "/completion" in paths and [p for p in paths if p.startswith("/v1")] == ["/v1/systemone"]
    assert router.authorization == "Bearer sk-l"
    # The decision model goes to System One at /v1 (the stand-in has none: a 404).
    systemone: list[Any] = [body for method, path, body in router.requests if path == "/v1/systemone"]
    assert len(systemone) == 1 and decided["stopReason"] == "error"
    assert systemone[0]["images"] == [f"data:image/png;base64,{PNG['data']}"]
    assert "assets" not in systemone[0]
