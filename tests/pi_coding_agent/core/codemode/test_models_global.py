"""The ``models`` global in the QuickJS sandbox (``model_globals`` over a small catalog): the
three catalog reads, ``headers`` never shown, Pi 1.6's argument checks, ``classify()`` and
``generateImages()`` resolving the model by provider and id only."""

from __future__ import annotations

import json
from typing import Any

from pi_ai import AbortSignal
from pi_coding_agent.core.codemode import run_script
from pi_coding_agent.core.codemode._models import ModelsAccess, model_globals

CATALOG: dict[str, list[dict[str, Any]]] = {
    "chat": [
        {"id": "m1", "provider": "acme", "api": "openai-completions", "headers": {"X-Key": "secret"}},
        {"id": "m2", "provider": "other", "api": "openai-completions"},
    ],
    "image": [{"id": "painter", "provider": "acme", "api": "openrouter-images", "type": "image"}],
    "classifier": [],
}


def _access(ran: list[tuple[str, Any, Any]]) -> ModelsAccess:
    def of_type(kind: str, provider: str | None) -> list[dict[str, Any]]:
        return [entry for entry in CATALOG[kind] if provider is None or entry["provider"] == provider]

    async def available(kind: str, provider: str | None) -> list[dict[str, Any]]:
        return [entry for entry in of_type(kind, provider) if entry["provider"] == "acme"]

    async def run(method: str, model: dict[str, Any], context: Any, _signal: AbortSignal) -> Any:
        ran.append((method, model, context))
        return {"output": [], "stopReason": "stop"}

    return ModelsAccess(models_of_type=of_type, available_of_type=available, run=run)


async def _value(code: str, ran: list[tuple[str, Any, Any]] | None = None) -> Any:
    result = await run_script(code, host_globals=model_globals(_access(ran if ran is not None else [])))
    assert result.ok, result.error
    assert result.value_json is not None
    return json.loads(result.value_json)


async def test_catalog_reads_by_type_without_headers() -> None:
    value = await _value(
        "return [Object.keys(models), await models.getModelsOfType('chat'),"
        " (await models.getAvailableOfType('chat')).map((m) => m.id),"
        " await models.getModelOfType('image', 'acme', 'painter'),"
        " (await models.getModelOfType('chat', 'acme', 'painter')) ?? 'none',"
        " await models.getModelsOfType('classifier')]"
    )
    keys, chat, available, painter, missing, classifiers = value
    assert keys == ["getModelsOfType", "getAvailableOfType", "getModelOfType", "classify", "generateImages"]
    assert chat == [
        {"id": "m1", "provider": "acme", "api": "openai-completions"},
        {"id": "m2", "provider": "other", "api": "openai-completions"},
    ]
    assert available == ["m1"]
    assert painter == CATALOG["image"][0]
    assert missing == "none"
    assert classifiers == []


async def test_bad_arguments_reject_with_one_line() -> None:
    value = await _value(
        "const errors = [];"
        "for (const call of [() => models.getModelsOfType('video'), () => models.getModelsOfType('chat', 3),"
        " () => models.getModelOfType('chat', 'acme'), () => models.classify({ provider: 'acme', id: 'm1' }, {}),"
        " () => models.classify({ provider: 'acme', id: 'nope' }, {}), () => models.generateImages('painter', {})]) {"
        " try { await call(); errors.push('resolved'); } catch (error) { errors.push(error.message); } }"
        "return errors"
    )
    assert value[0] == 'Unknown model type "video": the types are "chat", "image" and "classifier".'
    assert value[1] == "The provider has to be a string."
    assert value[2].startswith("models.getModelOfType(type, provider, id) takes three strings, not (a string, a string)")
    assert value[3].startswith('"acme/m1" is a chat model, not a classifier model.')
    assert value[4].startswith('No classifier model "acme/nope" is known.')
    assert value[5].startswith("models.generateImages() takes an image model first, not a string.")
    assert all("\n" not in message for message in value)


async def test_model_runs_get_the_catalog_entry_not_the_scripts_object() -> None:
    ran: list[tuple[str, Any, Any]] = []
    value = await _value(
        "return await models.generateImages({ provider: 'acme', id: 'painter', baseUrl: 'https://evil' },"
        " { input: [{ type: 'text', text: 'a cat' }] })",
        ran,
    )
    assert value == {"output": [], "stopReason": "stop"}
    assert ran == [("generateImages", CATALOG["image"][0], {"input": [{"type": "text", "text": "a cat"}]})]
