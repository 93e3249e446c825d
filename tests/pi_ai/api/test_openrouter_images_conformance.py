"""openrouter-images against the real Pi 0.85: each case of
``tests/conformance/cases/wire/openrouter-images`` (Pi's ``generateImages`` recorded by
``tools/gen_wire_cases.py``, its request redirected to a loopback server) replayed through
``pi_ai.generate_images``: the request (one user message, ``stream: false``, the model's
``modalities``, headers), the output (text, inline images only), usage and cost, and errors;
and through ``pi_ai.ImagesModels`` (Pi's ``builtinImagesModels``), which finds the key itself:
an OpenRouter sign-in, a stored key, ``OPENROUTER_API_KEY``, the option, none."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import msgspec
import pytest

import pi_ai
from pi_ai.api._http import close_clients, redirect_requests
from tests.support import wire_cases
from tests.support.loopback import LoopbackServer
from tests.support.pi16 import as_pi085

API = "openrouter-images"
NAMES = wire_cases.case_names(API)
PI085_CACHE_WRITE = {"google/gemini-2.5-flash-image": 0.0833333333333333}
"""Prices of Pi 0.85's catalog that 1.6's changed: the recorded cases were priced with these."""


async def _ours(case: dict[str, Any]) -> dict[str, Any]:
    provider, _, model_id = case["model"]["imageRef"].partition("/")
    model = pi_ai.get_image_model(provider, model_id)
    assert model is not None
    if model_id in PI085_CACHE_WRITE:
        cost = msgspec.structs.replace(model.cost, cache_write=PI085_CACHE_WRITE[model_id])
        model = msgspec.structs.replace(model, cost=cost)
    context = pi_ai.convert(case["context"], pi_ai.ImagesContext)
    options = wire_cases.build_options({**case, "fn": "stream"}, pi_ai.ImagesOptions)
    store = pi_ai.InMemoryCredentialStore(copy.deepcopy(case.get("credentials") or {}))
    async with LoopbackServer([wire_cases._reply(spec) for spec in case["replies"]]) as server:
        with redirect_requests(server.url) as originals:
            if case.get("fn") == "imagesModels":  # the key found by the collection
                result = await pi_ai.ImagesModels(store).generate_images(model, context, options)
            else:
                result = await pi_ai.generate_images(model, context, options)
        await close_clients()
    after = {provider: await store.read(provider) for provider in case.get("credentials") or {}}
    requests = [
        {
            "method": r.method,
            "path": r.path,
            "url": url,
            "headers": dict(r.headers),
            "bodyText": r.body.decode(),
        }
        for r, url in zip(server.requests, originals, strict=False)
    ]
    return {
        "requests": requests,
        "result": wire_cases._zero_timestamps(pi_ai.to_builtins(result)),
        "credentialsAfter": after,
    }


def test_cases_are_recorded() -> None:
    assert len(NAMES) >= 5


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_pi(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case, pi = wire_cases.load(API, name)
    wire_cases.apply_environment(case, tmp_path, monkeypatch)
    ours = asyncio.run(_ours(case))
    assert [wire_cases.comparable_request(r) for r in ours["requests"]] == [
        wire_cases.comparable_request(r) for r in pi["requests"]
    ]
    assert as_pi085(ours["result"]) == pi["result"]  # the cases are Pi 0.85's
    if "credentialsAfter" in pi:
        assert ours["credentialsAfter"] == pi["credentialsAfter"]


def test_the_key_sources_are_recorded() -> None:
    """Pi's ``builtinImagesModels`` cases: a sign-in, a stored key over the environment, the
    environment, the option over a stored key, and none."""
    found = {name for name in NAMES if wire_cases.load(API, name)[0].get("fn") == "imagesModels"}
    assert len(found) >= 5


def test_catalog_is_pis() -> None:
    models = pi_ai.get_image_models("openrouter")
    assert len(models) == 74  # Pi 1.6's catalog: 0.85's 50 less one it dropped, and 25 new
    flux = pi_ai.get_image_model("openrouter", "black-forest-labs/flux.2-pro")
    assert flux is not None and flux.output == ["image"] and flux.api == API and flux.type == "image"
    assert pi_ai.get_image_model("openrouter", "x-ai/grok-imagine-image-quality") is None


def test_unknown_image_api_is_refused() -> None:
    model = pi_ai.ImagesModel(
        id="m", name="m", api="no-such-images", provider="p", base_url="http://127.0.0.1:9"
    )
    with pytest.raises(LookupError, match="No API provider registered for api: no-such-images"):
        asyncio.run(pi_ai.generate_images(model, pi_ai.ImagesContext(input=[])))
