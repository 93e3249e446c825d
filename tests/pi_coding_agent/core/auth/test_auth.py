"""auth.json in Pi's format, key resolution and the precedence --api-key > auth.json > env > models.json."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from pi_coding_agent.core.auth import AuthStorage, Credentials, is_configured, resolve_config_value


def test_missing_auth_file_is_created_private(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "auth.json"
    storage = AuthStorage.load(path)
    assert storage.issue is None
    assert path.read_text(encoding="utf-8") == "{}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert storage.providers() == []


def test_api_key_and_oauth_credentials(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    now_ms = int(time.time() * 1000)
    path.write_text(
        json.dumps(
            {
                "anthropic": {"type": "api_key", "key": "sk-ant-1"},
                "scoped": {"type": "api_key", "key": "$SCOPED_KEY", "env": {"SCOPED_KEY": "from-scope"}},
                "fresh": {"type": "oauth", "access": "tok", "refresh": "r", "expires": now_ms + 60_000},
                "stale": {"type": "oauth", "access": "old", "refresh": "r", "expires": now_ms - 60_000},
            }
        ),
        encoding="utf-8",
    )
    storage = AuthStorage.load(path)
    assert storage.issue is None
    assert storage.api_key("anthropic") == "sk-ant-1"
    assert storage.api_key("scoped") == "from-scope"
    # OAuth tokens are not keys: Credentials turns them into request credentials.
    assert storage.api_key("fresh") is None and storage.credential("fresh")["access"] == "tok"  # type: ignore[index]
    assert storage.credential_type("stale") == "oauth"
    assert storage.api_key("missing") is None and storage.credential("missing") is None


def test_invalid_auth_file_is_reported_and_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text('{"openai": {"type": "api_key", "key": "sk"},}', encoding="utf-8")
    storage = AuthStorage.load(path)
    assert storage.issue is not None
    assert str(path) in storage.issue and "line 1" in storage.issue
    assert storage.providers() == []
    assert path.read_text(encoding="utf-8") == '{"openai": {"type": "api_key", "key": "sk"},}'

    path.write_text('{"openai": {"type": "password", "key": "sk"}}', encoding="utf-8")
    assert "invalid credential for provider 'openai'" in (AuthStorage.load(path).issue or "")


def test_config_value_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TEST_A", "alpha")
    monkeypatch.setenv("PI_TEST_B", "beta")
    monkeypatch.delenv("PI_TEST_MISSING", raising=False)
    assert resolve_config_value("literal-key") == "literal-key"
    assert resolve_config_value("$PI_TEST_A") == "alpha"
    assert resolve_config_value("${PI_TEST_A}_${PI_TEST_B}") == "alpha_beta"
    assert resolve_config_value("$$literal") == "$literal"
    assert resolve_config_value("$!bang") == "!bang"
    assert resolve_config_value("$PI_TEST_MISSING") is None
    assert resolve_config_value("x$PI_TEST_MISSING") is None
    assert resolve_config_value("${not a name}") == "${not a name}"
    assert resolve_config_value("$PI_TEST_A", {"PI_TEST_A": "scoped"}) == "scoped"
    assert resolve_config_value("!printf ' from-command \\n'") == "from-command"
    assert resolve_config_value("!exit 3") is None
    assert is_configured("$PI_TEST_A") and not is_configured("$PI_TEST_MISSING")
    assert is_configured("!anything")


def test_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"openai": {"type": "api_key", "key": "from-auth-json"}}), encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-env")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-env")
    monkeypatch.setenv("XAI_API_KEY", "xai-env")
    monkeypatch.setenv("PI_TEST_LOCAL_KEY", "from-models-json")
    monkeypatch.delenv("PI_TEST_UNSET", raising=False)
    credentials = Credentials(
        AuthStorage.load(path),
        {"openai": "unused", "anthropic": "models-json-anthropic", "local": "$PI_TEST_LOCAL_KEY",
         "google": "$PI_TEST_UNSET"},
    )
    assert credentials.api_key("openai") == "from-auth-json"
    # A models.json key wins over the environment variable (as the real Pi 0.85 does).
    assert credentials.api_key("anthropic") == "models-json-anthropic"
    assert credentials.api_key("xai") == "xai-env"
    assert credentials.api_key("local") == "from-models-json"
    # ... even when it cannot be resolved: the environment is not consulted then.
    assert credentials.api_key("google") is None
    assert credentials.has_auth("local") and not credentials.has_auth("google")
    assert not credentials.has_auth("nobody")
    credentials.set_runtime_key("openai", "from-flag")
    credentials.set_runtime_key("google", "flag-google")
    assert credentials.api_key("openai") == "from-flag"
    assert credentials.api_key("google") == "flag-google"
    assert credentials.has_auth("google")


def test_a_loose_auth_file_is_tightened_with_a_notice_and_still_read(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"anthropic": {"type": "api_key", "key": "sk-ant-1"}}), encoding="utf-8")
    path.chmod(0o644)
    storage = AuthStorage.load(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert storage.notice == f"{path} was readable by others (mode 0644); it is now private (0600)"
    assert storage.issue is None and storage.api_key("anthropic") == "sk-ant-1"
    assert AuthStorage.load(path).notice is None  # once private, nothing to say


def test_a_loose_unparsable_auth_file_is_tightened_and_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text("{not json", encoding="utf-8")
    path.chmod(0o666)
    storage = AuthStorage.load(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert storage.notice is not None and "mode 0666" in storage.notice
    assert storage.issue is not None and path.read_text(encoding="utf-8") == "{not json"


def test_the_target_of_a_symlinked_auth_file_is_not_chmodded(tmp_path: Path) -> None:
    target = tmp_path / "shared.json"
    target.write_text("{}", encoding="utf-8")
    target.chmod(0o644)
    link = tmp_path / "auth.json"
    link.symlink_to(target)
    storage = AuthStorage.load(link)
    assert storage.issue is None  # read through the link, as Pi reads it
    assert storage.notice == (
        f"{link} is a symlink to {target}, which is readable by others (mode 0644); "
        f"make it private (chmod 600 {target})"
    )
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    target.chmod(0o600)
    assert AuthStorage.load(link).notice is None  # a private target: nothing to say
