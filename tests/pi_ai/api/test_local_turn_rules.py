"""The local API's rules for small models (docs/providers/local.md): which turns must call a tool,
and which calls count as repeats that cannot help (the same call again, or one that undoes a call
of the same task)."""

from __future__ import annotations

from pi_ai import AssistantMessage, Context, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_ai.api.local import _call_key, _just_done_calls, _must_act, _undo_keys

_ids = iter(range(10_000))


def _user(text: str = "do it") -> UserMessage:
    return UserMessage(content=text, timestamp=0)


def _turn(*calls: tuple[str, dict[str, object], bool]) -> list[AssistantMessage | ToolResultMessage]:
    """One assistant turn with ``calls`` (name, arguments, failed) and their results."""
    blocks = [ToolCall(id=f"c{next(_ids)}", name=name, arguments=arguments) for name, arguments, _ in calls]
    assistant = AssistantMessage(content=list(blocks), api="local", provider="local", model="m",
                                 stop_reason="toolUse", timestamp=0)
    results = [
        ToolResultMessage(tool_call_id=block.id, tool_name=block.name, content=[TextContent(text="r")],
                          is_error=failed, timestamp=0)
        for block, (_, _, failed) in zip(blocks, calls, strict=True)
    ]
    return [assistant, *results]


EDIT = ("edit", {"path": "a.py", "oldText": "x", "newText": "y"})
TEST = ("bash", {"command": "python3 t.py"})
READ = ("read", {"path": "a.py"})


def _context(*messages: UserMessage | AssistantMessage | ToolResultMessage) -> Context:
    return Context(messages=list(messages))


def test_the_turn_that_answers_the_user_may_answer() -> None:
    assert not _must_act(_context(_user()))
    assert not _must_act(_context())


def test_turns_after_a_failed_call_must_call_a_tool_for_a_while() -> None:
    ok, failed = _turn((*READ, False)), _turn((*EDIT, True))
    assert not _must_act(_context(_user(), *ok))
    assert _must_act(_context(_user(), *failed))
    assert _must_act(_context(_user(), *failed, *ok))  # the read after a failed edit is not the end
    assert not _must_act(_context(_user(), *failed, *ok, *ok))
    many = [message for _ in range(5) for message in _turn((*EDIT, True))]
    assert not _must_act(_context(_user(), *many))  # after five failed turns the model may give up
    # Failures before the current user message do not count.
    assert not _must_act(_context(_user(), *failed, _user("thanks"), *_turn((*READ, False))))


def test_repeats_are_the_last_turn_and_turns_before_it_while_everything_failed() -> None:
    edit, test, read = (ToolCall(id="x", name=name, arguments=args) for name, args in (EDIT, TEST, READ))
    keys, failed = _just_done_calls(_context(_user(), *_turn((*READ, False))))
    assert keys == [_call_key(read)] and not failed
    # Nothing changed since the read (the edit and the test run failed): reading again gives the
    # same text; a turn before a success is not looked at.
    history = [*_turn(("write", {"path": "b.py", "content": ""}, False)), *_turn((*READ, False)), *_turn((*EDIT, True)), *_turn((*TEST, True))]
    keys, failed = _just_done_calls(_context(_user(), *history))
    assert keys == sorted([_call_key(edit), _call_key(test), _call_key(read)]) and failed
    assert _just_done_calls(_context(_user())) == ([], False)


def _swap(name: str, arguments: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    """A made-up undo source: ``set`` undoes itself with ``old`` and ``new`` swapped."""
    if name != "set":
        return []
    return [("set", {"old": arguments["new"], "new": arguments["old"]})]


def test_calls_that_undo_a_successful_call_of_this_task_count_as_repeats() -> None:
    done = ("set", {"old": "a", "new": "b"}, False)
    undo = ToolCall(id="u", name="set", arguments={"old": "b", "new": "a"})
    assert _undo_keys(_context(_user(), *_turn(done), *_turn((*READ, False))), _swap) == {_call_key(undo)}
    # A failed call changed nothing, so swapping it back is no undo.
    assert _undo_keys(_context(_user(), *_turn(("set", {"old": "a", "new": "b"}, True))), _swap) == set()
    # Calls made before the user's last message belong to another task.
    assert _undo_keys(_context(_user(), *_turn(done), _user("now undo it")), _swap) == set()
    assert _undo_keys(_context(_user(), *_turn((*READ, False))), _swap) == set()
