"""Loopback AWS endpoints for the credential tests: Bedrock (answers only a request whose SigV4
signature botocore's signer verifies with the expected keys), STS (AssumeRole,
AssumeRoleWithWebIdentity) and IAM Identity Center's portal (GetRoleCredentials) on one
server, each checking what it is sent and issuing ``TEMPORARY`` credentials."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

from pi_ai.api._aws_sigv4 import AwsCredentials
from tests.support import aws_eventstream as es
from tests.support.loopback import LoopbackServer, Recorded, Reply

STREAM = {"content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "r-boto"}
ANSWER = "signed"
TEMPORARY = AwsCredentials("ASIATEMPORARY", "temporary-secret", "temporary-session-token")
SOURCE = AwsCredentials("AKIDSOURCE", "source-secret")
"""Keys of a profile others assume a role from."""
WEB_IDENTITY_TOKEN = "web-identity-token"
SSO_ACCESS_TOKEN = "sso-access-token"
_AUTH = re.compile(r"Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([^,]+), Signature=(\w+)")


def botocore_signature(recorded: Recorded, credentials: AwsCredentials) -> bool:
    """Whether botocore's SigV4 signer, given ``credentials``, computes the signature the
    request carries (over the headers it says it signed)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    match = _AUTH.search(recorded.headers.get("authorization", ""))
    if match is None or match.group(1) != credentials.access_key_id:
        return False
    _, _, region, service, signed, signature = match.groups()
    names = signed.split(";")
    request = AWSRequest(
        method=recorded.method,
        url=f"http://{recorded.headers['host']}{recorded.path}",
        data=recorded.body,
        headers={name: recorded.headers[name] for name in names if name != "host"},
    )
    request.context["timestamp"] = recorded.headers["x-amz-date"]
    signer = SigV4Auth(
        Credentials(credentials.access_key_id, credentials.secret_access_key, credentials.session_token),
        service,
        region,
    )
    expected = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
    token_ok = recorded.headers.get("x-amz-security-token") == credentials.session_token
    return bool(expected == signature and token_ok)


def _sts_xml(action: str) -> bytes:
    expiration = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    return (
        f'<{action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><{action}Result>'
        f"<Credentials><AccessKeyId>{TEMPORARY.access_key_id}</AccessKeyId>"
        f"<SecretAccessKey>{TEMPORARY.secret_access_key}</SecretAccessKey>"
        f"<SessionToken>{TEMPORARY.session_token}</SessionToken>"
        f"<Expiration>{expiration}</Expiration></Credentials>"
        f"<AssumedRoleUser><AssumedRoleId>AROA:pi</AssumedRoleId><Arn>arn:aws:sts::123456789012:assumed-role/r/pi</Arn>"
        f"</AssumedRoleUser></{action}Result><ResponseMetadata><RequestId>sts-1</RequestId></ResponseMetadata>"
        f"</{action}Response>"
    ).encode()


class AwsEndpoints:
    """Bedrock, STS and SSO on one loopback server. Bedrock answers only a request whose
    signature botocore verifies with ``expect`` (else 403, as AWS would)."""

    def __init__(self, expect: AwsCredentials, source: AwsCredentials | None = None) -> None:
        self.expect = expect
        self.source = source
        """The keys botocore must sign an AssumeRole call with."""
        self.server = LoopbackServer(respond=self._respond)
        self.seen: list[str] = []

    def _respond(self, recorded: Recorded) -> Reply:
        if recorded.path.startswith("/model/"):
            verified = botocore_signature(recorded, self.expect)
            self.seen.append("bedrock" if verified else "bedrock (bad signature)")
            if not verified:
                body = {"message": "The request signature we calculated does not match the signature you provided."}
                return Reply.json(403, body, {"x-amzn-errortype": "InvalidSignatureException"})
            return Reply(200, STREAM, body=es.text_stream(ANSWER))
        if recorded.path.startswith("/federation/credentials"):
            return self._sso(recorded)
        return self._sts(recorded)

    def _sts(self, recorded: Recorded) -> Reply:
        form = {key: values[0] for key, values in parse_qs(recorded.body.decode()).items()}
        action = form.get("Action", "")
        self.seen.append(f"sts {action} {form.get('RoleArn', '')}".rstrip())
        if action == "AssumeRole" and (self.source is None or not botocore_signature(recorded, self.source)):
            return Reply(403, {"content-type": "text/xml"}, body=b"<ErrorResponse/>")
        if action == "AssumeRoleWithWebIdentity" and form.get("WebIdentityToken") != WEB_IDENTITY_TOKEN:
            return Reply(403, {"content-type": "text/xml"}, body=b"<ErrorResponse/>")
        return Reply(200, {"content-type": "text/xml"}, body=_sts_xml(action))

    def _sso(self, recorded: Recorded) -> Reply:
        query = {key: values[0] for key, values in parse_qs(urlsplit(recorded.path).query).items()}
        self.seen.append(f"sso {query.get('account_id')} {query.get('role_name')}")
        if recorded.headers.get("x-amz-sso_bearer_token") != SSO_ACCESS_TOKEN:
            return Reply.json(401, {"message": "Session token not found or invalid"})
        role = {
            "accessKeyId": TEMPORARY.access_key_id,
            "secretAccessKey": TEMPORARY.secret_access_key,
            "sessionToken": TEMPORARY.session_token,
            "expiration": int((time.time() + 3600) * 1000),
        }
        return Reply.json(200, {"roleCredentials": role})

    async def __aenter__(self) -> AwsEndpoints:
        await self.server.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.server.__aexit__(*exc)
