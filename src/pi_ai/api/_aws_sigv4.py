"""AWS Signature Version 4 for one request, as the AWS SDK for JavaScript signs Bedrock calls.

The canonical request escapes the (already percent-encoded) path once more, lists the
lower-cased headers in order except those AWS never signs, and ends with the body's SHA-256;
the SDK also sends that hash as ``x-amz-content-sha256``. Checked against the signatures Pi
0.85's SDK produced for recorded requests (tests/pi_ai/api/test_bedrock_conformance.py).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

__all__ = ["AwsCredentials", "sign_request"]

_UNSIGNABLE = frozenset(
    {
        "authorization",
        "cache-control",
        "connection",
        "expect",
        "from",
        "keep-alive",
        "max-forwards",
        "pragma",
        "referer",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "user-agent",
        "x-amzn-trace-id",
    }
)
_ALGORITHM = "AWS4-HMAC-SHA256"


@dataclass(frozen=True, slots=True)
class AwsCredentials:
    access_key_id: str
    secret_access_key: str
    session_token: str | None = None


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _signable(name: str) -> bool:
    return name not in _UNSIGNABLE and not name.startswith(("proxy-", "sec-"))


def _canonical_path(path: str) -> str:
    escaped = "/".join(quote(segment, safe="-_.~") for segment in path.split("/"))
    return escaped or "/"


def _canonical_query(query: str) -> str:
    if not query:
        return ""
    pairs = []
    for item in query.split("&"):
        key, _, value = item.partition("=")
        pairs.append((quote(key, safe="-_.~"), quote(value, safe="-_.~")))
    return "&".join(f"{key}={value}" for key, value in sorted(pairs))


def sign_request(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    credentials: AwsCredentials,
    *,
    region: str,
    service: str,
    now: float | None = None,
) -> dict[str, str]:
    """``headers`` plus ``host``, ``x-amz-date``, ``x-amz-security-token`` (with a session
    token), ``x-amz-content-sha256`` and ``authorization``."""
    parts = urlsplit(url)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    day = stamp[:8]
    body_hash = hashlib.sha256(body).hexdigest()
    signed = {name.lower(): value for name, value in headers.items()}
    signed["host"] = parts.netloc
    signed["x-amz-date"] = stamp
    if credentials.session_token:
        signed["x-amz-security-token"] = credentials.session_token
    signed["x-amz-content-sha256"] = body_hash
    names = sorted(name for name in signed if _signable(name))
    canonical_headers = "".join(f"{name}:{' '.join(signed[name].split())}\n" for name in names)
    signed_names = ";".join(names)
    canonical = "\n".join(
        [
            method,
            _canonical_path(parts.path or "/"),
            _canonical_query(parts.query),
            canonical_headers,
            signed_names,
            body_hash,
        ]
    )
    scope = f"{day}/{region}/{service}/aws4_request"
    string_to_sign = "\n".join([_ALGORITHM, stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = _hmac(f"AWS4{credentials.secret_access_key}".encode(), day)
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    signature = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
    signed["authorization"] = (
        f"{_ALGORITHM} Credential={credentials.access_key_id}/{scope}, "
        f"SignedHeaders={signed_names}, Signature={signature}"
    )
    return signed
