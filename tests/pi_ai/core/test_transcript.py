"""System messages inside a context: folded for most models, kept for those that take them in place."""

from __future__ import annotations

from typing import Any

from pi_ai import Context, Model, SystemMessage, UserMessage, prepare_context, takes_system_messages_in_place

_READ = {"name": "read", "description": "Read a file.", "parameters": {"type": "object", "properties": {}}}
_GREP = {"name": "grep", "description": "Search.", "parameters": {"type": "object", "properties": {}}}


def _context() -> Context:
    return Context(
        system_prompt="ignored",
        messages=[
            SystemMessage(content="", sections={"a": "One.", "b": "Two."}, tools_added=[_READ], timestamp=1),
            UserMessage(content="hi", timestamp=2),
            SystemMessage(content="More.", sections={"b": None}, tools_added=[_GREP], timestamp=3),
            UserMessage(content="again", timestamp=4),
        ],
    )


def _model(compat: dict[str, Any] | None, api: str = "openai-completions") -> Model:
    return Model(id="m", name="M", api=api, provider="p", base_url="http://127.0.0.1:9", compat=compat)


def test_folded_for_a_model_without_the_flag() -> None:
    folded = prepare_context(_model(None), _context())
    # The replay: free content first, then the sections in force (pi-ai 1.6's getSystemMessageText).
    assert folded.system_prompt == "More.\n\nOne."
    assert [tool.name for tool in folded.tools or []] == ["read", "grep"]
    assert [message.role for message in folded.messages] == ["user", "user"]


def test_kept_in_place_only_where_the_api_sends_them() -> None:
    flag = {"supportsMidConvoSystemMessages": True}
    assert takes_system_messages_in_place(_model(flag))
    kept = prepare_context(_model(flag), _context())
    assert kept.system_prompt is None and kept.tools is None
    assert [message.role for message in kept.messages] == ["system", "user", "system", "user"]
    # Every API whose Pi 1.6 adapter resolves the transcript keeps them; Bedrock and Google fold them always.
    for api in ("anthropic-messages", "openai-responses", "openai-codex-responses", "azure-openai-responses"):
        assert takes_system_messages_in_place(_model(flag, api=api))
    assert takes_system_messages_in_place(_model(flag, api="mistral-conversations"))
    for api in ("bedrock-converse-stream", "google-generative-ai"):
        assert not takes_system_messages_in_place(_model(flag, api=api))
        assert prepare_context(_model(flag, api=api), _context()).system_prompt == "More.\n\nOne."


def test_a_context_without_system_messages_is_passed_as_is() -> None:
    context = Context(system_prompt="p", messages=[UserMessage(content="hi", timestamp=1)])
    assert prepare_context(_model({"supportsMidConvoSystemMessages": True}), context) is context
