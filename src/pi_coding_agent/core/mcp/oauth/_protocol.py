"""The OAuth requests of an MCP client, as Pi 1.6 makes them: the server's ``WWW-Authenticate``
challenge, protected-resource metadata (RFC 9728), authorization-server metadata (RFC 8414 and
OpenID discovery, issuer checked), dynamic client registration (RFC 7591), the PKCE
authorization URL, and the token endpoint (code exchange and refresh).

Metadata and registration answers are kept as the server wrote them (they are stored in
``mcp-auth.json`` as Pi stores them); the SDK's models (``mcp.shared.auth``) check them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit

if TYPE_CHECKING:
    import httpx2

REQUEST_TIMEOUT_S = 15.0
"""Each request to an authorization server (Pi's)."""
PROTOCOL_VERSION = "2025-11-25"
JsonObject = dict[str, Any]


class OAuthError(Exception):
    """An OAuth error answer (``error``, ``error_description``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message or code)
        self.code = code


@dataclass(frozen=True)
class Challenge:
    """A ``Bearer`` challenge of a 401 answer."""

    resource_metadata_url: str | None = None
    scope: str | None = None
    error: str | None = None


def parse_challenge(header: str | None) -> Challenge:
    if not header:
        return Challenge()
    scheme = header.lstrip().split(None, 1)[0].lower() if header.strip() else ""
    if scheme not in ("bearer", "dpop"):
        return Challenge()

    def field(name: str) -> str | None:
        match = re.search(rf'(?:^|[,\s]){name}=(?:"([^"]*)"|([^\s,]+))', header, re.IGNORECASE)
        return (match.group(1) or match.group(2) or None) if match else None

    metadata = field("resource_metadata")
    if metadata is not None and not _is_url(metadata):
        metadata = None
    return Challenge(metadata, field("scope"), field("error"))


def is_loopback(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "::1", "[::1]")


def secure_url(url: str) -> str:
    """``url`` if credentials may be sent there: https, or http on a loopback host."""
    parts = urlsplit(url)
    if parts.scheme != "https" and not is_loopback(parts.hostname or ""):
        raise ValueError(f"Refusing to send OAuth credentials to non-HTTPS endpoint {url}")
    return url


def _is_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def _path_suffix(url: str) -> str:
    path = urlsplit(url).path
    return path[:-1] if path.endswith("/") else path


async def _get_json(client: httpx2.AsyncClient, url: str) -> httpx2.Response:
    return await client.get(
        url, headers={"Accept": "application/json", "MCP-Protocol-Version": PROTOCOL_VERSION}
    )


def _miss(status: int) -> bool:
    """4xx and 502: not here, try the next place."""
    return 400 <= status < 500 or status == 502


def _object(response: httpx2.Response, what: str) -> JsonObject:
    try:
        value = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ValueError(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object")
    return value


async def resource_metadata(
    client: httpx2.AsyncClient, server_url: str, metadata_url: str | None
) -> JsonObject:
    """Protected-resource metadata: from the challenge's URL, else the well-known path of the
    server's path, else of its root."""
    origin = _origin(server_url)
    url = metadata_url or f"{origin}/.well-known/oauth-protected-resource{_path_suffix(server_url)}"
    response = await _get_json(client, url)
    if metadata_url is None and urlsplit(server_url).path not in ("", "/") and _miss(response.status_code):
        response = await _get_json(client, f"{origin}/.well-known/oauth-protected-resource")
    if not response.is_success:
        raise ValueError(f"HTTP {response.status_code} loading OAuth protected resource metadata")
    metadata = _object(response, "OAuth protected resource metadata")
    from mcp.shared.auth import ProtectedResourceMetadata

    ProtectedResourceMetadata.model_validate(metadata)
    return metadata


def _server_metadata_urls(issuer: str) -> list[str]:
    origin, path = _origin(issuer), _path_suffix(issuer)
    urls = [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}/.well-known/openid-configuration{path}",
    ]
    if path:
        urls.append(f"{origin}{path}/.well-known/openid-configuration")
    return urls


def _checked_server_metadata(metadata: JsonObject) -> JsonObject:
    from mcp.shared.auth import OAuthMetadata

    OAuthMetadata.model_validate(metadata)
    return metadata


async def server_metadata(client: httpx2.AsyncClient, issuer: str) -> JsonObject | None:
    """Authorization-server metadata of ``issuer`` (``None`` when it publishes none); its
    ``issuer`` must be the one asked for."""
    for url in _server_metadata_urls(issuer):
        response = await _get_json(client, url)
        if not response.is_success:
            if _miss(response.status_code):
                continue
            raise ValueError(f"HTTP {response.status_code} loading authorization server metadata from {url}")
        metadata = _checked_server_metadata(_object(response, "authorization server metadata"))
        if str(metadata.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
            raise ValueError(f"OAuth issuer mismatch: expected {issuer}, received {metadata.get('issuer')}")
        return metadata
    return None


async def discover(
    client: httpx2.AsyncClient,
    server_url: str,
    resource_metadata_url: str | None,
    configured_metadata_url: str | None,
) -> JsonObject:
    """Pi's ``discovery`` state: ``authorizationServerUrl``, ``authorizationServerMetadata``,
    ``resourceMetadata`` (each when known)."""
    resource: JsonObject | None
    try:
        resource = await resource_metadata(client, server_url, resource_metadata_url)
    except ValueError:
        resource = None
    if configured_metadata_url is not None:
        response = await _get_json(client, secure_url(configured_metadata_url))
        if not response.is_success:
            raise ValueError(
                f"HTTP {response.status_code} loading authorization server metadata from {configured_metadata_url}"
            )
        metadata = _checked_server_metadata(_object(response, "authorization server metadata"))
        return _discovery(str(metadata["issuer"]), metadata, resource)
    servers = resource.get("authorization_servers") if resource else None
    issuer = str(servers[0]) if servers else urljoin(server_url, "/")
    return _discovery(issuer, await server_metadata(client, issuer), resource)


def _discovery(issuer: str, metadata: JsonObject | None, resource: JsonObject | None) -> JsonObject:
    found: JsonObject = {"authorizationServerUrl": issuer}
    if metadata is not None:
        found["authorizationServerMetadata"] = metadata
    if resource is not None:
        found["resourceMetadata"] = resource
    return found


def select_resource(server_url: str, resource: JsonObject | None) -> str | None:
    """The ``resource`` parameter (RFC 8707): the metadata's resource, which must contain the
    server's URL."""
    if not resource:
        return None
    configured = str(resource.get("resource", ""))
    requested, allowed = urlsplit(server_url), urlsplit(configured)
    same_origin = (requested.scheme, requested.netloc) == (allowed.scheme, allowed.netloc)
    want = requested.path if requested.path.endswith("/") else requested.path + "/"
    have = allowed.path if allowed.path.endswith("/") else allowed.path + "/"
    if not same_origin or not want.startswith(have):
        raise ValueError(f"Protected resource {configured} does not match MCP server {server_url}")
    return configured


def application_type(redirect_uris: list[str]) -> str:
    """``native`` for loopback or custom-scheme redirect URIs (RFC 8252), else ``web``."""
    for uri in redirect_uris:
        parts = urlsplit(uri)
        if parts.scheme not in ("http", "https") or is_loopback(parts.hostname or ""):
            return "native"
    return "web"


async def register_client(
    client: httpx2.AsyncClient,
    issuer: str,
    metadata: JsonObject | None,
    client_metadata: JsonObject,
    scope: str | None,
) -> JsonObject:
    """Dynamic client registration; the server's answer as it wrote it."""
    endpoint = metadata.get("registration_endpoint") if metadata else None
    if metadata is not None and not endpoint:
        raise ValueError("Authorization server does not support dynamic client registration")
    body = {
        **client_metadata,
        "application_type": application_type(list(client_metadata.get("redirect_uris") or [])),
        **({"scope": scope} if scope else {}),
    }
    response = await client.post(
        str(endpoint or urljoin(issuer, "/register")),
        content=json.dumps(body),
        headers={"Accept": "application/json", "content-type": "application/json"},
    )
    if not response.is_success:
        raise ValueError(
            f"OAuth dynamic client registration failed with status {response.status_code}: {response.text}"
        )
    information = _object(response, "The client registration answer")
    if not isinstance(information.get("client_id"), str):
        raise ValueError("The client registration answer has no client_id")
    return information


def pkce_pair() -> tuple[str, str]:
    """``(verifier, S256 challenge)``."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def authorization_url(
    issuer: str,
    metadata: JsonObject | None,
    client_id: str,
    redirect_url: str,
    *,
    state: str,
    scope: str | None,
    resource: str | None,
    challenge: str,
) -> str:
    if metadata is not None:
        if "code" not in (metadata.get("response_types_supported") or []):
            raise ValueError("Authorization server does not support authorization codes")
        methods = metadata.get("code_challenge_methods_supported")
        if methods is not None and "S256" not in methods:
            raise ValueError("Authorization server does not support PKCE S256")
    endpoint = str((metadata or {}).get("authorization_endpoint") or urljoin(issuer, "/authorize"))
    if not _is_url(endpoint):
        raise ValueError(f"Invalid authorization endpoint {endpoint}")
    params = {
        "response_type": "code",
        "client_id": client_id,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "redirect_uri": redirect_url,
        "state": state,
        **({"scope": scope} if scope else {}),
        **({"prompt": "consent"} if scope and "offline_access" in scope.split() else {}),
        **({"resource": resource} if resource else {}),
    }
    parts = urlsplit(endpoint)
    query = f"{parts.query}&{urlencode(params)}" if parts.query else urlencode(params)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def _auth_method(information: JsonObject, supported: list[str]) -> str:
    hinted = information.get("token_endpoint_auth_method")
    secret = information.get("client_secret")
    if hinted in ("client_secret_basic", "client_secret_post", "none") and (
        not supported or hinted in supported
    ):
        return str(hinted)
    if not supported:
        return "client_secret_basic" if secret else "none"
    for method in ("client_secret_basic", "client_secret_post"):
        if secret and method in supported:
            return method
    if "none" in supported:
        return "none"
    return "client_secret_post" if secret else "none"


async def token_request(
    client: httpx2.AsyncClient,
    issuer: str,
    metadata: JsonObject | None,
    information: JsonObject,
    *,
    resource: str | None,
    params: dict[str, str],
) -> JsonObject:
    """A token endpoint request; the token answer (``OAuthError`` for an error answer)."""
    url = secure_url(str((metadata or {}).get("token_endpoint") or urljoin(issuer, "/token")))
    headers = {"Accept": "application/json", "content-type": "application/x-www-form-urlencoded"}
    form = dict(params)
    if resource:
        form["resource"] = resource
    method = _auth_method(
        information, list((metadata or {}).get("token_endpoint_auth_methods_supported") or [])
    )
    client_id, secret = str(information["client_id"]), information.get("client_secret")
    if method == "client_secret_basic":
        pair = f"{client_id}:{secret}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    else:
        form["client_id"] = client_id
        if method == "client_secret_post" and secret:
            form["client_secret"] = str(secret)
    response = await client.post(url, content=urlencode(form), headers=headers)
    try:
        value = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        value = None
    if isinstance(value, dict) and isinstance(value.get("error"), str):
        described = value.get("error_description")
        raise OAuthError(value["error"], described if isinstance(described, str) else value["error"])
    if not response.is_success:
        raise OAuthError("server_error", f"HTTP {response.status_code}: {response.text}")
    if not isinstance(value, dict) or not isinstance(value.get("access_token"), str):
        raise OAuthError("server_error", "The token answer has no access_token")
    return value
