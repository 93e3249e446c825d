"""The API registry: dispatch on model.api, user-registered APIs, env API keys."""

from __future__ import annotations

import pytest

from pi_ai import (
    AbortController,
    ApiImplementation,
    AssistantMessageEventStream,
    Context,
    DoneEvent,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    complete,
    complete_simple,
    empty_assistant_message,
    get_env_api_key,
    register_api,
    registered_apis,
    start_stream,
    unregister_apis,
)

MODEL = Model(id="echo-1", name="Echo", api="echo", provider="openai", base_url="http://127.0.0.1:9")


def _echo(seen: list[StreamOptions | None]) -> ApiImplementation:
    def stream(model: Model, context: Context, options: StreamOptions | None) -> AssistantMessageEventStream:
        seen.append(options)

        async def produce(out: AssistantMessageEventStream) -> None:
            message = empty_assistant_message(model)
            message.stop_reason = "stop"
            out.push(DoneEvent(reason="stop", message=message))

        return start_stream(model, produce)

    def stream_simple(
        model: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream:
        return stream(model, context, options)

    return ApiImplementation(api="echo", stream=stream, stream_simple=stream_simple)


async def test_user_api_is_dispatched_and_unregistered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    seen: list[StreamOptions | None] = []
    register_api(_echo(seen), "tests")
    try:
        assert "echo" in registered_apis()
        message = await complete(MODEL, Context())
        assert message.stop_reason == "stop" and message.model == "echo-1"
        signal = AbortController().signal
        await complete_simple(MODEL, Context(), SimpleStreamOptions(signal=signal, reasoning="high"))
        assert (
            isinstance(seen[1], SimpleStreamOptions)
            and seen[1].reasoning == "high"
            and seen[1].signal is signal
        )
    finally:
        unregister_apis("tests")
    with pytest.raises(LookupError, match="No API provider registered for api: echo"):
        await complete(MODEL, Context())


async def test_env_key_is_injected_only_when_no_key_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    seen: list[StreamOptions | None] = []
    register_api(_echo(seen), "tests")
    try:
        await complete(MODEL, Context())
        await complete(MODEL, Context(), StreamOptions(api_key="sk-explicit"))
        await complete(MODEL, Context(), StreamOptions(env={"OPENAI_API_KEY": "sk-scoped"}))
    finally:
        unregister_apis("tests")
    assert [options.api_key for options in seen if options] == ["sk-env", "sk-explicit", "sk-scoped"]


def test_env_var_names_match_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_OAUTH_TOKEN",
        "ANTHROPIC_AUTH_TOKEN",
        "GEMINI_API_KEY",
        "GROQ_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "bearer-only")
    assert get_env_api_key("anthropic") is None  # sent as a bearer header, never as the key
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    assert get_env_api_key("anthropic") == "sk-ant"
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat")
    assert get_env_api_key("anthropic") == "sk-ant-oat"
    monkeypatch.setenv("GEMINI_API_KEY", "g")
    assert get_env_api_key("google") == "g"
    assert get_env_api_key("groq", {"GROQ_API_KEY": "scoped"}) == "scoped"
    assert get_env_api_key("no-such-provider") is None


def test_bedrock_ambient_credentials_give_the_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_BEARER_TOKEN_BEDROCK"):
        monkeypatch.delenv(name, raising=False)
    assert get_env_api_key("amazon-bedrock") is None
    monkeypatch.setenv("AWS_PROFILE", "dev")
    assert get_env_api_key("amazon-bedrock") == "<authenticated>"
