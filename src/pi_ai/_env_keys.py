"""Which environment variable holds the API key of which provider (same names as Pi 1.6)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from pi_ai._provider_ids import canonical_provider

AUTHENTICATED_MARKER = "<authenticated>"
"""Returned for providers authenticated by ambient credentials (cloud SDK files, roles)."""

_ENV_VARS: dict[str, tuple[str, ...]] = {
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    # ANTHROPIC_AUTH_TOKEN counts as configured but is sent as a bearer header, not as a key.
    "anthropic": ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "ant-ling": ("ANT_LING_API_KEY",),
    # Qwen Token Plan: the per-plan variable first, then the region variable both plans shared.
    "qwen-token-plan": ("QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-cn": ("QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "qwen-token-plan-individual": ("QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-individual-cn": ("QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "openai": ("OPENAI_API_KEY",),
    "azure": ("AZURE_OPENAI_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "typesafe": ("TYPESAFE_API_KEY",),
    "radius": ("RADIUS_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "zai-coding-cn": ("ZAI_CODING_CN_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "baseten": ("BASETEN_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "meta": ("META_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
}

_BEDROCK_VARS = (
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)


def env_value(name: str, env: Mapping[str, str] | None) -> str | None:
    """Scoped overrides first, then the process environment; empty counts as unset."""
    return (env.get(name) if env else None) or os.environ.get(name) or None


def api_key_env_vars(provider: str) -> tuple[str, ...]:
    """The variables Pi consults for ``provider``, in order (empty for unknown providers)."""
    return _ENV_VARS.get(canonical_provider(provider), ())


def get_env_api_key(provider: str, env: Mapping[str, str] | None = None) -> str | None:
    """The API key for ``provider`` from the environment, or ``AUTHENTICATED_MARKER``."""
    for name in api_key_env_vars(provider):
        if provider == "anthropic" and name == "ANTHROPIC_AUTH_TOKEN":
            continue
        value = env_value(name, env)
        if value:
            return value
    if provider == "google-vertex":
        credentials = env_value("GOOGLE_APPLICATION_CREDENTIALS", env)
        path = credentials or os.path.expanduser("~/.config/gcloud/application_default_credentials.json")
        has_project = env_value("GOOGLE_CLOUD_PROJECT", env) or env_value("GCLOUD_PROJECT", env)
        if os.path.exists(path) and has_project and env_value("GOOGLE_CLOUD_LOCATION", env):
            return AUTHENTICATED_MARKER
    if provider == "amazon-bedrock":
        keys = env_value("AWS_ACCESS_KEY_ID", env) and env_value("AWS_SECRET_ACCESS_KEY", env)
        if keys or any(env_value(name, env) for name in _BEDROCK_VARS):
            return AUTHENTICATED_MARKER
    return None
