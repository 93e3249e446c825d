"""The parts under bedrock-converse-stream: the event-stream decoder on split, corrupt and
cut bodies; AWS credentials from profile files, ``credential_process`` and a container
endpoint (a server on 127.0.0.1); the adapter's import cost (no botocore, no httpx)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pi_ai.api._aws_credentials import CredentialsError, profile_region, resolve_credentials
from pi_ai.api._aws_eventstream import EventStreamDecoder, EventStreamError
from tests.support import aws_eventstream as es
from tests.support.loopback import LoopbackServer, Reply

BODY = es.text_stream("Hi") + es.exception("throttlingException", "slow down")


def test_decoder_reassembles_any_split() -> None:
    whole = EventStreamDecoder().feed(BODY)
    assert [m.headers.get(":event-type") or m.headers.get(":exception-type") for m in whole] == [
        "messageStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
        "throttlingException",
    ]
    for size in (1, 3, 13, 64):
        decoder = EventStreamDecoder()
        pieces = [m for i in range(0, len(BODY), size) for m in decoder.feed(BODY[i : i + size])]
        decoder.finish()
        assert pieces == whole
    assert json.loads(whole[1].payload) == {"contentBlockIndex": 0, "delta": {"text": "Hi"}}


def test_decoder_refuses_corrupt_checksums_and_cut_bodies() -> None:
    message = bytearray(es.event("messageStart", {"role": "assistant"}))
    bad_payload = bytes(message[:-6]) + b"X" + bytes(message[-5:])
    with pytest.raises(EventStreamError, match="message checksum"):
        EventStreamDecoder().feed(bad_payload)
    bad_prelude = bytes([message[0] ^ 1]) + bytes(message[1:])
    with pytest.raises(EventStreamError, match="prelude checksum"):
        EventStreamDecoder().feed(bad_prelude)
    decoder = EventStreamDecoder()
    assert decoder.feed(bytes(message[:-3])) == []
    with pytest.raises(EventStreamError, match="middle of a message"):
        decoder.finish()


def _files(tmp_path: Path, credentials: str, config: str) -> dict[str, str]:
    (tmp_path / "credentials").write_text(credentials)
    (tmp_path / "config").write_text(config)
    return {
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials"),
        "AWS_CONFIG_FILE": str(tmp_path / "config"),
    }


async def test_profile_keys_and_region(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    env = _files(
        tmp_path,
        "[default]\naws_access_key_id = AKDEF\naws_secret_access_key = s1\n",
        "[default]\nregion = eu-north-1\n[profile dev]\nregion = sa-east-1\n"
        "aws_access_key_id = AKDEV\naws_secret_access_key = s2\naws_session_token = t2\n",
    )
    found = await resolve_credentials(None, env)
    assert (found.access_key_id, found.secret_access_key, found.session_token) == ("AKDEF", "s1", None)
    dev = await resolve_credentials("dev", env)
    assert (dev.access_key_id, dev.session_token) == ("AKDEV", "t2")
    assert profile_region(None, env) == "eu-north-1"
    assert profile_region("dev", env) == "sa-east-1"


async def test_env_keys_win_unless_a_profile_is_named(tmp_path: Path) -> None:
    env = {
        **_files(tmp_path, "[dev]\naws_access_key_id = AKDEV\naws_secret_access_key = s\n", ""),
        "AWS_ACCESS_KEY_ID": "AKENV",
        "AWS_SECRET_ACCESS_KEY": "senv",
    }
    assert (await resolve_credentials(None, env)).access_key_id == "AKENV"
    assert (await resolve_credentials("dev", env, use_env_keys=False)).access_key_id == "AKDEV"


async def test_credential_process(tmp_path: Path) -> None:
    script = tmp_path / "creds.py"
    script.write_text(
        "import json; print(json.dumps({'Version': 1, 'AccessKeyId': 'AKPROC', "
        "'SecretAccessKey': 'sp', 'SessionToken': 'tp'}))"
    )
    failing = tmp_path / "fail.py"
    failing.write_text("import sys; print('token expired', file=sys.stderr); sys.exit(3)")
    env = _files(
        tmp_path,
        "",
        f"[profile proc]\ncredential_process = {sys.executable} {script}\n"
        f"[profile broken]\ncredential_process = {sys.executable} {failing}\n",
    )
    found = await resolve_credentials("proc", env)
    assert (found.access_key_id, found.secret_access_key, found.session_token) == ("AKPROC", "sp", "tp")
    with pytest.raises(
        CredentialsError, match=r"credential_process for profile broken failed \(3\): token expired"
    ):
        await resolve_credentials("broken", env)


async def test_container_endpoint(tmp_path: Path) -> None:
    reply = Reply.json(200, {"AccessKeyId": "AKECS", "SecretAccessKey": "se", "Token": "te"})
    async with LoopbackServer([reply]) as server:
        env = {
            **_files(tmp_path, "", ""),
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": f"{server.url}/creds",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN": "ecs-auth",
        }
        found = await resolve_credentials(None, env)
    assert (found.access_key_id, found.session_token) == ("AKECS", "te")
    assert server.requests[0].path == "/creds"
    assert server.requests[0].headers["authorization"] == "ecs-auth"


async def test_nothing_found_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setitem(sys.modules, "botocore", None)  # as when the extra is not installed
    monkeypatch.setitem(sys.modules, "botocore.session", None)
    with pytest.raises(CredentialsError, match=r"pi-for-python\[aws\]"):
        await resolve_credentials("sso-only", _files(tmp_path, "", "[profile sso-only]\nsso_session = x\n"))


def test_adapter_import_loads_no_aws_library() -> None:
    code = textwrap.dedent(
        """
        import sys, pi_ai.api.bedrock_converse_stream
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("botocore", "boto3", "httpx", "google"))
        print(heavy)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
