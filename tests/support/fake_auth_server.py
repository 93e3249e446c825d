"""A fake authorization server on 127.0.0.1 for every sign-in flow Pi 0.85 ships.

One server speaks one provider's endpoints, at the paths and in the body formats of the real
service (JSON or form bodies, its field names, its error shapes), and checks what a correct
client must send: the client id, the PKCE verifier against the challenge given at the
authorization step, the redirect URI given there, the device code and user code. It keeps
state like the real thing: codes are single-use, refresh tokens rotate (the old one is then
refused) and can be revoked, device codes stay pending until ``approve`` (or fail after
``deny``).

    with FakeAuthServer("anthropic") as server:
        env = {server.override_variable: server.url, "PI_OAUTH_CALLBACK_PORT": "0"}
        ...
        server.browse(authorize_url)   # the user's browser: authorize, then the redirect

``requests`` records every request (method, path, headers, parsed body). Served with a
thread per request, so synchronous code (subprocesses) and asyncio tests can both use it.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from tests.support.http_thread import server_thread

CLIENT_IDS = {
    "anthropic": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
    "openai-codex": "app_EMoamEEZ73f0CkXaXp7hrann",
    "github-copilot": "Iv1.b507a08c87ecfe98",
    "kimi-coding": "17e5f671-d194-4dfb-9706-5516cb48c098",
    "xai": "b1a00492-073a-47ea-816f-4c329264a828",
    "radius": "pi-gateway",
}
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def codex_jwt(account_id: str, serial: int) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    claims = {"https://api.openai.com/auth": {"chatgpt_account_id": account_id}, "n": serial}
    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    raw: bytes


@dataclass
class Answer:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Device:
    device_code: str
    user_code: str
    approved: bool = False
    denied: bool = False
    polls: int = 0
    slow_downs: int = 0


class FakeAuthServer:
    def __init__(
        self, provider: str, *, expires_in: int = 8 * 3600, pending_polls: int = 0, slow_downs: int = 0
    ) -> None:
        self.provider = provider
        self.expires_in = expires_in
        """Lifetime given to new access tokens (seconds)."""
        self.pending_polls = pending_polls
        """Polls answered "pending" after approval (a user still typing the code)."""
        self.slow_downs = slow_downs
        """Polls answered "slow_down" first."""
        self.requests: list[Recorded] = []
        self.codes: dict[str, dict[str, str]] = {}
        self.refresh_tokens: dict[str, bool] = {}
        """Issued refresh tokens: True while usable."""
        self.access_tokens: list[str] = []
        self.devices: dict[str, _Device] = {}
        self.token_delay = 0.0
        """Seconds every token-endpoint answer waits (a slow server)."""
        self.token_gate: threading.Event | None = None
        """When set, token answers wait for this event (a test controls when a refresh ends)."""
        self.copilot_models = [
            {"id": "gpt-5.6-sol", "model_picker_enabled": True, "policy": {"state": "enabled"}},
            {"id": "claude-sonnet-4.6", "model_picker_enabled": True, "policy": {"state": "unconfigured"}},
            {"id": "not-in-the-catalog", "model_picker_enabled": True, "policy": {"state": "unconfigured"}},
            {"id": "o1-hidden", "model_picker_enabled": False, "policy": {"state": "enabled"}},
            {
                "id": "embeddings",
                "model_picker_enabled": True,
                "capabilities": {"supports": {"tool_calls": False}},
            },
        ]
        self.enabled_policies: list[str] = []
        self.chat_replies: list[Answer] = []
        self._serial = itertools.count(1)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def override_variable(self) -> str:
        return "PI_OAUTH_" + self.provider.upper().replace("-", "_") + "_BASE_URL"

    def __enter__(self) -> FakeAuthServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                owner._serve(self)

            def do_POST(self) -> None:
                owner._serve(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        server_thread(self._server).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        if self.token_gate is not None:
            self.token_gate.set()
        self._server.shutdown()
        self._server.server_close()

    # ------------------------------------------------------------------ what a user does

    def browse(self, authorize_url: str) -> tuple[int, str]:
        """Be the browser: open the authorization page (the user approves at once), follow
        its redirect to the client's callback; returns (status, page) of the callback."""
        target = self.authorize(authorize_url)
        try:
            with urllib.request.urlopen(target, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def authorize(self, authorize_url: str) -> str:
        """The redirect the authorization page answers with (the URL a user would paste)."""
        request = urllib.request.Request(authorize_url, method="GET")
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            opener.open(request, timeout=10)
        except urllib.error.HTTPError as error:
            if error.code == 302:
                return str(error.headers["Location"])
            raise AssertionError(f"authorize failed: {error.code} {error.read().decode()}") from None
        raise AssertionError("authorize did not redirect")

    def approve(self, user_code: str | None = None) -> None:
        with self._lock:
            for device in self.devices.values():
                if user_code is None or device.user_code == user_code:
                    device.approved = True

    def deny(self) -> None:
        with self._lock:
            for device in self.devices.values():
                device.denied = True

    def revoke_all(self) -> None:
        with self._lock:
            for token in self.refresh_tokens:
                self.refresh_tokens[token] = False

    def paths(self, method: str | None = None) -> list[str]:
        return [r.path for r in self.requests if method is None or r.method == method]

    def token_requests(self, grant_type: str) -> list[Recorded]:
        return [
            r for r in self.requests if isinstance(r.body, dict) and r.body.get("grant_type") == grant_type
        ]

    # ------------------------------------------------------------------ serving

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        content_type = handler.headers.get("content-type") or ""
        body: Any = None
        if raw and "json" in content_type:
            body = json.loads(raw)
        elif raw and "x-www-form-urlencoded" in content_type:
            body = dict(parse_qsl(raw.decode(), keep_blank_values=True))
        recorded = Recorded(
            handler.command,
            parts.path,
            dict(parse_qsl(parts.query, keep_blank_values=True)),
            {k.lower(): v for k, v in handler.headers.items()},
            body,
            raw,
        )
        with self._lock:
            self.requests.append(recorded)
        route = _ROUTES.get(self.provider, {}).get((handler.command, parts.path))
        if route is None and self.provider == "github-copilot" and parts.path.endswith("/policy"):
            route = FakeAuthServer._copilot_policy
        answer = route(self, recorded) if route is not None else Answer(404, {"error": "not_found"})
        self._write(handler, answer)

    def _write(self, handler: BaseHTTPRequestHandler, answer: Answer) -> None:
        if isinstance(answer.body, (dict, list)):
            data = json.dumps(answer.body).encode()
            headers = {"content-type": "application/json", **answer.headers}
        else:
            data = (
                (answer.body or "").encode()
                if isinstance(answer.body, str) or answer.body is None
                else answer.body
            )
            headers = {"content-type": "text/plain", **answer.headers}  # (an SSE reply names its own)
        handler.send_response(answer.status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _wait_for_token_gate(self) -> None:
        if self.token_delay:
            time.sleep(self.token_delay)
        if self.token_gate is not None:
            self.token_gate.wait(30)

    # ------------------------------------------------------------------ shared grant logic

    def _authorize_redirect(self, request: Recorded, redirect_key: str = "redirect_uri") -> Answer:
        query = request.query
        expected_client = CLIENT_IDS.get(self.provider)
        if expected_client and query.get("client_id") != expected_client:
            return Answer(400, {"error": "invalid_client"})
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return Answer(400, {"error": "invalid_request", "error_description": "PKCE S256 required"})
        code = f"code-{next(self._serial)}"
        self.codes[code] = {"challenge": query["code_challenge"], "redirect_uri": query.get(redirect_key, "")}
        params = {"code": code}
        if "state" in query:
            params["state"] = query["state"]
        return Answer(302, "", {"Location": f"{query[redirect_key]}?{urlencode(params)}"})

    def _check_code(self, body: dict[str, Any], *, check_redirect: bool = True) -> str | None:
        """Why an authorization_code grant is refused, or None (the code is used up)."""
        stored = self.codes.pop(str(body.get("code")), None)
        if stored is None:
            return "unknown or used code"
        if s256(str(body.get("code_verifier"))) != stored["challenge"]:
            return "PKCE verifier does not match"
        if check_redirect and body.get("redirect_uri") != stored["redirect_uri"]:
            return f"redirect_uri {body.get('redirect_uri')!r} differs from {stored['redirect_uri']!r}"
        return None

    def _issue(self, access_prefix: str, refresh_prefix: str) -> dict[str, Any]:
        serial = next(self._serial)
        access = (
            codex_jwt("acct-test", serial) if self.provider == "openai-codex" else f"{access_prefix}{serial}"
        )
        refresh = f"{refresh_prefix}{serial}"
        self.refresh_tokens[refresh] = True
        self.access_tokens.append(access)
        return {
            "access_token": access,
            "refresh_token": refresh,
            "expires_in": self.expires_in,
            "token_type": "Bearer",
        }

    def _use_refresh(self, token: Any) -> bool:
        """True (and the token is rotated out) when ``token`` is a live refresh token."""
        if not self.refresh_tokens.get(str(token)):
            return False
        self.refresh_tokens[str(token)] = False
        return True

    def _new_device(self, interval: int = 1) -> _Device:
        serial = next(self._serial)
        device = _Device(f"device-{serial}", f"CODE-{serial:04d}")
        self.devices[device.device_code] = device
        return device

    def _poll(self, device_code: Any) -> str:
        """ "pending" | "slow_down" | "denied" | "expired" | "approved" for one poll."""
        device = self.devices.get(str(device_code))
        if device is None:
            return "expired"
        device.polls += 1
        if device.denied:
            return "denied"
        if device.slow_downs < self.slow_downs:
            device.slow_downs += 1
            return "slow_down"
        if not device.approved or device.polls <= self.slow_downs + self.pending_polls:
            return "pending"
        del self.devices[device.device_code]
        return "approved"

    # ------------------------------------------------------------------ Anthropic

    def _anthropic_token(self, request: Recorded) -> Answer:
        self._wait_for_token_gate()
        body = request.body or {}
        if "application/json" not in request.headers.get("content-type", ""):
            return Answer(415, {"error": "json required"})
        if body.get("client_id") != CLIENT_IDS["anthropic"]:
            return Answer(401, {"error": "invalid_client"})
        if body.get("grant_type") == "authorization_code":
            problem = self._check_code(body)
            if problem:
                return Answer(400, {"error": "invalid_grant", "error_description": problem})
            return Answer(200, self._issue("sk-ant-oat01-test-", "sk-ant-ort01-test-"))
        if body.get("grant_type") == "refresh_token":
            if not self._use_refresh(body.get("refresh_token")):
                return Answer(
                    400,
                    {"error": "invalid_grant", "error_description": "Refresh token is invalid or revoked"},
                )
            return Answer(200, self._issue("sk-ant-oat01-test-", "sk-ant-ort01-test-"))
        return Answer(400, {"error": "unsupported_grant_type"})

    # ------------------------------------------------------------------ OpenAI Codex

    def _codex_token(self, request: Recorded) -> Answer:
        self._wait_for_token_gate()
        body = request.body or {}
        if body.get("client_id") != CLIENT_IDS["openai-codex"]:
            return Answer(401, {"error": "invalid_client"})
        if body.get("grant_type") == "authorization_code":
            problem = self._check_code(body)
            if problem:
                return Answer(400, {"error": "invalid_grant", "error_description": problem})
            return Answer(200, {**self._issue("", "rt-"), "id_token": "id"})
        if body.get("grant_type") == "refresh_token":
            if not self._use_refresh(body.get("refresh_token")):
                return Answer(
                    401, {"error": {"message": "refresh token revoked", "code": "refresh_token_invalidated"}}
                )
            return Answer(200, self._issue("", "rt-"))
        return Answer(400, {"error": "unsupported_grant_type"})

    def _codex_usercode(self, request: Recorded) -> Answer:
        if (request.body or {}).get("client_id") != CLIENT_IDS["openai-codex"]:
            return Answer(401, {"error": "invalid_client"})
        device = self._new_device()
        return Answer(
            200, {"device_auth_id": device.device_code, "user_code": device.user_code, "interval": "1"}
        )

    def _codex_device_token(self, request: Recorded) -> Answer:
        body = request.body or {}
        device = self.devices.get(str(body.get("device_auth_id")))
        if device is None or device.user_code != body.get("user_code"):
            return Answer(400, {"error": {"code": "invalid_device", "message": "unknown device"}})
        state = self._poll(device.device_code)
        if state == "pending":
            return Answer(403, {"error": {"code": "deviceauth_authorization_pending"}})
        if state == "slow_down":
            return Answer(429, {"error": "slow_down"})
        if state == "denied":
            return Answer(400, {"error": {"code": "access_denied", "message": "denied"}})
        verifier = f"device-verifier-{next(self._serial)}"
        code = f"code-{next(self._serial)}"
        self.codes[code] = {"challenge": s256(verifier), "redirect_uri": f"{self.url}/deviceauth/callback"}
        return Answer(
            200, {"authorization_code": code, "code_verifier": verifier, "code_challenge": s256(verifier)}
        )

    # ------------------------------------------------------------------ GitHub Copilot

    def _github_device_code(self, request: Recorded) -> Answer:
        if (request.body or {}).get("client_id") != CLIENT_IDS["github-copilot"]:
            return Answer(401, {"error": "invalid_client"})
        device = self._new_device()
        return Answer(
            200,
            {
                "device_code": device.device_code,
                "user_code": device.user_code,
                "verification_uri": "https://github.com/login/device",
                "expires_in": 900,
                "interval": 1,
            },
        )

    def _github_access_token(self, request: Recorded) -> Answer:
        body = request.body or {}
        if body.get("grant_type") != DEVICE_GRANT or body.get("client_id") != CLIENT_IDS["github-copilot"]:
            return Answer(200, {"error": "unsupported_grant_type"})
        state = self._poll(body.get("device_code"))
        if state in ("pending", "slow_down"):
            extra = {"interval": 1} if state == "slow_down" else {}
            return Answer(
                200, {"error": "authorization_pending" if state == "pending" else "slow_down", **extra}
            )
        if state == "denied":
            return Answer(200, {"error": "access_denied", "error_description": "The user denied the request"})
        if state == "expired":
            return Answer(200, {"error": "expired_token"})
        token = f"gho_test{next(self._serial)}"
        self.refresh_tokens[token] = True
        return Answer(200, {"access_token": token, "token_type": "bearer", "scope": "read:user"})

    def _copilot_token(self, request: Recorded) -> Answer:
        self._wait_for_token_gate()
        github = request.headers.get("authorization", "").removeprefix("Bearer ")
        if not self.refresh_tokens.get(github):
            return Answer(401, {"message": "Bad credentials"})
        serial = next(self._serial)
        expires_at = int(time.time()) + self.expires_in
        token = f"tid={serial};exp={expires_at};sku=copilot_individual;proxy-ep=proxy.individual.githubcopilot.com;8kp=1"
        self.access_tokens.append(token)
        return Answer(200, {"token": token, "expires_at": expires_at, "refresh_in": 1500})

    def _copilot_models(self, request: Recorded) -> Answer:
        if request.headers.get("authorization", "").removeprefix("Bearer ") not in self.access_tokens:
            return Answer(401, {"message": "unauthorized"})
        return Answer(200, {"data": self.copilot_models})

    def _copilot_policy(self, request: Recorded) -> Answer:
        self.enabled_policies.append(request.path.split("/")[-2])
        return Answer(200, {"state": "enabled"})

    def _chat(self, request: Recorded) -> Answer:
        """A model answering "signed in" (Chat Completions or Anthropic Messages SSE)."""
        from tests.support.scripted_provider import _anthropic_events, _openai_events

        if self.chat_replies:
            return self.chat_replies.pop(0)
        model = str((request.body or {}).get("model", "model"))
        turn = {"text": "signed in"}
        if request.path.endswith("/messages"):
            frames = [f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in _anthropic_events(turn, model)]
        else:
            frames = [f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n" for e in _openai_events(turn, model)]
        return Answer(200, "".join(frames), {"content-type": "text/event-stream"})

    # ------------------------------------------------------------------ OpenRouter

    def _openrouter_authorize(self, request: Recorded) -> Answer:
        return self._authorize_redirect(request, "callback_url")

    def _openrouter_keys(self, request: Recorded) -> Answer:
        body = request.body or {}
        problem = self._check_code(body, check_redirect=False)
        if problem:
            return Answer(403, {"error": {"message": problem, "code": 403}})
        key = f"sk-or-v1-test{next(self._serial)}"
        self.access_tokens.append(key)
        return Answer(200, {"key": key, "user_id": "user_1"})

    # ------------------------------------------------------------------ RFC 8628 device flows (Kimi, xAI, Radius)

    def _device_authorization(self, request: Recorded) -> Answer:
        if (request.body or {}).get("client_id") != CLIENT_IDS[self.provider]:
            return Answer(401, {"error": "invalid_client"})
        device = self._new_device()
        verification = "https://accounts.x.ai/device" if self.provider == "xai" else f"{self.url}/device"
        return Answer(
            200,
            {
                "device_code": device.device_code,
                "user_code": device.user_code,
                "verification_uri": verification,
                "verification_uri_complete": f"{verification}?user_code={device.user_code}",
                "expires_in": 900,
                "interval": 1,
            },
        )

    def _rfc_token(self, request: Recorded) -> Answer:
        self._wait_for_token_gate()
        body = request.body or {}
        refused = 401 if self.provider == "kimi-coding" else 400
        if body.get("client_id") != CLIENT_IDS[self.provider]:
            return Answer(401, {"error": "invalid_client"})
        grant = body.get("grant_type")
        if grant == DEVICE_GRANT:
            state = self._poll(body.get("device_code"))
            if state in ("pending", "slow_down"):
                return Answer(400, {"error": "authorization_pending" if state == "pending" else "slow_down"})
            if state in ("denied", "expired"):
                return Answer(400, {"error": "access_denied" if state == "denied" else "expired_token"})
            return Answer(200, self._issue("at-", "rt-"))
        if grant == "authorization_code":
            problem = self._check_code(body)
            if problem:
                return Answer(400, {"error": "invalid_grant", "error_description": problem})
            return Answer(200, {**self._issue("at-", "rt-"), "scope": "gateway offline_access"})
        if grant == "refresh_token":
            if not self._use_refresh(body.get("refresh_token")):
                return Answer(
                    refused, {"error": "invalid_grant", "error_description": "refresh token revoked"}
                )
            return Answer(200, self._issue("at-", "rt-"))
        return Answer(400, {"error": "unsupported_grant_type"})

    def _radius_discovery(self, request: Recorded) -> Answer:
        return Answer(200, {"authorizationEndpoint": f"{self.url}/authorize"})

    def _radius_authorize(self, request: Recorded) -> Answer:
        return self._authorize_redirect(request)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_Route = Callable[[FakeAuthServer, Recorded], Answer]
_ROUTES: dict[str, dict[tuple[str, str], _Route]] = {
    "anthropic": {
        ("GET", "/oauth/authorize"): FakeAuthServer._authorize_redirect,
        ("POST", "/v1/oauth/token"): FakeAuthServer._anthropic_token,
    },
    "openai-codex": {
        ("GET", "/oauth/authorize"): FakeAuthServer._authorize_redirect,
        ("POST", "/oauth/token"): FakeAuthServer._codex_token,
        ("POST", "/api/accounts/deviceauth/usercode"): FakeAuthServer._codex_usercode,
        ("POST", "/api/accounts/deviceauth/token"): FakeAuthServer._codex_device_token,
    },
    "github-copilot": {
        ("POST", "/login/device/code"): FakeAuthServer._github_device_code,
        ("POST", "/login/oauth/access_token"): FakeAuthServer._github_access_token,
        ("GET", "/copilot_internal/v2/token"): FakeAuthServer._copilot_token,
        ("GET", "/models"): FakeAuthServer._copilot_models,
        ("POST", "/chat/completions"): FakeAuthServer._chat,
        ("POST", "/v1/messages"): FakeAuthServer._chat,
    },
    "openrouter": {
        ("GET", "/auth"): FakeAuthServer._openrouter_authorize,
        ("POST", "/api/v1/auth/keys"): FakeAuthServer._openrouter_keys,
    },
    "kimi-coding": {
        ("POST", "/api/oauth/device_authorization"): FakeAuthServer._device_authorization,
        ("POST", "/api/oauth/token"): FakeAuthServer._rfc_token,
        ("POST", "/v1/messages"): FakeAuthServer._chat,
    },
    "xai": {
        ("POST", "/oauth2/device/code"): FakeAuthServer._device_authorization,
        ("POST", "/oauth2/token"): FakeAuthServer._rfc_token,
    },
    "radius": {
        ("GET", "/v1/oauth"): FakeAuthServer._radius_discovery,
        ("GET", "/authorize"): FakeAuthServer._radius_authorize,
        ("POST", "/v1/oauth/token"): FakeAuthServer._rfc_token,
        ("POST", "/v1/oauth/device"): FakeAuthServer._device_authorization,
    },
}


class ScriptedUser:
    """The person at the keyboard during a sign-in: opens each URL in the "browser" (or pastes
    the redirect URL instead, with ``paste``), enters each device code at once, answers a
    choice with ``choice`` and a text question with ``text``. ``prompts`` and ``events``
    record what the flow showed."""

    def __init__(
        self,
        server: FakeAuthServer,
        *,
        choice: str = "",
        text: str = "",
        paste: bool = False,
        open_browser: bool = True,
        paste_text: Callable[[str], str] | None = None,
    ) -> None:
        self.server = server
        self.choice = choice
        self.text = text
        self.paste = paste
        self.open_browser = open_browser
        self.paste_text = paste_text
        self.prompts: list[Any] = []
        self.events: list[Any] = []
        self.browser_results: list[tuple[int, str]] = []
        self._browsing: list[Any] = []
        self._urls: list[str] = []

    def callbacks(self) -> Any:
        from pi_ai.oauth import LoginCallbacks

        return LoginCallbacks(self._prompt, self._notify)

    async def _prompt(self, prompt: Any) -> str:
        import asyncio

        self.prompts.append(prompt)
        if prompt.type == "select":
            return self.choice
        if prompt.type in ("text", "secret"):
            return self.text
        if self.paste and self._urls:
            redirect = await asyncio.to_thread(self.server.authorize, self._urls[-1])
            return self.paste_text(redirect) if self.paste_text else redirect
        await asyncio.Event().wait()  # waits until the flow cancels the prompt
        raise AssertionError("unreachable")

    def _notify(self, event: Any) -> None:
        import asyncio

        self.events.append(event)
        if event.type == "auth_url":
            self._urls.append(event.url)
            if self.open_browser and not self.paste:
                self._browsing.append(asyncio.ensure_future(asyncio.to_thread(self.server.browse, event.url)))
        if event.type == "device_code":
            self.server.approve(event.user_code)

    async def browser_done(self) -> list[tuple[int, str]]:
        for task in self._browsing:
            self.browser_results.append(await task)
        self._browsing.clear()
        return self.browser_results
