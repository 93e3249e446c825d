"""``pi auth ...``: print a provider's credential or check it, as Pi 0.85's auth commands do.

::

    pi auth print-api-key      [--provider P] [--model M]
    pi auth print-bearer-token [--provider P] [--model M] [--min-expiry 30m]
    pi auth check              [--provider P] [--model M] [--json] [--credentials] [--no-refresh]

The printing commands write the credential alone on stdout (exit 0) or ``Error: ...`` on
stderr (exit 1). A bearer token is an OAuth access token, refreshed first when it expires
within ``--min-expiry`` (default 30 minutes; it must then last that long). ``check`` prints
``ready`` / ``not_ready`` / ``invalid`` (or one JSON object with ``--json``) and exits 0 / 1 /
2; it refreshes an expired OAuth token unless ``--no-refresh``. Messages, exit codes and
JSON keys are Pi's. Signing in is not a command (in Pi neither): ``/login`` does it.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pi_ai import Model
    from pi_coding_agent.app.cli._args import Args
    from pi_coding_agent.core.model_registry import ModelCatalog

Kind = Literal["check", "api_key", "bearer_token"]
_KINDS: dict[str, Kind] = {"check": "check", "print-api-key": "api_key", "print-bearer-token": "bearer_token"}
_NAMES: dict[Kind, str] = {
    "check": "auth check",
    "api_key": "auth print-api-key",
    "bearer_token": "auth print-bearer-token",
}
_USAGE: dict[Kind, str] = {
    "check": "pi auth check --provider <provider> [--json] [--credentials] [--no-refresh]",
    "api_key": "pi auth print-api-key --provider <provider> [--model <model>]",
    "bearer_token": "pi auth print-bearer-token --provider <provider> [--model <model>] [--min-expiry <duration>]",
}
HELP = """Usage:
  pi auth print-api-key [--provider <provider>] [--model <model>]
  pi auth print-bearer-token [--provider <provider>] [--model <model>] [--min-expiry <duration>]
  pi auth check [--provider <provider>] [--model <model>] [--json] [--credentials] [--no-refresh]

Auth commands require at least one of --provider or --model. Checks refresh expired OAuth credentials by default; --no-refresh prevents this. --credentials emits the credential, or includes it in JSON output.
"""
_BEARER_MIN_EXPIRY_MS = 30 * 60_000
_UNITS_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000}


class AuthCommandError(Exception):
    pass


@dataclass
class AuthCommand:
    kind: Kind
    args: list[str] = field(default_factory=list)
    json: bool = False
    credentials: bool = False
    no_refresh: bool = False
    min_expiry_ms: int | None = None


def parse_auth_command(args: list[str]) -> AuthCommand:
    kind = _KINDS.get(args[1] if len(args) > 1 else "")
    if kind is None:
        raise AuthCommandError(
            f'Unknown auth command "{args[1] if len(args) > 1 else ""}". Use "pi auth print-api-key", '
            '"pi auth print-bearer-token", or "pi auth check".'
        )
    command = AuthCommand(kind)
    rest = iter(args[2:])
    for arg in rest:
        if arg == "--min-expiry":
            if kind != "bearer_token":
                raise AuthCommandError("--min-expiry is only supported by print-bearer-token")
            match = re.fullmatch(r"(\d+)(ms|s|m|h)", next(rest, ""), re.IGNORECASE)
            if not match:
                raise AuthCommandError("--min-expiry must use a duration such as 30m or 1h")
            command.min_expiry_ms = int(match.group(1)) * _UNITS_MS[match.group(2).lower()]
        elif arg in ("--json", "--credentials", "--no-refresh"):
            if kind != "check":
                raise AuthCommandError(f"{arg} is only supported by auth check")
            setattr(command, arg[2:].replace("-", "_"), True)
        else:
            command.args.append(arg)
    return command


def run_auth_command(args: list[str], agent_dir: Path) -> int:
    """Run ``pi auth ...`` (``args`` starts with ``"auth"``); returns the exit status."""
    if len(args) < 2 or args[1] == "help" or "--help" in args or "-h" in args:
        print(HELP, end="")
        return 0
    try:
        command = parse_auth_command(args)
    except AuthCommandError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    from pi_coding_agent.app.cli._args import parse_args

    parsed = parse_args(command.args)
    if parsed.unknown_flags:
        print(
            f'Unknown option --{next(iter(parsed.unknown_flags))} for "{_NAMES[command.kind]}".',
            file=sys.stderr,
        )
        print(f'Use "pi --help" or "{_USAGE[command.kind]}".', file=sys.stderr)
        return 1
    import asyncio

    try:
        if parsed.diagnostics:
            raise AuthCommandError("\n".join(d.message for d in parsed.diagnostics))
        if command.kind == "check":
            return asyncio.run(_check(command, parsed, agent_dir))
        credential = asyncio.run(_print_credential(command, parsed, agent_dir))
    except AuthCommandError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2 if command.kind == "check" else 1
    if credential is None:
        print("Error: Failed to resolve credential", file=sys.stderr)
        return 1
    print(credential)
    return 0


def _requested(parsed: Args, kind: Kind) -> tuple[str | None, str | None]:
    provider, model = (parsed.provider or "").strip() or None, (parsed.model or "").strip() or None
    if parsed.api_key is not None or parsed.messages or parsed.file_args:
        raise AuthCommandError("Auth commands only accept --provider and --model")
    if not provider and not model:
        if kind == "check":
            raise AuthCommandError("Auth checks require --provider <provider> or --model <model>")
        raise AuthCommandError("Credential printing requires --provider <provider> or --model <model>")
    return provider, model


def _catalog(agent_dir: Path, *, read_only: bool = False) -> ModelCatalog:
    from pi_coding_agent.core.auth import AuthStorage
    from pi_coding_agent.core.model_registry import ModelCatalog

    auth = AuthStorage.load(agent_dir / "auth.json", create=not read_only)
    for message in (auth.notice, auth.issue):
        if message:
            print(f"Warning: {message}", file=sys.stderr)
    return ModelCatalog.load(agent_dir, auth)


def _known_providers(catalog: ModelCatalog) -> list[str]:
    from pi_ai.models import builtin_provider_infos

    return list(dict.fromkeys([*builtin_provider_infos(), *catalog.registry.providers()]))


def _resolve(catalog: ModelCatalog, provider: str | None, model: str) -> Model:
    """The model ``--model`` names (within ``--provider``); raises with Pi's message."""
    from pi_coding_agent.core.model_registry import resolve_cli_model

    resolved = resolve_cli_model(
        provider=provider, model=model, thinking=None, models=catalog.all_models(), has_auth=catalog.has_auth
    )
    if resolved.error or resolved.model is None:
        raise AuthCommandError(resolved.error or f'Unable to resolve model "{model}"')
    return resolved.model


def _value(catalog: ModelCatalog, provider: str) -> str | None:
    """The key, or the token of an ``Authorization: Bearer`` header, a request would carry."""
    auth = catalog.credentials.request_auth(provider)
    if auth is None:
        return None
    if auth.api_key:
        return auth.api_key
    for name, value in (auth.headers or {}).items():
        if name.lower() == "authorization" and isinstance(value, str):
            match = re.fullmatch(r"Bearer\s+(.+)", value, re.IGNORECASE | re.DOTALL)
            return match.group(1) if match else None
    return None


async def _print_credential(command: AuthCommand, parsed: Args, agent_dir: Path) -> str | None:
    from pi_coding_agent.core.auth import OAuthRefreshError

    provider, model = _requested(parsed, command.kind)
    catalog = _catalog(agent_dir)
    storage = catalog.credentials.storage
    types = {name: storage.credential_type(name) for name in storage.providers()}
    candidates: list[str] = []
    if provider:
        if provider not in _known_providers(catalog):
            raise AuthCommandError(
                f'Unknown provider "{provider}". Use --list-models to see available providers.'
            )
        if model:
            _resolve(catalog, provider, model)
        candidates.append(provider)
    else:
        assert model is not None
        from pi_coding_agent.core.model_registry import resolve_cli_model

        for name in types:
            resolved = resolve_cli_model(
                provider=name,
                model=model,
                thinking=None,
                models=catalog.all_models(),
                has_auth=catalog.has_auth,
            )
            # A provider that would only take the id as a custom one is not a match.
            if (
                resolved.model
                and not resolved.error
                and "Using custom model id" not in (resolved.warning or "")
            ):
                candidates.append(name)
        if not candidates:
            raise AuthCommandError(f'Model "{model}" not found. Use --list-models to see available models.')
    found: list[tuple[str, str]] = []
    for name in candidates:
        if (command.kind == "api_key") == (types.get(name) == "oauth"):
            continue
        try:
            if command.kind == "bearer_token":
                await catalog.credentials.refresh(name, command.min_expiry_ms or _BEARER_MIN_EXPIRY_MS)
            elif catalog.credentials.needs_refresh(name):
                await catalog.credentials.refresh(name)
        except OAuthRefreshError:
            return None
        value = _value(catalog, name)
        if value:
            found.append((name, value))
    if len(found) == 1:
        return found[0][1]
    if not found:
        first = candidates[0] if candidates else None
        if provider and command.kind == "api_key" and types.get(provider) == "oauth":
            raise AuthCommandError(f'Provider "{first}" is configured with OAuth, not an API key')
        if provider and command.kind == "bearer_token" and types.get(provider) != "oauth":
            raise AuthCommandError(f'Provider "{first}" is not configured with an OAuth bearer token')
        wanted = "API key" if command.kind == "api_key" else "OAuth bearer token"
        raise AuthCommandError(f"No usable {wanted} is configured")
    names = ", ".join(name for name, _ in found)
    raise AuthCommandError(f"Multiple configured providers matched ({names}). Specify --provider.")


async def _check(command: AuthCommand, parsed: Args, agent_dir: Path) -> int:
    requested_provider, requested_model = _requested(parsed, "check")
    credential: str | None = None
    try:
        catalog = _catalog(agent_dir, read_only=command.no_refresh)
        result = await _check_result(command, catalog, requested_provider, requested_model)
        if command.credentials and result["status"] == "ready":
            credential = _checked_credential(command, catalog, result["provider"])
            if not credential:
                result = {
                    "status": "not_ready",
                    "provider": result["provider"],
                    "reason": "credential_not_available",
                }
    except Exception:
        result = {
            "status": "invalid",
            "provider": requested_provider or requested_model or "",
            "reason": "invalid_state",
        }
    if command.json:
        print(
            json.dumps(
                {**result, **({"credentials": credential} if credential else {})}, separators=(",", ":")
            )
        )
    else:
        print(credential or result["status"])
    return {"ready": 0, "not_ready": 1}.get(result["status"], 2)


async def _check_result(
    command: AuthCommand, catalog: ModelCatalog, provider: str | None, model: str | None
) -> dict[str, str]:
    if command.no_refresh and catalog.credentials.storage.issue:
        raise AuthCommandError(
            catalog.credentials.storage.issue
        )  # Pi's read-only store refuses a broken file
    if model:
        provider = _resolve(catalog, provider, model).provider
    assert provider is not None
    if catalog.error:
        return {"status": "invalid", "provider": provider, "reason": "invalid_state"}
    if provider not in _known_providers(catalog):
        return {"status": "not_ready", "provider": provider, "reason": "provider_not_found"}
    if not catalog.credentials.has_auth(provider):
        return {"status": "not_ready", "provider": provider, "reason": "credentials_not_configured"}
    if not command.no_refresh:
        await catalog.credentials.refresh(provider)
        if catalog.credentials.request_auth(provider) is None:
            return {"status": "not_ready", "provider": provider, "reason": "credentials_not_configured"}
    auth_type = "oauth" if catalog.credentials.is_oauth(provider) else "api_key"
    return {"status": "ready", "provider": provider, "authType": auth_type}


def _checked_credential(command: AuthCommand, catalog: ModelCatalog, provider: str) -> str | None:
    if command.no_refresh and catalog.credentials.is_oauth(provider):
        stored = catalog.credentials.storage.credential(provider) or {}
        return str(stored.get("access") or "") or None
    return _value(catalog, provider)
