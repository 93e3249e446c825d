"""PKCE (RFC 7636, S256) and the random values flows put in a request."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass


def base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass(frozen=True, slots=True)
class Pkce:
    verifier: str
    challenge: str


def generate_pkce() -> Pkce:
    """A 32-byte verifier (base64url) and its SHA-256 challenge."""
    verifier = base64url(secrets.token_bytes(32))
    return Pkce(verifier, base64url(hashlib.sha256(verifier.encode("ascii")).digest()))


def decode_jwt_payload(token: str) -> dict[str, object] | None:
    """The claims of a JWT (no signature check: only to read ids the server put in it)."""
    import json

    parts = token.split(".")
    if len(parts) != 3:
        return None
    payload = parts[1]
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:
        return None
    return claims if isinstance(claims, dict) else None
