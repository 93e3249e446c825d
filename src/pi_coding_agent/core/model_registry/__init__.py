"""Which models the coding agent can use, and picking one from what the user typed."""

from pi_coding_agent.core.model_registry._catalog import (
    MissingCredentials,
    ModelCatalog,
    RequestAuth,
    missing_key_message,
)
from pi_coding_agent.core.model_registry._collate import collation_key, fuzzy_matches
from pi_coding_agent.core.model_registry._list import format_token_count, matching_models, model_table
from pi_coding_agent.core.model_registry._models_json import load_models_json
from pi_coding_agent.core.model_registry._models_store import CatalogRefreshError
from pi_coding_agent.core.model_registry._resolver import (
    DEFAULT_MODEL_PER_PROVIDER,
    ResolveCliModelResult,
    default_available_model,
    find_exact_reference,
    parse_model_pattern,
    resolve_cli_model,
)
from pi_coding_agent.core.model_registry._scope import ScopedModel, resolve_model_scope

__all__ = [
    "DEFAULT_MODEL_PER_PROVIDER",
    "CatalogRefreshError",
    "MissingCredentials",
    "ModelCatalog",
    "RequestAuth",
    "ResolveCliModelResult",
    "ScopedModel",
    "collation_key",
    "default_available_model",
    "find_exact_reference",
    "format_token_count",
    "fuzzy_matches",
    "load_models_json",
    "matching_models",
    "missing_key_message",
    "model_table",
    "parse_model_pattern",
    "resolve_cli_model",
    "resolve_model_scope",
]
