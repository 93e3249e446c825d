"""bedrock-converse-stream against the real Pi 0.85: every recorded case
(``tests/conformance/cases/wire/bedrock-converse-stream``, recorded by
``tools/gen_wire_cases.py`` through Pi's AWS SDK) replayed through our adapter against a
loopback server speaking Bedrock's binary event stream.

Requests must match Pi's (path, headers, JSON body, number of attempts) and so must every
event and the final message; each SigV4 signature we send is verified by the server, and our
signer must reproduce every signature Pi's SDK computed.
"""

from __future__ import annotations

import calendar
import json
import time
from pathlib import Path
from typing import Any

import pytest

from pi_ai.api._aws_sigv4 import AwsCredentials, sign_request
from pi_ai.api.bedrock_converse_stream import BedrockOptions
from tests.support import pi16, wire_cases
from tests.support.loopback import Recorded

API = "bedrock-converse-stream"
NAMES = wire_cases.case_names(API)
_CREDENTIAL = r"Credential=([^/]+)/\d+/([^/]+)/bedrock/"


def _credentials_for(case: dict[str, Any], access_key: str) -> AwsCredentials:
    env = case.get("env") or {}
    if access_key == env.get("AWS_ACCESS_KEY_ID"):
        return AwsCredentials(access_key, env["AWS_SECRET_ACCESS_KEY"], env.get("AWS_SESSION_TOKEN"))
    assert access_key == "AKIDWORK", access_key  # the profile case's credentials file
    return AwsCredentials("AKIDWORK", "workSecret", "workToken")


def _verifier(case: dict[str, Any]) -> Any:
    import re

    def verify(recorded: Recorded) -> None:
        auth = recorded.headers.get("authorization", "")
        if not auth.startswith("AWS4-HMAC-SHA256"):
            return
        match = re.search(_CREDENTIAL, auth)
        assert match is not None
        stamp = recorded.headers["x-amz-date"]
        unsigned = {
            name: value
            for name, value in recorded.headers.items()
            if name
            not in ("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "host")
            and name in auth
        }
        signed = sign_request(
            recorded.method,
            f"http://{recorded.headers['host']}{recorded.path}",
            unsigned,
            recorded.body,
            _credentials_for(case, match.group(1)),
            region=match.group(2),
            service="bedrock",
            now=calendar.timegm(time.strptime(stamp, "%Y%m%dT%H%M%SZ")),
        )
        assert signed["authorization"] == auth, "the server could not verify our signature"

    return verify


def test_cases_are_recorded() -> None:
    assert len(NAMES) >= 20


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_pi(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case, pi = wire_cases.load(API, name)
    wire_cases.apply_environment(case, tmp_path, monkeypatch)
    ours = wire_cases.run(case, BedrockOptions, verify=_verifier(case))
    our_requests = [wire_cases.comparable_request(r) for r in ours["requests"]]
    pi_requests = [wire_cases.comparable_request(r) for r in pi["requests"]]
    pi16_messages = _pi16_messages(name)
    if pi16_messages is not None:
        # The conversation as Pi 1.6 sends it (another model's thinking dropped); the rest as 0.85.
        assert [request["body"]["messages"] for request in our_requests] == pi16_messages
        our_requests, pi_requests = _without_messages(our_requests), _without_messages(pi_requests)
    assert our_requests == pi_requests
    assert ours["events"] == pi["events"]
    assert ours["final"] == pi["final"]


PI16_WIRE = pi16.PI16_ANSWERS / "wire" / API
"""Pi 1.6's answers to the cases whose conversation 1.6 sends differently, recorded by running
``tools/pi_wire_driver.mjs`` with Pi 1.6's runtime (``PI_ORACLE_HOME``). Only their request
messages are compared: 1.6's answers also carry its catalog's prices and limits and the message
fields of issue 24 item 1."""


def _pi16_messages(name: str) -> list[Any] | None:
    path = PI16_WIRE / f"{name}.out.json"
    if not path.exists():
        return None
    return [
        json.loads(request["bodyText"])["messages"] for request in json.loads(path.read_text())["requests"]
    ]


def _without_messages(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The requests without their messages and the length and checksum that follow from them."""
    out = []
    for request in requests:
        headers = {
            k: v for k, v in request["headers"].items() if k not in ("content-length", "x-amz-content-sha256")
        }
        body = {k: v for k, v in request["body"].items() if k != "messages"}
        out.append({**request, "headers": headers, "body": body})
    return out


def test_pi16_wire_answers_have_their_cases() -> None:
    for path in PI16_WIRE.glob("*.out.json"):
        assert path.name.removesuffix(".out.json") in NAMES, path


@pytest.mark.parametrize("name", NAMES)
def test_our_signer_reproduces_pi_signatures(name: str) -> None:
    import re

    case, pi = wire_cases.load(API, name)
    for request in pi["requests"]:
        auth = request["headers"].get("authorization", "")
        if not auth.startswith("AWS4-HMAC-SHA256"):
            continue
        match = re.search(_CREDENTIAL, auth)
        assert match is not None
        credentials = _credentials_for(case, match.group(1))
        assert wire_cases.recorded_signature_matches(request, credentials, match.group(2), "bedrock")
