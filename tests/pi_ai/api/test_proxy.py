"""Proxies as Pi's undici ``EnvHttpProxyAgent`` uses them: which proxy for which URL (the
environment rules, ``NO_PROXY`` included), and real requests through a proxy on 127.0.0.1,
tunnelled with CONNECT for ``http`` and ``https`` URLs alike (Pi sets ``proxyTunnel: true``)."""

from __future__ import annotations

import ssl
import subprocess
from pathlib import Path

import pytest

from pi_ai import Model, StreamOptions
from pi_ai.api._http import HttpRequest, TransportError, anthropic_sdk_message, open_stream
from pi_ai.api._proxy import proxy_for
from tests.support.http_proxy import HttpProxy
from tests.support.loopback import LoopbackServer, Reply

MODEL = Model(id="m", name="m", api="test-api", provider="test", base_url="http://unused")
P = "http://proxy.test:3128"
S = "http://secure-proxy.test:3129"


@pytest.mark.parametrize(
    ("url", "env", "expected"),
    [
        ("http://api.test/v1", {}, None),
        ("http://api.test/v1", {"HTTP_PROXY": P}, P),
        ("http://api.test/v1", {"http_proxy": P, "HTTP_PROXY": S}, P),  # lower case wins
        ("http://api.test/v1", {"http_proxy": "", "HTTP_PROXY": S}, None),  # even when empty
        ("https://api.test/v1", {"HTTP_PROXY": P}, P),  # https falls back to the http proxy
        ("https://api.test/v1", {"HTTP_PROXY": P, "HTTPS_PROXY": S}, S),
        ("http://api.test/v1", {"HTTPS_PROXY": S}, None),  # http never uses the https proxy
        ("http://api.test/v1", {"HTTP_PROXY": P, "NO_PROXY": "api.test"}, None),
        ("http://eu.api.test/v1", {"HTTP_PROXY": P, "NO_PROXY": "api.test"}, None),  # subdomain
        ("http://eu.api.test/v1", {"HTTP_PROXY": P, "NO_PROXY": ".api.test"}, None),
        ("http://eu.api.test/v1", {"HTTP_PROXY": P, "NO_PROXY": "*.api.test"}, None),
        ("http://notapi.test/v1", {"HTTP_PROXY": P, "NO_PROXY": "api.test"}, P),
        ("http://API.test:8080/v1", {"HTTP_PROXY": P, "NO_PROXY": "x.test, api.test:8080"}, None),
        ("http://api.test:8081/v1", {"HTTP_PROXY": P, "NO_PROXY": "api.test:8080"}, P),
        ("http://api.test/v1", {"HTTP_PROXY": P, "NO_PROXY": "api.test:80"}, None),  # default port
        ("https://api.test/v1", {"HTTPS_PROXY": S, "NO_PROXY": "api.test:443"}, None),
        ("http://api.test/v1", {"HTTP_PROXY": P, "NO_PROXY": "*"}, None),
        ("http://api.test/v1", {"HTTP_PROXY": P, "NO_PROXY": "* other.test"}, P),  # '*' only alone
        ("http://[::1]:8080/v1", {"HTTP_PROXY": P, "NO_PROXY": "[::1]"}, None),
        ("http://127.0.0.1:8080/v1", {"HTTP_PROXY": P, "no_proxy": "localhost", "NO_PROXY": "127.0.0.1"}, P),
    ],
)
def test_which_proxy_for_which_url(url: str, env: dict[str, str], expected: str | None) -> None:
    assert proxy_for(url, env) == expected


async def _events(url: str, options: StreamOptions | None = None) -> list[str]:
    request = HttpRequest(url + "/v1/messages", {"content-type": "application/json"}, {"q": 1})
    async with open_stream(request, options, MODEL, describe_error=anthropic_sdk_message) as response:
        return [event.data async for event in response.events(flush_partial=True)]


async def test_http_url_is_tunnelled_through_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    async with (
        LoopbackServer([Reply(chunks=[b"data: 1\n\n", b"data: 2\n\n"])]) as server,
        HttpProxy() as proxy,
    ):
        monkeypatch.setenv("HTTP_PROXY", proxy.url.replace("http://", "http://user:p%40ss@"))
        assert await _events(server.url) == ["1", "2"]
        target = server.url.removeprefix("http://")
    (connect,) = proxy.requests
    assert connect.line == f"CONNECT {target} HTTP/1.1"
    assert connect.headers["host"] == target
    assert connect.headers["proxy-connection"] == "keep-alive"
    assert connect.headers["proxy-authorization"] == "Basic dXNlcjpwQHNz"  # user:p@ss
    # inside the tunnel: an ordinary origin-form request, without the proxy's credentials
    assert server.requests[0].path == "/v1/messages"
    assert "proxy-authorization" not in server.requests[0].headers
    assert server.requests[0].json() == {"q": 1}


async def test_no_proxy_goes_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    async with LoopbackServer([Reply(chunks=[b"data: 1\n\n"])]) as server, HttpProxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
        assert await _events(server.url) == ["1"]
    assert proxy.requests == []
    assert len(server.requests) == 1


async def test_a_refused_tunnel_is_a_connection_error(monkeypatch: pytest.MonkeyPatch) -> None:
    async with LoopbackServer([Reply(chunks=[b"data: 1\n\n"])]) as server, HttpProxy(refuse=403) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        with pytest.raises(TransportError) as caught:
            await _events(server.url)
    assert str(caught.value) == "Connection error. (Proxy response (403) !== 200 when HTTP Tunneling)"
    assert server.requests == []


async def test_unusable_proxy_url_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "socks5://127.0.0.1:1080")
    with pytest.raises(TransportError) as caught:
        await _events("http://127.0.0.1:9")
    assert str(caught.value) == (
        "Connection error. (Unsupported proxy URL 'socks5://127.0.0.1:1080': "
        "expected http://host:port or https://host:port)"
    )


@pytest.fixture
def tls_server_context(tmp_path: Path) -> tuple[ssl.SSLContext, Path]:
    """A certificate for 127.0.0.1 made for this test, and a server context using it."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context, cert


async def test_https_url_goes_through_https_proxy_with_tls_inside_the_tunnel(
    monkeypatch: pytest.MonkeyPatch, tls_server_context: tuple[ssl.SSLContext, Path]
) -> None:
    context, cert = tls_server_context
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # our https client trusts the test certificate
    async with LoopbackServer([Reply(chunks=[b"data: secure\n\n"])], tls=context) as server:
        async with HttpProxy() as plain, HttpProxy() as secure:
            monkeypatch.setenv("HTTP_PROXY", plain.url)
            monkeypatch.setenv("HTTPS_PROXY", secure.url)
            assert await _events(server.url, StreamOptions(timeout_ms=10_000)) == ["secure"]
        target = server.url.removeprefix("https://")
    assert plain.requests == []
    assert [request.line for request in secure.requests] == [f"CONNECT {target} HTTP/1.1"]
    assert server.requests[0].path == "/v1/messages"
