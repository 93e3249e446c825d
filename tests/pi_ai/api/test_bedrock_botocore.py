"""Bedrock's credentials through botocore (the ``aws`` extra), end to end on 127.0.0.1.

- The sources we read ourselves (the key variables, the shared credentials and config files,
  ``credential_process``) must give what botocore's own chain gives (botocore is the
  reference here), and the Bedrock request signed with them must verify with botocore's
  SigV4 signer on the server.
- The sources only botocore reads (an assumed role through ``source_profile``, web identity)
  run for real: botocore asks an STS endpoint on 127.0.0.1 (``AWS_ENDPOINT_URL_STS``), which
  checks what it is sent (the AssumeRole call signed with the source profile's keys, the web
  identity token), and the Bedrock request must carry the temporary credentials it issued,
  verified on the server by botocore's signer. IAM Identity Center (SSO) runs through the CLI,
  ours and Pi's, in ``tests/pi_coding_agent/e2e/test_bedrock_credentials_cli.py`` (botocore
  fixes its SSO cache folder from ``HOME`` when imported, so it needs a process of its own).

Nothing leaves the machine: instance metadata is switched off and every endpoint is ours.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import botocore.session as botocore_session  # the dev install has the aws extra
import pytest
from msgspec.structs import replace

from pi_ai import Context, UserMessage, stream
from pi_ai.api._aws_credentials import resolve_credentials
from pi_ai.api._aws_sigv4 import AwsCredentials
from pi_ai.api.bedrock_converse_stream import BedrockOptions
from pi_ai.models import get_model
from tests.support.aws_endpoints import SOURCE, TEMPORARY, AwsEndpoints

MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
REGION = "us-west-2"


@pytest.fixture
def aws_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A clean AWS environment in ``tmp_path``: no ambient keys or profile, no instance
    metadata, the shared files under ``tmp_path/.aws``."""
    import os

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / ".aws" / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / ".aws" / "credentials"))
    monkeypatch.setenv("AWS_REGION", REGION)
    (tmp_path / ".aws").mkdir()
    yield tmp_path


def _write(home: Path, config: str = "", credentials: str = "") -> None:
    (home / ".aws" / "config").write_text(config)
    (home / ".aws" / "credentials").write_text(credentials)


async def _ask(server_url: str, **options: Any) -> Any:
    model = get_model("amazon-bedrock", MODEL_ID)
    assert model is not None
    context = Context(messages=[UserMessage(content="hi", timestamp=0)])
    events = stream(replace(model, base_url=server_url), context, BedrockOptions(**options))
    return await events.result()


def _botocore_view(profile: str | None) -> AwsCredentials:
    found = botocore_session.Session(profile=profile).get_credentials()
    assert found is not None
    frozen = found.get_frozen_credentials()
    return AwsCredentials(frozen.access_key, frozen.secret_key, frozen.token or None)


# --------------------------------------------------------------------------- ours == botocore's


async def test_key_variables_match_botocore_and_sign(aws_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(aws_home)
    keys = AwsCredentials("AKIDFROMENV", "env-secret", "env-token")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", keys.access_key_id)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", keys.secret_access_key)
    monkeypatch.setenv("AWS_SESSION_TOKEN", str(keys.session_token))
    assert await resolve_credentials(None, None) == _botocore_view(None) == keys
    async with AwsEndpoints(keys) as endpoints:
        final = await _ask(endpoints.server.url)
    assert final.stop_reason == "stop", final.error_message
    assert endpoints.seen == ["bedrock"]


@pytest.mark.parametrize("profile", [None, "work", "from-config"])
async def test_shared_files_match_botocore_and_sign(aws_home: Path, profile: str | None) -> None:
    _write(
        aws_home,
        config="[default]\nregion = us-west-2\n[profile from-config]\naws_access_key_id = AKIDCONFIG\n"
        "aws_secret_access_key = config-secret\n",
        credentials="[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default-secret\n"
        "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = work-secret\naws_session_token = work-token\n",
    )
    ours = await resolve_credentials(profile, None)
    assert ours == _botocore_view(profile)
    async with AwsEndpoints(ours) as endpoints:
        final = await _ask(endpoints.server.url, profile=profile)
    assert final.stop_reason == "stop", final.error_message
    assert endpoints.seen == ["bedrock"]


async def test_credential_process_matches_botocore_and_signs(aws_home: Path) -> None:
    script = aws_home / "creds.py"
    script.write_text(
        "import json; print(json.dumps({'Version': 1, 'AccessKeyId': 'AKIDPROC', "
        "'SecretAccessKey': 'proc-secret', 'SessionToken': 'proc-token'}))"
    )
    _write(aws_home, config=f"[profile proc]\ncredential_process = {sys.executable} {script}\n")
    ours = await resolve_credentials("proc", None)
    assert ours == _botocore_view("proc") == AwsCredentials("AKIDPROC", "proc-secret", "proc-token")
    async with AwsEndpoints(ours) as endpoints:
        final = await _ask(endpoints.server.url, profile="proc")
    assert final.stop_reason == "stop", final.error_message
    assert endpoints.seen == ["bedrock"]


async def test_a_bad_signature_is_refused_by_the_server(aws_home: Path) -> None:
    """The check is real: keys other than the ones the server expects fail with AWS's answer."""
    _write(aws_home, credentials="[default]\naws_access_key_id = AKIDWRONG\naws_secret_access_key = nope\n")
    async with AwsEndpoints(AwsCredentials("AKIDWRONG", "the-real-secret")) as endpoints:
        final = await _ask(endpoints.server.url)
    assert final.stop_reason == "error"
    assert final.error_message == (
        "InvalidSignatureException: The request signature we calculated does not match the signature you provided."
    )


# --------------------------------------------------------------------------- botocore's own sources


async def test_assumed_role_through_source_profile(aws_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = SOURCE
    _write(
        aws_home,
        config="[profile deploy]\nrole_arn = arn:aws:iam::123456789012:role/deploy\nsource_profile = base\n"
        "region = us-west-2\n",
        credentials=f"[base]\naws_access_key_id = {source.access_key_id}\n"
        f"aws_secret_access_key = {source.secret_access_key}\n",
    )
    async with AwsEndpoints(TEMPORARY, source=source) as endpoints:
        monkeypatch.setenv("AWS_ENDPOINT_URL_STS", endpoints.server.url)
        final = await _ask(endpoints.server.url, profile="deploy")
    assert final.stop_reason == "stop", final.error_message
    assert endpoints.seen == ["sts AssumeRole arn:aws:iam::123456789012:role/deploy", "bedrock"]


async def test_web_identity(aws_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(aws_home)
    token = aws_home / "token"
    token.write_text("web-identity-token")
    monkeypatch.setenv("AWS_WEB_IDENTITY_TOKEN_FILE", str(token))
    monkeypatch.setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/web")
    monkeypatch.setenv("AWS_ROLE_SESSION_NAME", "pi-test")
    async with AwsEndpoints(TEMPORARY) as endpoints:
        monkeypatch.setenv("AWS_ENDPOINT_URL_STS", endpoints.server.url)
        final = await _ask(endpoints.server.url)
    assert final.stop_reason == "stop", final.error_message
    assert endpoints.seen == ["sts AssumeRoleWithWebIdentity arn:aws:iam::123456789012:role/web", "bedrock"]
