"""HTTP proxies as Pi uses them: chosen from the environment per request, reached by tunnel.

Pi's coding agent sends every provider request through undici's ``EnvHttpProxyAgent`` (its
``httpProxy`` setting only fills ``HTTP_PROXY`` / ``HTTPS_PROXY`` when they are unset). Its
rules, which ``proxy_for`` follows:

- ``http_proxy`` (else ``HTTP_PROXY``) for ``http`` URLs; ``https_proxy`` (else
  ``HTTPS_PROXY``, else the http proxy) for ``https`` URLs. The lower-case name wins when both
  are set, even when it is empty (then there is no proxy).
- ``no_proxy`` (else ``NO_PROXY``): entries separated by commas or spaces; ``*`` alone
  turns proxying off; ``host`` or ``.host`` / ``*.host`` matches that host and its subdomains;
  ``host:port`` only that port. Read at every request, so a change applies at once.
- Every request is tunnelled: ``CONNECT host:port`` to the proxy, then the request inside
  the tunnel (TLS to the server for ``https``, plain HTTP for ``http``), also for ``http``
  URLs (Pi sets ``proxyTunnel: true``). Credentials in the proxy URL are sent as
  ``Proxy-Authorization: Basic``. The tunnel is refused unless the proxy answers 200.

Proxies are ``http://`` or ``https://`` URLs (TLS to the proxy itself); other schemes are
refused with a message.
"""

from __future__ import annotations

import base64
import os
import re
import ssl
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

import httpcore  # this module is imported with the HTTP client, on the first request

_DEFAULT_PORTS = {"http": 80, "https": 443}
_MAX_CONNECT_REPLY = 65_536


class ProxySettingError(ValueError):
    """The proxy URL in the environment cannot be used."""


def _first_set(environ: Mapping[str, str], *names: str) -> str | None:
    """The first variable that is set (JavaScript ``a ?? b``: an empty value still counts)."""
    for name in names:
        if name in environ:
            return environ[name]
    return None


def _host_and_port(url: str) -> tuple[str, str, int]:
    """(scheme, lower-cased host with IPv6 brackets kept, port or the scheme's default)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    authority = parts.netloc.rpartition("@")[2]
    host = re.sub(r":\d*$", "", authority).lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, host, port or _DEFAULT_PORTS.get(scheme, 0)


def _bypassed(host: str, port: int, no_proxy: str) -> bool:
    entries = [entry for entry in re.split(r"[,\s]", no_proxy) if entry]
    if not entries:
        return False
    if no_proxy == "*":
        return True
    for entry in entries:
        with_port = re.fullmatch(r"(.+):(\d+)", entry)
        name = re.sub(r"^\*?\.", "", with_port.group(1) if with_port else entry).lower()
        entry_port = int(with_port.group(2)) if with_port else 0
        if entry_port and entry_port != port:
            continue
        if host == name or host.endswith(f".{name}"):
            return True
    return False


def proxy_for(url: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The proxy URL a request to ``url`` goes through, or ``None`` (see the module docstring)."""
    env = os.environ if environ is None else environ
    http_proxy = _first_set(env, "http_proxy", "HTTP_PROXY") or None
    https_proxy = _first_set(env, "https_proxy", "HTTPS_PROXY") or None
    if http_proxy is None and https_proxy is None:
        return None
    scheme, host, port = _host_and_port(url)
    if _bypassed(host, port, _first_set(env, "no_proxy", "NO_PROXY") or ""):
        return None
    return (https_proxy or http_proxy) if scheme == "https" else http_proxy


class TunnelBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend whose every connection is a CONNECT tunnel through a proxy."""

    def __init__(self, proxy_url: str) -> None:
        parts = urlsplit(proxy_url)
        self._scheme = parts.scheme.lower()
        if self._scheme not in ("http", "https") or not parts.hostname:
            raise ProxySettingError(
                f"Unsupported proxy URL {proxy_url!r}: expected http://host:port or https://host:port"
            )
        self._host = parts.hostname
        try:
            self._port = parts.port or _DEFAULT_PORTS[self._scheme]
        except ValueError:
            raise ProxySettingError(f"Invalid port in proxy URL {proxy_url!r}") from None
        self._authorization: str | None = None
        if parts.username is not None:
            credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            self._authorization = "Basic " + base64.b64encode(credentials.encode()).decode()
        self._inner = httpcore.AnyIOBackend()
        self._proxy_tls: ssl.SSLContext | None = None

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's backend interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._inner.connect_tcp(
            self._host,
            self._port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )
        try:
            if self._scheme == "https":
                stream = await stream.start_tls(self._tls(), server_hostname=self._host, timeout=timeout)
            await _open_tunnel(stream, host, port, self._authorization, timeout)
        except BaseException:
            await stream.aclose()
            raise
        return stream

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's backend interface)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("Unix sockets are not reached through a proxy")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)

    def _tls(self) -> ssl.SSLContext:
        if self._proxy_tls is None:
            import httpx

            self._proxy_tls = httpx.create_ssl_context()
        return self._proxy_tls


async def _open_tunnel(
    stream: httpcore.AsyncNetworkStream,
    host: str,
    port: int,
    authorization: str | None,
    timeout: float | None,  # noqa: ASYNC109 (passed on to httpcore's stream, as it expects)
) -> None:
    """Ask the proxy for a tunnel to ``host:port`` (undici's request: Host, keep-alive)."""
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lines = [f"CONNECT {target} HTTP/1.1", f"host: {target}", "proxy-connection: keep-alive"]
    if authorization is not None:
        lines.insert(1, f"proxy-authorization: {authorization}")
    await stream.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"), timeout=timeout)
    reply = b""
    while b"\r\n\r\n" not in reply:
        if len(reply) > _MAX_CONNECT_REPLY:
            raise httpcore.ProxyError("Proxy sent an oversized reply to CONNECT")
        data = await stream.read(4096, timeout=timeout)
        if not data:
            raise httpcore.ProxyError("Proxy closed the connection before answering CONNECT")
        reply += data
    head, _, rest = reply.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    status = status_line.split(" ", 2)[1] if status_line.count(" ") >= 1 else ""
    if status != "200":
        label = status if status.isdigit() else repr(status_line)
        raise httpcore.ProxyError(f"Proxy response ({label}) !== 200 when HTTP Tunneling")
    if rest:
        # The server speaks only after the request, so nothing may follow the proxy's reply yet.
        raise httpcore.ProxyError("Proxy sent data before the tunnel was used")
