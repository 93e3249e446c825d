"""AWS credentials and region for Bedrock, from where the AWS SDKs look.

Resolved here, in the SDK's order: the ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY``
(/ ``AWS_SESSION_TOKEN``) variables unless a profile is named, then the profile
(``AWS_PROFILE``, else ``default``) in the shared files (``AWS_SHARED_CREDENTIALS_FILE``,
default ``~/.aws/credentials``; ``AWS_CONFIG_FILE``, default ``~/.aws/config``): static keys
or a ``credential_process``, then the ECS container endpoint
(``AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`` / ``_FULL_URI``).

Anything else the AWS chain knows (SSO, assumed roles, web identity, EC2 instance metadata)
comes from botocore when it is installed (``pip install 'pi-for-python[aws]'``), imported
only then; without it the error says so. See docs/decisions/0005-aws-signing-and-credentials.md.
"""

from __future__ import annotations

import asyncio
import configparser
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi_ai.api._aws_sigv4 import AwsCredentials

__all__ = ["CredentialsError", "profile_region", "resolve_credentials"]

_ECS_HOST = "http://169.254.170.2"


class CredentialsError(Exception):
    """No usable AWS credentials; ``str()`` says where they were looked for."""


def _env(name: str, env: Mapping[str, str] | None) -> str | None:
    return (env.get(name) if env else None) or os.environ.get(name) or None


def _file(variable: str, default: str, env: Mapping[str, str] | None) -> Path:
    return Path(_env(variable, env) or Path.home() / ".aws" / default).expanduser()


def _read_ini(path: Path) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(default_section="__no_default__")
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except FileNotFoundError:
        pass
    except (OSError, configparser.Error) as error:
        raise CredentialsError(f"Could not read AWS file {path}: {error}".splitlines()[0]) from None
    return parser


def _profile_section(profile: str, env: Mapping[str, str] | None) -> dict[str, str]:
    """The profile's settings: the config file's ``[profile NAME]`` (``[default]``) overlaid
    with the credentials file's ``[NAME]``."""
    config = _read_ini(_file("AWS_CONFIG_FILE", "config", env))
    credentials = _read_ini(_file("AWS_SHARED_CREDENTIALS_FILE", "credentials", env))
    merged: dict[str, str] = {}
    for section in (
        (f"profile {profile}", profile) if profile != "default" else ("default", "profile default")
    ):
        if config.has_section(section):
            merged.update(config.items(section))
            break
    if credentials.has_section(profile):
        merged.update(credentials.items(profile))
    return merged


def profile_region(profile: str | None, env: Mapping[str, str] | None) -> str | None:
    """The ``region`` setting of the profile, as the SDK falls back to it."""
    return _profile_section(profile or "default", env).get("region") or None


def _from_mapping(data: Mapping[str, Any], source: str) -> AwsCredentials:
    key, secret = data.get("AccessKeyId"), data.get("SecretAccessKey")
    if not isinstance(key, str) or not isinstance(secret, str):
        raise CredentialsError(f"{source} returned no AccessKeyId/SecretAccessKey")
    token = data.get("SessionToken") or data.get("Token")
    return AwsCredentials(key, secret, token if isinstance(token, str) else None)


async def _credential_process(command: str, profile: str) -> AwsCredentials:
    process = await asyncio.create_subprocess_shell(
        command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        detail = err.decode(errors="replace").strip().splitlines()
        raise CredentialsError(
            f"credential_process for profile {profile} failed ({process.returncode})"
            + (f": {detail[-1]}" if detail else "")
        )
    try:
        data = json.loads(out)
    except ValueError:
        raise CredentialsError(f"credential_process for profile {profile} did not print JSON") from None
    return _from_mapping(data if isinstance(data, dict) else {}, f"credential_process for profile {profile}")


async def _container(env: Mapping[str, str] | None) -> AwsCredentials | None:
    relative = _env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", env)
    full = _env("AWS_CONTAINER_CREDENTIALS_FULL_URI", env)
    if not relative and not full:
        return None
    import httpx

    url = f"{_ECS_HOST}{relative}" if relative else str(full)
    headers = {}
    token = _env("AWS_CONTAINER_AUTHORIZATION_TOKEN", env)
    token_file = _env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", env)
    if token_file:
        token = (await asyncio.to_thread(Path(token_file).read_text, encoding="utf-8")).strip()
    if token:
        headers["Authorization"] = token
    try:
        async with httpx.AsyncClient(timeout=5.0, trust_env=False) as client:
            response = await client.get(url, headers=headers)
            response.raise_for_status()
            data = response.json()
    except (httpx.HTTPError, ValueError) as error:
        raise CredentialsError(f"Could not get container credentials from {url}: {error}") from None
    return _from_mapping(data if isinstance(data, dict) else {}, "the container credentials endpoint")


def _botocore(profile: str | None) -> AwsCredentials:
    try:
        import botocore.session
    except ImportError:
        raise CredentialsError(
            "Could not load credentials from any providers (SSO, assumed roles, web identity and "
            "instance metadata need botocore: pip install 'pi-for-python[aws]')"
        ) from None
    session = botocore.session.Session(profile=profile)
    found = session.get_credentials()
    if found is None:
        raise CredentialsError("Could not load credentials from any providers")
    frozen = found.get_frozen_credentials()
    return AwsCredentials(frozen.access_key, frozen.secret_key, frozen.token or None)


async def resolve_credentials(
    profile: str | None, env: Mapping[str, str] | None, *, use_env_keys: bool = True
) -> AwsCredentials:
    """The credentials the SDK's default chain would find (see the module docstring)."""
    if use_env_keys and not profile:
        key, secret = _env("AWS_ACCESS_KEY_ID", env), _env("AWS_SECRET_ACCESS_KEY", env)
        if key and secret:
            return AwsCredentials(key, secret, _env("AWS_SESSION_TOKEN", env))
    name = profile or "default"
    section = _profile_section(name, env)
    key, secret = section.get("aws_access_key_id"), section.get("aws_secret_access_key")
    if key and secret:
        return AwsCredentials(key, secret, section.get("aws_session_token") or None)
    if section.get("credential_process"):
        return await _credential_process(section["credential_process"], name)
    found = await _container(env)
    if found is not None:
        return found
    return await asyncio.to_thread(_botocore, profile)
