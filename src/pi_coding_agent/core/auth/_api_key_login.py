"""Signing in with an API key: what Pi asks for each provider, and the credential it stores.

Most providers ask for the key alone ("Enter <provider's key name>"). Cloudflare's also ask
for the account id (and the AI Gateway id); Amazon Bedrock and Google Vertex first ask how
to authenticate, and may store only environment values (a profile, a project) or nothing;
llama.cpp asks for its server's URL and an optional key and checks them with the server.
"""

from __future__ import annotations

from typing import Any

from pi_ai.oauth import AuthPrompt, InfoEvent, InfoLink, LoginCallbacks, OAuthError, PromptOption


async def _text(callbacks: LoginCallbacks, message: str, *, secret: bool = False) -> str:
    return await callbacks.prompt(AuthPrompt("secret" if secret else "text", message))


async def _select(callbacks: LoginCallbacks, message: str, options: list[tuple[str, str]]) -> str:
    return await callbacks.prompt(
        AuthPrompt("select", message, options=[PromptOption(i, label) for i, label in options])
    )


async def _cloudflare(callbacks: LoginCallbacks, gateway: bool) -> dict[str, Any]:
    key = await _text(callbacks, "Enter Cloudflare API key", secret=True)
    env = {"CLOUDFLARE_ACCOUNT_ID": await _text(callbacks, "Enter Cloudflare account ID")}
    if gateway:
        env["CLOUDFLARE_GATEWAY_ID"] = await _text(callbacks, "Enter Cloudflare AI Gateway ID")
    return {"type": "api_key", "key": key, "env": env}


async def _bedrock(callbacks: LoginCallbacks) -> dict[str, Any]:
    method = await _select(
        callbacks,
        "Select Amazon Bedrock authentication method:",
        [
            ("bearer-token", "Bearer token"),
            ("aws-profile", "AWS profile"),
            ("credential-chain", "Existing AWS credential chain"),
        ],
    )
    if method == "bearer-token":
        return {
            "type": "api_key",
            "key": await _text(callbacks, "Enter Amazon Bedrock bearer token", secret=True),
        }
    callbacks.notify(
        InfoEvent(
            "Amazon Bedrock supports AWS profiles, IAM credentials, and role-based credentials.",
            [
                InfoLink(
                    "https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html",
                    "AWS credential provider chain",
                )
            ],
        )
    )
    if method == "aws-profile":
        return {"type": "api_key", "env": {"AWS_PROFILE": await _text(callbacks, "Enter AWS profile name")}}
    if method != "credential-chain":
        raise OAuthError(f"Unknown Amazon Bedrock auth method: {method}")
    await _text(callbacks, "Configure AWS credentials, then press Enter to continue")
    return {"type": "api_key"}


async def _vertex(callbacks: LoginCallbacks) -> dict[str, Any]:
    method = await _select(
        callbacks,
        "Select Google Vertex AI authentication method:",
        [
            ("api-key", "Google Cloud API key"),
            ("adc", "Application Default Credentials"),
            ("service-account", "Service account credentials file"),
        ],
    )
    if method == "api-key":
        return {"type": "api_key", "key": await _text(callbacks, "Enter Google Cloud API key", secret=True)}
    if method not in ("adc", "service-account"):
        raise OAuthError(f"Unknown Google Vertex AI auth method: {method}")
    callbacks.notify(
        InfoEvent(
            "Run `gcloud auth application-default login`, then provide the project and location."
            if method == "adc"
            else "Provide a service account credentials file, project, and location.",
            [
                InfoLink(
                    "https://cloud.google.com/docs/authentication/provide-credentials-adc",
                    "Application Default Credentials",
                )
            ],
        )
    )
    env = {
        "GOOGLE_CLOUD_PROJECT": await _text(callbacks, "Enter Google Cloud project ID"),
        "GOOGLE_CLOUD_LOCATION": await _text(callbacks, "Enter Google Cloud location"),
    }
    if method == "service-account":
        path = await _text(callbacks, "Enter service account credentials file path")
        if path:
            env["GOOGLE_APPLICATION_CREDENTIALS"] = path
    return {"type": "api_key", "env": env}


async def _llama_cpp(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Pi's llama.cpp sign-in: the server's URL and an optional key, checked by listing the
    router's models; stored as ``env.LLAMA_BASE_URL`` (and ``key`` when one was given)."""
    import os

    from pi_coding_agent.core.local_model import DEFAULT_SERVER_URL, LlamaClient, LlamaServerError

    suggested = os.environ.get("LLAMA_BASE_URL") or DEFAULT_SERVER_URL
    entered = await callbacks.prompt(AuthPrompt("text", "llama.cpp server URL", placeholder=suggested))
    try:
        client = LlamaClient(entered.strip() or suggested)
    except ValueError as error:
        raise OAuthError(str(error)) from None
    key = (await _text(callbacks, "API key (optional)", secret=True)).strip()
    client.api_key = key or None
    try:
        await client.models()
    except LlamaServerError as error:
        raise OAuthError(str(error)) from None
    return {"type": "api_key", **({"key": key} if key else {}), "env": {"LLAMA_BASE_URL": client.server_url}}


async def api_key_login(provider: str, key_name: str, callbacks: LoginCallbacks) -> dict[str, Any]:
    """Ask for ``provider``'s API key (``key_name``: "Anthropic API key") and return the credential."""
    if provider in ("cloudflare-workers-ai", "cloudflare-ai-gateway"):
        return await _cloudflare(callbacks, gateway=provider == "cloudflare-ai-gateway")
    if provider == "amazon-bedrock":
        return await _bedrock(callbacks)
    if provider == "google-vertex":
        return await _vertex(callbacks)
    if provider == "llama.cpp":
        return await _llama_cpp(callbacks)
    return {"type": "api_key", "key": await _text(callbacks, f"Enter {key_name}", secret=True)}
