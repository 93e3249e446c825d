"""The built-in catalog is Pi 1.6's (the release users run), checked against Pi's own runtime at every run: the same
document ``tools/gen_catalog.py`` writes (every provider, every model, every field: ids,
names, prices, limits, ``compat``, thinking maps), and nothing of it lost when read."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from pi_ai import Model
from pi_ai.models import builtin_provider_infos, get_models, get_provider_info, get_providers
from tests.support.oracle import require_live_oracle

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import gen_catalog  # noqa: E402

MODELS_DIR = REPO / "src" / "pi_ai" / "models"
SIGN_IN_NOT_BUILT = {"meta", "openai"}
"""Pi 1.6's new subscription sign-ins (Meta Muse, ChatGPT on ``openai``), not built here yet
(docs/pi-1.6/models.md); their API keys work."""


@pytest.fixture(scope="module")
def pi_catalog() -> dict[str, Any]:
    require_live_oracle(current=True)
    return gen_catalog.dump_pi_catalog()


@pytest.mark.oracle
def test_catalog_files_are_what_pi_has_now(pi_catalog: dict[str, Any]) -> None:
    catalog, providers = gen_catalog.catalog_documents(pi_catalog)
    ours = json.loads((MODELS_DIR / "catalog.json").read_text(encoding="utf-8"))
    assert list(ours["providers"]) == list(catalog["providers"])  # type: ignore[call-overload]
    for provider, models in catalog["providers"].items():  # type: ignore[attr-defined]
        assert ours["providers"][provider] == models, f"{provider} drifted from Pi: run tools/gen_catalog.py"
    assert ours == catalog
    assert json.loads((MODELS_DIR / "providers.json").read_text(encoding="utf-8")) == providers


@pytest.mark.oracle
def test_every_field_of_every_model_survives_reading(pi_catalog: dict[str, Any]) -> None:
    assert get_providers() == list(pi_catalog["models"])
    defaults = {
        field.encode_name: msgspec.to_builtins(
            field.default if field.default is not msgspec.NODEFAULT else field.default_factory()  # type: ignore[misc]
        )
        for field in msgspec.structs.fields(Model)
        if field.default is not msgspec.NODEFAULT or field.default_factory is not msgspec.NODEFAULT
    }
    # Every key Pi's models have is a field ours has (an unknown key would be dropped silently).
    keys = {key for models in pi_catalog["models"].values() for model in models for key in model}
    assert keys <= {field.encode_name for field in msgspec.structs.fields(Model)}
    for provider, models in pi_catalog["models"].items():
        ours = get_models(provider)
        assert [model.id for model in ours] == [model["id"] for model in models]
        for model, read in zip(models, ours, strict=True):
            back = msgspec.to_builtins(read)
            for key, value in model.items():
                assert back.get(key, defaults.get(key)) == value, f"{provider}/{model['id']}: {key}"


@pytest.mark.oracle
def test_provider_names_and_sign_in_methods_are_pis(pi_catalog: dict[str, Any]) -> None:
    assert list(builtin_provider_infos()) == list(pi_catalog["providers"])
    for provider, info in pi_catalog["providers"].items():
        ours = get_provider_info(provider)
        assert ours is not None
        assert (ours.name, ours.api_key, ours.oauth) == (info["name"], info.get("apiKey"), info.get("oauth"))
    from pi_ai.oauth import OAUTH_PROVIDERS, get_oauth_flow

    with_sign_in = [provider for provider, info in pi_catalog["providers"].items() if "oauth" in info]
    assert [provider for provider in with_sign_in if provider not in SIGN_IN_NOT_BUILT] == list(
        OAUTH_PROVIDERS
    )
    for provider in OAUTH_PROVIDERS:
        flow = get_oauth_flow(provider)
        assert flow is not None and flow.name == pi_catalog["providers"][provider]["oauth"]
