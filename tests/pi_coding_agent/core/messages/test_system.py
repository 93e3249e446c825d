"""Pi 1.6 system messages replayed into the prompt and tools in force."""

from __future__ import annotations

from msgspec import UNSET

import pi_ai
from pi_agent import agent_message_from_dict
from pi_ai import UserMessage, encode, to_builtins
from pi_coding_agent.core.messages import (
    SystemMessage,
    convert_to_llm,
    current_system_message,
    current_tools,
    system_message_text,
    system_update,
)


def _system(**fields: object) -> SystemMessage:
    message = agent_message_from_dict({"role": "system", "content": "", "timestamp": 1, **fields})
    assert isinstance(message, SystemMessage)
    return message


def _tool(name: str, description: str = "d") -> dict[str, object]:
    return {"name": name, "description": description, "parameters": {"type": "object"}}


def test_sections_are_patched_by_name_and_tools_added_and_removed_in_order() -> None:
    messages = [
        _system(sections={"preamble": "P", "tools": "<tools>T</tools>", "cwd": "<cwd>/w</cwd>"},
                toolsAdded=[_tool("read"), _tool("bash"), _tool("edit")]),
        UserMessage(content="hi", timestamp=2),
        _system(sections={"tools": "<tools>T2</tools>", "cwd": None, "addendum": "<addendum>A</addendum>"},
                toolsRemoved=[{"name": "edit"}]),
        _system(content="Extra.", toolsRemoved=[{"name": "read"}], toolsAdded=[_tool("read", "new")]),
    ]
    state = current_system_message(messages)
    assert state is not None
    assert state.sections == {"preamble": "P", "tools": "<tools>T2</tools>", "addendum": "<addendum>A</addendum>"}
    assert [tool["name"] for tool in current_tools(messages)] == ["bash", "read"]
    assert current_tools(messages)[1]["description"] == "new"
    assert system_message_text(state) == "Extra.\n\nP\n\n<tools>T2</tools>\n\n<addendum>A</addendum>"


def test_no_system_message_declares_nothing_and_the_model_never_sees_one() -> None:
    assert current_system_message([UserMessage(content="hi", timestamp=1)]) is None
    message = _system(sections={"preamble": "P"}, toolsAdded=[_tool("read")])
    assert convert_to_llm([message, UserMessage(content="hi", timestamp=1)]) == [UserMessage(content="hi", timestamp=1)]


def test_a_system_message_round_trips_with_its_keys() -> None:
    data = {"role": "system", "content": "", "sections": {"preamble": "P", "gone": None}, "timestamp": 5,
            "toolsAdded": [_tool("read")], "toolsRemoved": [{"name": "x"}], "note": "kept"}
    assert to_builtins(agent_message_from_dict(data)) == data


def test_a_system_message_is_written_with_the_keys_in_the_order_sessions_have_them() -> None:
    """The role is pi-ai's ``SystemMessage`` (pi-agent decodes it as a built-in role); session
    files and RPC output keep the key order the coding agent always wrote."""
    message = _system(sections={"preamble": "P"}, toolsAdded=[_tool("read")], toolsRemoved=[{"name": "x"}])
    assert type(message) is pi_ai.SystemMessage
    assert list(to_builtins(message)) == ["role", "content", "sections", "timestamp", "toolsAdded", "toolsRemoved"]
    assert encode(message) == (
        b'{"role":"system","content":"","sections":{"preamble":"P"},"timestamp":1,'
        b'"toolsAdded":[{"name":"read","description":"d","parameters":{"type":"object"}}],'
        b'"toolsRemoved":[{"name":"x"}]}'
    )


def test_an_update_patches_changed_sections_and_redeclares_changed_tools() -> None:
    """Pi 1.6's diff (``diffSystemPromptSections``, ``getToolStateChanges``): changed and new
    sections by name, ``None`` for gone ones; a redefined tool is removed and added again."""
    recorded = [
        _system(sections={"preamble": "P", "addendum": "<addendum>A</addendum>", "cwd": "<cwd>/w</cwd>"},
                toolsAdded=[_tool("read"), _tool("bash"), _tool("edit")]),
        UserMessage(content="hi", timestamp=2),
    ]
    wanted = {"preamble": "P", "cwd": "<cwd>/w</cwd>", "skills": "<skills>S</skills>"}
    update = system_update(recorded, wanted, [_tool("read"), _tool("bash", "changed"), _tool("grep")], 9)
    assert update is not None
    assert to_builtins(update) == {
        "role": "system", "content": "", "timestamp": 9,
        "sections": {"skills": "<skills>S</skills>", "addendum": None},
        "toolsAdded": [_tool("bash", "changed"), _tool("grep")],
        "toolsRemoved": [{"name": "bash"}, {"name": "edit"}],
    }
    after = current_system_message([*recorded, update])
    assert after is not None and after.sections == wanted
    assert [tool["name"] for tool in current_tools([*recorded, update])] == ["read", "bash", "grep"]
    assert system_update([*recorded, update], wanted, [_tool("read"), _tool("bash", "changed"), _tool("grep")], 10) is None


def test_without_a_recorded_prompt_the_update_declares_everything() -> None:
    update = system_update([UserMessage(content="hi", timestamp=1)], {"preamble": "P"}, [_tool("read")], 3)
    assert update is not None and update.sections == {"preamble": "P"} and update.tools_added == [_tool("read")]
    assert update.tools_removed is UNSET
