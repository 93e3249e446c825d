"""AWS credentials that only the full AWS chain knows, through ``pi -p`` and Pi 0.85's own CLI:
IAM Identity Center (SSO) from the token cache ``aws sso login`` writes, a role assumed through
``source_profile``, and web identity. Each run asks a loopback SSO portal or STS (pointed to by
``AWS_ENDPOINT_URL_SSO`` / ``_STS``, which both AWS SDKs honour) for temporary credentials and
signs its Bedrock request with them; the server verifies each signature with botocore's signer.
Ours goes through botocore (the ``aws`` extra); Pi through the AWS SDK for JavaScript."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support.aws_endpoints import (
    ANSWER,
    SOURCE,
    SSO_ACCESS_TOKEN,
    TEMPORARY,
    WEB_IDENTITY_TOKEN,
    AwsEndpoints,
)

pytestmark = pytest.mark.oracle

MODEL = "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
REGION = "us-west-2"
ROLE = "arn:aws:iam::123456789012:role/deploy"


def _sandbox(root: Path, url: str, config: str, credentials: str = "") -> Sandbox:
    sandbox = Sandbox.create(root, url)
    models = {"providers": {"amazon-bedrock": {"baseUrl": url}}}
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    aws = sandbox.home / ".aws"
    aws.mkdir()
    (aws / "config").write_text(config, encoding="utf-8")
    (aws / "credentials").write_text(credentials, encoding="utf-8")
    return sandbox


def _sso_token(sandbox: Sandbox, expires_in: float) -> None:
    cache = sandbox.home / ".aws" / "sso" / "cache"
    cache.mkdir(parents=True)
    token = {
        "startUrl": "https://corp.awsapps.com/start",
        "region": REGION,
        "accessToken": SSO_ACCESS_TOKEN,
        "expiresAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + expires_in)),
    }
    (cache / f"{hashlib.sha1(b'corp').hexdigest()}.json").write_text(json.dumps(token), encoding="utf-8")


SSO_CONFIG = (
    "[profile sso-dev]\nsso_session = corp\nsso_account_id = 123456789012\nsso_role_name = Developer\n"
    f"region = {REGION}\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\n"
    f"sso_region = {REGION}\nsso_registration_scopes = sso:account:access\n"
)


async def _both(tmp_path: Path, prepare: object, source: object = None, **env: str) -> dict[str, tuple[Completed, list[str]]]:
    """Run ours, then Pi's, each in its own sandbox against one set of endpoints."""
    results: dict[str, tuple[Completed, list[str]]] = {}
    async with AwsEndpoints(TEMPORARY, source=source) as endpoints:  # type: ignore[arg-type]
        url = endpoints.server.url
        for name, runner in (("ours", run_ours), ("pi", run_pi)):
            sandbox = prepare(tmp_path / name, url)  # type: ignore[operator]
            before = len(endpoints.seen)
            variables = {
                "AWS_REGION": REGION,
                "AWS_BEDROCK_FORCE_HTTP1": "1",  # Pi's SDK speaks HTTP/2 unless told otherwise
                "AWS_EC2_METADATA_DISABLED": "true",
                "AWS_ENDPOINT_URL_STS": url,
                "AWS_ENDPOINT_URL_SSO": url,
                **{key: value.replace("{home}", str(sandbox.home)) for key, value in env.items()},
            }
            done = await asyncio.to_thread(runner, sandbox, "--model", MODEL, "--no-session", "-p", "hi", **variables)
            results[name] = (done, endpoints.seen[before:])
    return results


def _answered(results: dict[str, tuple[Completed, list[str]]], calls: list[str]) -> None:
    for name, (done, seen) in results.items():
        assert done.returncode == 0, (name, done.stderr)
        assert done.stdout == ANSWER + "\n", name
        assert seen == calls, name


async def test_sso_profile(tmp_path: Path) -> None:
    def prepare(root: Path, url: str) -> Sandbox:
        sandbox = _sandbox(root, url, SSO_CONFIG)
        _sso_token(sandbox, 3600)
        return sandbox

    results = await _both(tmp_path, prepare, AWS_PROFILE="sso-dev")
    _answered(results, ["sso 123456789012 Developer", "bedrock"])


async def test_expired_sso_login_fails_without_a_request(tmp_path: Path) -> None:
    def prepare(root: Path, url: str) -> Sandbox:
        sandbox = _sandbox(root, url, SSO_CONFIG)
        _sso_token(sandbox, -600)
        return sandbox

    results = await _both(tmp_path, prepare, AWS_PROFILE="sso-dev")
    for name, (done, seen) in results.items():
        assert done.returncode == 1, name
        assert done.stdout == "", name
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr, (name, done.stderr)
        assert "sso" in lines[0].lower(), (name, lines)
        assert seen == [], name


async def test_role_assumed_through_source_profile(tmp_path: Path) -> None:
    def prepare(root: Path, url: str) -> Sandbox:
        return _sandbox(
            root,
            url,
            f"[profile deploy]\nrole_arn = {ROLE}\nsource_profile = base\nregion = {REGION}\n",
            f"[base]\naws_access_key_id = {SOURCE.access_key_id}\naws_secret_access_key = {SOURCE.secret_access_key}\n",
        )

    results = await _both(tmp_path, prepare, SOURCE, AWS_PROFILE="deploy")
    _answered(results, [f"sts AssumeRole {ROLE}", "bedrock"])


async def test_web_identity(tmp_path: Path) -> None:
    def prepare(root: Path, url: str) -> Sandbox:
        sandbox = _sandbox(root, url, "")
        (sandbox.home / "token").write_text(WEB_IDENTITY_TOKEN, encoding="utf-8")
        return sandbox

    results = await _both(
        tmp_path,
        prepare,
        AWS_WEB_IDENTITY_TOKEN_FILE="{home}/token",
        AWS_ROLE_ARN="arn:aws:iam::123456789012:role/web",
        AWS_ROLE_SESSION_NAME="pi-e2e",
    )
    _answered(results, ["sts AssumeRoleWithWebIdentity arn:aws:iam::123456789012:role/web", "bedrock"])
