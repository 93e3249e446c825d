"""What a sign-in flow exchanges with its caller, and what every flow provides.

A flow never touches files: ``login`` returns a credential, ``refresh`` returns a new one,
``to_auth`` says what a request carries. Storing credentials (``auth.json``, its lock) is
the application's job.

Credentials are plain JSON objects in Pi's ``auth.json`` shape, so that a file written by
either program reads in the other::

    {"type": "oauth", "access": "...", "refresh": "...", "expires": 1760000000000, ...}

``expires`` is Unix time in milliseconds; flows may add fields of their own (``accountId``,
``enterpriseUrl``, ``availableModelIds``, ``scope``), kept as they are.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

OAuthCredential: TypeAlias = dict[str, Any]


class OAuthError(Exception):
    """A sign-in or refresh failed; the message says why (shown to the user as it is)."""


class LoginCancelled(OAuthError):
    """The user (or the caller) stopped the sign-in."""

    def __init__(self, message: str = "Login cancelled") -> None:
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class PromptOption:
    id: str
    label: str
    description: str | None = None


@dataclass(frozen=True, slots=True)
class AuthPrompt:
    """A question for the user. ``select`` answers with an option ``id``; ``manual_code`` asks
    for a pasted authorization code or redirect URL while a callback server also waits (the
    flow cancels the prompt's task when the callback wins)."""

    type: Literal["text", "secret", "select", "manual_code"]
    message: str
    placeholder: str | None = None
    options: Sequence[PromptOption] = ()


@dataclass(frozen=True, slots=True)
class InfoLink:
    url: str
    label: str | None = None


@dataclass(frozen=True, slots=True)
class InfoEvent:
    message: str
    links: Sequence[InfoLink] = ()
    type: Literal["info"] = "info"


@dataclass(frozen=True, slots=True)
class AuthUrlEvent:
    """Open ``url`` in a browser (the flow never opens one itself)."""

    url: str
    instructions: str | None = None
    type: Literal["auth_url"] = "auth_url"


@dataclass(frozen=True, slots=True)
class DeviceCodeEvent:
    """Show ``user_code`` and where to enter it."""

    user_code: str
    verification_uri: str
    interval_seconds: float | None = None
    expires_in_seconds: float | None = None
    type: Literal["device_code"] = "device_code"


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    message: str
    type: Literal["progress"] = "progress"


AuthEvent: TypeAlias = InfoEvent | AuthUrlEvent | DeviceCodeEvent | ProgressEvent


@dataclass(frozen=True, slots=True)
class LoginCallbacks:
    """How a flow talks to the user: ``prompt`` returns the answer (raising, e.g.
    ``LoginCancelled``, stops the sign-in); ``notify`` shows an event."""

    prompt: Callable[[AuthPrompt], Awaitable[str]]
    notify: Callable[[AuthEvent], None]


@dataclass(frozen=True, slots=True)
class RequestCredentials:
    """What a request made with an OAuth credential carries: a key (sent the way the wire API
    sends keys), extra headers, and for some providers a base URL of their own."""

    api_key: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    base_url: str | None = None


class OAuthFlow:
    """One provider's sign-in. Subclasses set the names and implement the three steps."""

    provider: str
    """The provider id whose credential this flow makes (``auth.json`` key)."""
    name: str
    """Shown in provider lists (``"Anthropic (Claude Pro/Max)"``)."""
    is_subscription: bool = False
    """Access through this sign-in is backed by a subscription, not pay-per-use billing."""
    login_label: str | None = None
    """A label of its own for the sign-in choice (``"Sign in with OpenRouter"``)."""

    async def login(self, callbacks: LoginCallbacks) -> OAuthCredential:
        raise NotImplementedError

    async def refresh(self, credential: OAuthCredential) -> OAuthCredential:
        """A fresh credential from ``credential``'s refresh token (network; raises ``OAuthError``)."""
        raise NotImplementedError

    def to_auth(self, credential: OAuthCredential) -> RequestCredentials:
        return RequestCredentials(api_key=str(credential["access"]))

    def available_model_ids(self, credential: OAuthCredential) -> set[str] | None:
        """The models this account may use, when the credential says (else ``None``: all)."""
        return None
