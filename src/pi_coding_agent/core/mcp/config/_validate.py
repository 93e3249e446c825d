"""Checking one ``mcpServers`` entry, with Pi 1.6's rules and messages (its ``pi-mcp`` package's
shared fields, then pi's ``exposure``/``toolExposure``/``auth``).

A valid entry comes back as a copy with exposure aliases (``codemode-deferred``) replaced; an
invalid one as the one-line message Pi prints after the file's path.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

EXPOSURES = ("codemode", "deferred", "direct", "hidden")
"""How a server's tools reach the model; ``codemode`` is the default."""
DEFAULT_EXPOSURE = "codemode"
_EXPOSURE_ALIASES = {"codemode-deferred": "codemode"}
_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")
OVERRIDE_KEYS = ("enabled", "exposure", "toolExposure")
"""What a project entry without ``command``, ``url`` or ``type`` may change of a user server."""


def is_record(value: object) -> bool:
    return isinstance(value, dict)


def is_override(entry: dict[str, Any]) -> bool:
    """An entry that changes a server defined elsewhere: no ``command``, ``url`` or ``type``."""
    return "command" not in entry and "url" not in entry and "type" not in entry


def is_http(config: dict[str, Any]) -> bool:
    """Whether a validated entry is a streamable HTTP server (else stdio)."""
    return isinstance(config.get("url"), str)


def _alias(value: Any) -> Any:
    return _EXPOSURE_ALIASES.get(value, value) if isinstance(value, str) else value


def _with_aliases_resolved(raw: dict[str, Any]) -> dict[str, Any]:
    resolved = dict(raw)
    if "exposure" in raw:
        resolved["exposure"] = _alias(raw["exposure"])
    if isinstance(raw.get("toolExposure"), dict):
        resolved["toolExposure"] = {tool: _alias(value) for tool, value in raw["toolExposure"].items()}
    return resolved


def validate_server(name: str, raw: Any) -> dict[str, Any] | str:
    """The entry (aliases resolved) or the reason it is invalid, in Pi's words."""
    if not _SERVER_NAME.fullmatch(name):
        return f'invalid server name "{name}" (use letters, digits, "_" and "-")'
    if not is_record(raw):
        return f'server "{name}" must be an object'
    entry = _with_aliases_resolved(raw)
    error = _base_error(entry)
    if error is None:
        kind = _kind(entry)
        if kind is None:
            if entry.get("type") == "sse":
                error = "legacy SSE transport is not supported; use the streamable HTTP URL"
            else:
                return f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)'
        elif kind == "http":
            error = _http_error(entry) or _exposure_error(entry) or _auth_error(entry)
        else:
            error = _stdio_error(entry) or _exposure_error(entry)
    return f'server "{name}": {error}' if error else entry


def _kind(entry: dict[str, Any]) -> str | None:
    kind = entry.get("type")
    if kind == "sse":
        return None
    if isinstance(entry.get("url"), str) and kind in (None, "http", "streamable-http"):
        return "http"
    if isinstance(entry.get("command"), str) and kind in (None, "stdio"):
        return "stdio"
    return None


def _base_error(entry: dict[str, Any]) -> str | None:
    if "enabled" in entry and not isinstance(entry["enabled"], bool):
        return "enabled must be a boolean"
    if "description" in entry and not isinstance(entry["description"], str):
        return "description must be a string"
    timeout = entry.get("timeout")
    if "timeout" in entry and not (
        isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0
    ):
        return "timeout must be a positive number of seconds"
    return None


def _is_string_record(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(item, str) for item in value.values())


def _stdio_error(entry: dict[str, Any]) -> str | None:
    args = entry.get("args")
    if "args" in entry and not (isinstance(args, list) and all(isinstance(arg, str) for arg in args)):
        return "args must be an array of strings"
    if "env" in entry and not _is_string_record(entry["env"]):
        return "env must map names to strings"
    if "cwd" in entry and not isinstance(entry["cwd"], str):
        return "cwd must be a string"
    return None


def _http_url(value: str) -> bool:
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _http_error(entry: dict[str, Any]) -> str | None:
    if not _http_url(entry["url"]):
        return "url must be an http or https URL"
    if "headers" in entry and not _is_string_record(entry["headers"]):
        return "headers must map names to strings"
    return _oauth_error(entry.get("oauth")) if "oauth" in entry else None


def _oauth_error(oauth: Any) -> str | None:
    """The checks Pi makes of ``oauth`` (signing in itself is not built here)."""
    if not is_record(oauth):
        return "oauth must be an object"
    for key in ("clientId", "clientSecret", "scope"):
        if key in oauth and not isinstance(oauth[key], str):
            return f"oauth.{key} must be a string"
    port = oauth.get("callbackPort")
    if "callbackPort" in oauth and not (
        isinstance(port, int) and not isinstance(port, bool) and 1 <= port <= 65535
    ):
        return "oauth.callbackPort must be a port number"
    if "clientName" in oauth and not (isinstance(oauth["clientName"], str) and oauth["clientName"].strip()):
        return "oauth.clientName must be a non-empty string"
    registration = oauth.get("clientRegistration")
    if "clientRegistration" in oauth and registration not in ("auto", "dcr", "cimd"):
        return 'oauth.clientRegistration must be "auto", "dcr", or "cimd"'
    return None


def _exposure_error(entry: dict[str, Any]) -> str | None:
    choices = ", ".join(f'"{value}"' for value in EXPOSURES)
    if "exposure" in entry and entry["exposure"] not in EXPOSURES:
        return f"exposure must be one of {choices}"
    if "toolExposure" in entry:
        tool_exposure = entry["toolExposure"]
        if not is_record(tool_exposure):
            return "toolExposure must map tool names to exposures"
        for tool, value in tool_exposure.items():
            if value not in EXPOSURES:
                return f'toolExposure "{tool}" must be one of {choices}'
    return None


def _auth_error(entry: dict[str, Any]) -> str | None:
    if "auth" not in entry:
        return None
    auth = entry["auth"]
    if not is_record(auth) or not isinstance(auth.get("provider"), str) or not auth["provider"]:
        return "auth.provider must be a provider name"
    parts = urlsplit(entry["url"])
    host = parts.hostname or ""
    if parts.scheme != "https" and host not in ("localhost", "127.0.0.1", "::1"):
        return "auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]"
    return None


def tool_pattern(pattern: str) -> re.Pattern[str]:
    """A ``toolExposure`` key as a regular expression: ``*`` matches any characters."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


def tool_exposure(config: dict[str, Any], tool: str) -> str:
    """One tool's exposure: an exact ``toolExposure`` key, else the first matching pattern, else
    the server's ``exposure`` (default ``codemode``)."""
    overrides: dict[str, str] = config.get("toolExposure") or {}
    if tool in overrides:
        return overrides[tool]
    for pattern, exposure in overrides.items():
        if "*" in pattern and tool_pattern(pattern).fullmatch(tool):
            return exposure
    return str(config.get("exposure") or DEFAULT_EXPOSURE)
