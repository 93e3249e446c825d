"""The ``models`` global of codemode scripts (Pi 1.6): the model catalog by type.

``models.getModelsOfType(type, provider?)``, ``models.getAvailableOfType(type, provider?)`` and
``models.getModelOfType(type, provider, id)`` answer from the session's catalogs (``chat``
models, ``image`` models, ``classifier`` models) as plain JSON entries without ``headers``
(``models.json`` headers can carry credentials). ``models.classify`` and
``models.generateImages`` exist with Pi's argument checks; running them needs a model of that
type, which the catalog (``ModelsAccess``) decides.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pi_ai import AbortSignal
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


def _shape(value: Any) -> str:
    """A script value in an error message, without its contents."""
    if value is None:
        return "undefined"
    if isinstance(value, list):
        return "an empty array" if not value else "an array"
    if isinstance(value, dict):
        keys = list(value)
        return "{}" if not keys else "{ " + ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "") + " }"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _arg(args: list[Any], index: int) -> Any:
    return args[index] if len(args) > index else None


def model_globals(access: ModelsAccess) -> list[HostGlobal]:
    """``models.*`` for the sandbox (its arguments arrive as a list, as Pi spreads them)."""

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
            shown = ", ".join(_shape(arg) for arg in args)
            raise CallRejected(
                f"models.getModelOfType(type, provider, id) takes three strings, not ({shown}); "
                'for example models.getModelOfType("chat", "anthropic", "claude-sonnet-4-5").'
            )
        found = find(_model_type(_arg(args, 0)), provider, model_id)
        return None if found is None else model_info(found)

    def runner(method: str, kind: str) -> Callable[[list[Any], AbortSignal], Awaitable[Any]]:
        async def run(args: list[Any], signal: AbortSignal) -> Any:
            listing = f'models.getAvailableOfType("{kind}") lists the {kind} models you can use.'
            given = _arg(args, 0)
            if not isinstance(given, dict) or not isinstance(given.get("provider"), str) or not isinstance(given.get("id"), str):
                raise CallRejected(f"models.{method}() takes {_article(kind)} model first, not {_shape(given)}. {listing}")
            ref = f"{given['provider']}/{given['id']}"
            resolved = find(kind, given["provider"], given["id"])
            if resolved is None:
                other = next((t for t in MODEL_TYPES if t != kind and find(t, given["provider"], given["id"])), None)
                if other is not None:
                    raise CallRejected(f'"{ref}" is {_article(other)} model, not {_article(kind)} model. {listing}')
                raise CallRejected(f'No {kind} model "{ref}" is known. {listing}')
            if access.run is None:
                raise CallRejected(f"models.{method}() cannot run models in this version of pi.")
            return await access.run(method, resolved, _arg(args, 1), signal)

        return run

    return [
        HostGlobal("models.getModelsOfType", models_of_type),
        HostGlobal("models.getAvailableOfType", available_of_type),
        HostGlobal("models.getModelOfType", model_of_type),
        HostGlobal("models.classify", runner("classify", "classifier")),
        HostGlobal("models.generateImages", runner("generateImages", "image")),
    ]
