"""The ``models`` global of codemode scripts (Pi 1.6): the model catalog by type.

``models.getModelsOfType(type, provider?)``, ``models.getAvailableOfType(type, provider?)`` and
``models.getModelOfType(type, provider, id)`` answer from the session's catalogs (``chat``
models, ``image`` models, ``classifier`` models) as plain JSON entries without ``headers``
(``models.json`` headers can carry credentials). ``models.classify`` and
``models.generateImages`` resolve their model by provider and id only (a script's
``baseUrl`` or ``headers`` never reach a request), check the context, and run through
``ModelsAccess.run``, which answers with the result as JSON and never raises for a provider's
failure (``stopReason`` says it); ``ModelCalls`` records the calls as nested call rows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pi_ai import AbortSignal
from pi_coding_agent.core.codemode._model_calls import ModelCalls
from pi_coding_agent.core.codemode._model_checks import (
    check_classifier_context,
    check_images_context,
    describe_value,
)
from pi_coding_agent.core.codemode._sandbox import CallRejected, HostGlobal

MODEL_TYPES = ("chat", "image", "classifier")

ModelEntry = dict[str, Any]


@dataclass(frozen=True)
class ModelsAccess:
    """The session's catalogs, as the ``models`` global reads them."""

    models_of_type: Callable[[str, str | None], list[ModelEntry]]
    """Every known model of a type (of one provider when given), as catalog JSON."""
    available_of_type: Callable[[str, str | None], Awaitable[list[ModelEntry]]]
    """The models of a type whose provider has credentials."""
    run: Callable[[str, ModelEntry, Any, AbortSignal], Awaitable[Any]] | None = None
    """Run ``classify`` / ``generateImages`` (the method name, the resolved entry, the checked
    context); ``None``: running models is not offered."""


def model_info(entry: ModelEntry) -> ModelEntry:
    """A catalog entry as scripts see it: everything but ``headers``."""
    return {key: value for key, value in entry.items() if key != "headers"}


def _model_type(value: Any) -> str:
    if value in MODEL_TYPES:
        return str(value)
    shown = "undefined" if value is None else repr(value) if not isinstance(value, str) else f'"{value}"'
    raise CallRejected(f'Unknown model type {shown}: the types are "chat", "image" and "classifier".')


def _provider(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise CallRejected("The provider has to be a string.")
    return value


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _arg(args: list[Any], index: int) -> Any:
    return args[index] if len(args) > index else None


def model_globals(access: ModelsAccess, calls: ModelCalls | None = None) -> list[HostGlobal]:
    """``models.*`` for the sandbox (its arguments arrive as a list, as Pi spreads them).
    ``calls``: where ``classify()`` / ``generateImages()`` calls are recorded (one script's)."""

    def find(kind: str, provider: str, model_id: str) -> ModelEntry | None:
        return next((entry for entry in access.models_of_type(kind, provider) if entry.get("id") == model_id), None)

    async def models_of_type(args: list[Any], _signal: AbortSignal) -> Any:
        kind, provider = _model_type(_arg(args, 0)), _provider(_arg(args, 1))
        return [model_info(entry) for entry in access.models_of_type(kind, provider)]

    async def available_of_type(args: list[Any], _signal: AbortSignal) -> Any:
        kind, provider = _model_type(_arg(args, 0)), _provider(_arg(args, 1))
        return [model_info(entry) for entry in await access.available_of_type(kind, provider)]

    async def model_of_type(args: list[Any], _signal: AbortSignal) -> Any:
        provider, model_id = _arg(args, 1), _arg(args, 2)
        if not isinstance(provider, str) or not isinstance(model_id, str):
            shown = ", ".join(describe_value(arg) for arg in args)
            raise CallRejected(
                f"models.getModelOfType(type, provider, id) takes three strings, not ({shown}); "
                'for example models.getModelOfType("chat", "anthropic", "claude-sonnet-4-5").'
            )
        found = find(_model_type(_arg(args, 0)), provider, model_id)
        return None if found is None else model_info(found)

    def runner(method: str, kind: str, check: Callable[[Any], dict[str, Any]]) -> Callable[[list[Any], AbortSignal], Awaitable[Any]]:
        async def run(args: list[Any], signal: AbortSignal) -> Any:
            listing = f'models.getAvailableOfType("{kind}") lists the {kind} models you can use.'
            given = _arg(args, 0)
            if not isinstance(given, dict) or not isinstance(given.get("provider"), str) or not isinstance(given.get("id"), str):
                hint = " (models.getModelOfType() gives undefined for a model it does not know)" if given is None else ""
                raise CallRejected(f"models.{method}() takes {_article(kind)} model first, not {describe_value(given)}{hint}. {listing}")
            ref = f"{given['provider']}/{given['id']}"
            resolved = find(kind, given["provider"], given["id"])
            if resolved is None:
                other = next((t for t in MODEL_TYPES if t != kind and find(t, given["provider"], given["id"])), None)
                if other is not None:
                    raise CallRejected(f'"{ref}" is {_article(other)} model, not {_article(kind)} model. {listing}')
                raise CallRejected(f'No {kind} model "{ref}" is known. {listing}')
            execute = access.run
            if execute is None:
                raise CallRejected(f"models.{method}() cannot run models in this version of pi.")
            context = check(_arg(args, 1))
            if calls is None:
                return await execute(method, resolved, context, signal)
            return await calls.run(f"models.{method}", resolved, lambda: execute(method, resolved, context, signal))

        return run

    return [
        HostGlobal("models.getModelsOfType", models_of_type),
        HostGlobal("models.getAvailableOfType", available_of_type),
        HostGlobal("models.getModelOfType", model_of_type),
        HostGlobal("models.classify", runner("classify", "classifier", check_classifier_context)),
        HostGlobal("models.generateImages", runner("generateImages", "image", check_images_context)),
    ]
