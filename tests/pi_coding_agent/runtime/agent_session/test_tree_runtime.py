"""Tree navigation with branch summaries and labels, and replacing the session (new, fork,
clone, switch) through the runtime. Files are checked as written; Pi reading them the same
way is checked in tests/pi_coding_agent/app/rpc (against the live oracle)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_ai import AssistantMessage, Context, StreamOptions, TextContent, UserMessage
from pi_ai.faux import FauxProvider, FauxState, faux_assistant_message, faux_tool_call
from pi_coding_agent.core.compaction import prepare_branch_entries
from pi_coding_agent.core.messages import BranchSummaryMessage
from pi_coding_agent.core.session import BranchSummaryEntry, SessionManager, SessionMessageEntry
from pi_coding_agent.runtime.agent_session import (
    AgentSession,
    AgentSessionRuntime,
    MissingSessionCwdError,
    SessionError,
    SessionImportFileNotFoundError,
    TreeError,
)
from tests.pi_coding_agent.runtime.agent_session._support import (
    Env,
    answer_after_abort,
    file_lines,
    make_session,
    record_events,
    write_settings,
)


def _summary_answer(text: str, seen: list[Context]) -> Any:
    def answer(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
        seen.append(context)
        return faux_assistant_message(text)

    return answer


def _prompt_text(context: Context) -> str:
    message = context.messages[0]
    assert isinstance(message, UserMessage) and isinstance(message.content, list)
    block = message.content[0]
    assert isinstance(block, TextContent)
    return block.text


def _user_entries(session: AgentSession) -> list[SessionMessageEntry]:
    return [
        e
        for e in session.session_manager.get_entries()
        if isinstance(e, SessionMessageEntry) and e.message.role == "user"
    ]


async def _two_branches(env: Env, faux: FauxProvider) -> AgentSession:
    """first question -> answer -> edit (write tool) -> answer; leaf at the last answer."""
    faux.set_responses(
        [
            faux_assistant_message("first answer"),
            faux_assistant_message([faux_tool_call("write", {"path": "out.txt", "content": "x"})], stop_reason="toolUse"),
            faux_assistant_message("wrote it"),
        ]
    )
    session = make_session(env, write_settings(env), tools=["write"])
    await session.prompt("first question")
    await session.prompt("write out.txt")
    return session


async def test_navigating_to_a_user_message_returns_its_text(env: Env, faux: FauxProvider) -> None:
    session = await _two_branches(env, faux)
    second = _user_entries(session)[1]
    result = await session.navigate_tree(second.id)
    assert not result.cancelled and result.editor_text == "write out.txt" and result.summary_entry is None
    assert session.session_manager.get_leaf_id() == second.parent_id
    assert [m.role for m in session.messages] == ["system", "user", "assistant"]
    faux.set_responses([faux_assistant_message("other branch")])
    await session.prompt("something else")
    children = session.session_manager.get_children(str(second.parent_id))
    assert len(children) == 2
    assert (await session.navigate_tree(str(session.session_manager.get_leaf_id()))).cancelled is False


async def test_branch_summary_entry_details_and_label(env: Env, faux: FauxProvider) -> None:
    session = await _two_branches(env, faux)
    old_leaf = session.session_manager.get_leaf_id()
    first_answer = next(
        e for e in session.session_manager.get_entries()
        if isinstance(e, SessionMessageEntry) and isinstance(e.message, AssistantMessage) and e.message.content
        and isinstance(e.message.content[0], TextContent) and e.message.content[0].text == "first answer"
    )
    seen: list[Context] = []
    faux.set_responses([_summary_answer("## Goal\nWrite out.txt", seen)])
    events = record_events(session)
    result = await session.navigate_tree(first_answer.id, summarize=True, label="tried writing",
                                         custom_instructions="mention the file")
    prompt = _prompt_text(seen[0])
    assert prompt.startswith("<conversation>\n[User]: write out.txt")
    assert "[Tool result]" not in prompt and "Additional focus: mention the file" in prompt
    entry = result.summary_entry
    assert isinstance(entry, BranchSummaryEntry) and entry.parent_id == first_answer.id and entry.from_id == old_leaf
    assert entry.details == {"readFiles": [], "modifiedFiles": ["out.txt"]} and entry.from_hook is False
    assert entry.summary.endswith("## Goal\nWrite out.txt\n\n<modified-files>\nout.txt\n</modified-files>")
    assert session.session_manager.get_label(entry.id) == "tried writing"
    lines = file_lines(session)
    assert [line["type"] for line in lines[-2:]] == ["branch_summary", "label"]
    assert lines[-1]["targetId"] == entry.id
    last = session.messages[-1]
    assert isinstance(last, BranchSummaryMessage) and last.from_id == old_leaf
    assert not [e for e in events if e["type"].startswith("compaction")]
    assert session.get_session_stats().tokens.total > 0  # the summary call's usage counts

    # A second summary of a branch holding the first carries its files on (cumulative).
    faux.set_responses([faux_assistant_message("again"), _summary_answer("second summary", seen)])
    await session.prompt("continue here")
    target = _user_entries(session)[0]
    again = await session.navigate_tree(target.id, summarize=True, custom_instructions="ONLY THIS",
                                        replace_instructions=True)
    assert _prompt_text(seen[1]).endswith("</conversation>\n\nONLY THIS")
    assert again.summary_entry is not None and again.summary_entry.details == {"readFiles": [], "modifiedFiles": ["out.txt"]}
    assert again.editor_text == "first question" and again.summary_entry.parent_id == target.parent_id


async def test_label_without_summary_and_clearing(env: Env, faux: FauxProvider) -> None:
    session = await _two_branches(env, faux)
    first = _user_entries(session)[0]
    await session.navigate_tree(first.id, label="start")
    assert session.session_manager.get_label(first.id) == "start"
    session.set_label(first.id, None)
    assert session.session_manager.get_label(first.id) is None
    with pytest.raises(TreeError, match="Entry nope not found"):
        session.set_label("nope", "x")
    with pytest.raises(TreeError, match="Entry nope not found"):
        await session.navigate_tree("nope")


async def test_a_branch_summary_can_be_aborted(env: Env, faux: FauxProvider) -> None:
    session = await _two_branches(env, faux)
    started = asyncio.Event()
    faux.set_responses([answer_after_abort(started)])
    leaf = session.session_manager.get_leaf_id()
    count = len(session.session_manager.get_entries())
    navigation = asyncio.create_task(session.navigate_tree(_user_entries(session)[0].id, summarize=True))
    await started.wait()
    assert session.is_compacting and not session.is_idle
    await session.abort()
    result = await navigation
    assert result.cancelled and result.aborted
    assert session.session_manager.get_leaf_id() == leaf and len(session.session_manager.get_entries()) == count
    assert session.is_idle


async def test_navigation_is_refused_while_streaming(env: Env, faux: FauxProvider) -> None:
    gate = asyncio.Event()

    async def slow(context: Context, options: StreamOptions | None, state: FauxState, model: Any) -> AssistantMessage:
        await gate.wait()
        return faux_assistant_message("done")

    faux.set_responses([slow])
    session = make_session(env, write_settings(env))
    run = asyncio.create_task(session.prompt("hi"))
    await asyncio.sleep(0.01)
    with pytest.raises(TreeError, match="Wait for the current response"):
        await session.navigate_tree("anything")
    gate.set()
    await run


def test_branch_budget_keeps_the_newest_messages() -> None:
    from pi_coding_agent.core.session import SessionManager as Manager

    manager = Manager.in_memory("/tmp")
    for index in range(6):
        manager.append_message(UserMessage(content=[TextContent(text=f"message {index} " + "x" * 400)], timestamp=0))
    entries = manager.get_branch()
    prepared = prepare_branch_entries(entries, token_budget=250)
    texts = [m.content[0].text[:9] for m in prepared.messages if isinstance(m, UserMessage) and isinstance(m.content, list)
             and isinstance(m.content[0], TextContent)]
    assert texts == ["message 4", "message 5"]
    assert len(prepare_branch_entries(entries).messages) == 6


# ---------------------------------------------------------------------- runtime


def _runtime(env: Env, session: AgentSession) -> AgentSessionRuntime:
    return AgentSessionRuntime(session, lambda manager: make_session(env, write_settings(env), manager=manager))


def _header(path: str | None) -> dict[str, Any]:
    assert path is not None
    return dict(json.loads(Path(path).read_text(encoding="utf-8").splitlines()[0]))


async def test_runtime_new_fork_clone_and_switch(env: Env, faux: FauxProvider) -> None:
    session = await _two_branches(env, faux)
    runtime = _runtime(env, session)
    events: list[str] = []
    runtime.subscribe(lambda event: events.append(event.type))
    original = session.session_file
    assert original is not None

    second = _user_entries(session)[1]
    forked = await runtime.fork(second.id)
    assert forked.selected_text == "write out.txt" and not forked.cancelled
    assert runtime.session is not session and runtime.session.session_file != original
    assert _header(runtime.session.session_file)["parentSession"] == original
    assert [m.role for m in runtime.session.messages] == ["system", "user", "assistant"]

    cloned = await runtime.clone()
    assert not cloned.cancelled
    assert [m.role for m in runtime.session.messages] == ["system", "user", "assistant"]
    with pytest.raises(SessionError, match="Invalid entry ID for forking"):
        await runtime.fork(runtime.session.session_manager.get_entries()[0].id)

    await runtime.new_session(parent_session=original)
    fresh = runtime.session
    assert fresh.messages == [] and fresh.session_manager.get_header_data()["parentSession"] == original
    faux.set_responses([faux_assistant_message("in the new session")])
    await fresh.prompt("hello new")
    assert events[-1] == "agent_settled"
    assert _header(fresh.session_file)["parentSession"] == original

    await runtime.switch_session(original)
    assert runtime.session.session_file == original
    assert runtime.ui_mode == "print" and await runtime.ui.confirm("Sure?", "no one can answer") is False
    assert [m.role for m in runtime.session.messages] == ["system", "user", "assistant", "user", "assistant",
                                                          "toolResult", "assistant"]
    with pytest.raises(SessionError, match="Invalid entry ID for forking"):
        await runtime.fork("missing")
    await runtime.dispose()


def _exported_copy(original: str, folder: Path) -> Path:
    folder.mkdir()
    exported = folder / Path(original).name
    exported.write_bytes(Path(original).read_bytes())
    return exported


def _with_cwd(session_file: Path, cwd: Path, name: str) -> Path:
    """A copy of ``session_file`` whose header names ``cwd``."""
    lines = session_file.read_text(encoding="utf-8").splitlines()
    moved = session_file.with_name(name)
    moved.write_text("\n".join([json.dumps({**json.loads(lines[0]), "cwd": str(cwd)}), *lines[1:]]) + "\n",
                     encoding="utf-8")
    return moved


def _same_bytes(first: str | Path, second: str | Path) -> bool:
    return Path(first).read_bytes() == Path(second).read_bytes()


async def test_import_copies_into_the_session_folder_and_resumes(env: Env, faux: FauxProvider) -> None:
    """Pi's ``importFromJsonl``: the file is copied (a free name when taken) and resumed; a
    session whose directory is gone needs a ``cwd_override``."""
    session = await _two_branches(env, faux)
    original = session.session_file
    assert original is not None
    exported = _exported_copy(original, env.root / "elsewhere")
    runtime = _runtime(env, session)
    await runtime.import_from_jsonl(str(exported))
    copy = runtime.session.session_file
    assert copy == str(Path(original).with_name(Path(original).stem + "-1.jsonl"))
    assert _same_bytes(copy, exported)
    assert [m.role for m in runtime.session.messages][-1] == "assistant" and len(runtime.session.messages) == 7
    await runtime.import_from_jsonl(copy)  # already in the folder: resumed where it is
    assert runtime.session.session_file == copy
    with pytest.raises(SessionImportFileNotFoundError, match=r"File not found: .*nope\.jsonl"):
        await runtime.import_from_jsonl(str(exported.with_name("nope.jsonl")))

    moved = _with_cwd(exported, env.root / "gone", "moved.jsonl")
    with pytest.raises(MissingSessionCwdError, match=r"does not exist: .*gone") as refused:
        await runtime.import_from_jsonl(str(moved))
    assert refused.value.session_cwd == str(env.root / "gone") and runtime.session.session_file == copy
    await runtime.import_from_jsonl(str(moved), cwd_override=str(env.work))
    assert runtime.session.session_manager.get_cwd() == str(env.work)
    assert runtime.session.session_file is not None and runtime.session.session_file.endswith("moved-1.jsonl")
    await runtime.dispose()


async def test_new_session_setup_writes_the_first_entries(env: Env, faux: FauxProvider) -> None:
    session = await _two_branches(env, faux)
    runtime = _runtime(env, session)

    async def setup(manager: SessionManager) -> None:
        manager.append_message(UserMessage(content=[TextContent(text="seeded")], timestamp=1))
        manager.append_session_info("Seeded")

    await runtime.new_session(setup=setup)
    fresh = runtime.session
    assert fresh is not session and fresh.session_name == "Seeded"
    assert [(m.role, m.content[0].text) for m in fresh.messages] == [("user", "seeded")]  # type: ignore[union-attr]
    faux.set_responses([faux_assistant_message("after the seed")])
    await fresh.prompt("go on")
    assert [m.role for m in fresh.messages] == ["user", "system", "user", "assistant"]
    await runtime.dispose()


async def test_fork_of_an_unsaved_session_is_refused(env: Env, faux: FauxProvider) -> None:
    session = make_session(env, write_settings(env))
    session.session_manager.append_message(UserMessage(content=[TextContent(text="draft")], timestamp=0))
    runtime = _runtime(env, session)
    leaf = session.session_manager.get_leaf_id()
    assert leaf is not None
    with pytest.raises(SessionError, match="has not been saved yet"):
        await runtime.clone()
    memory = make_session(env, write_settings(env), manager=SessionManager.in_memory(str(env.work)))
    memory_runtime = _runtime(env, memory)
    memory.session_manager.append_message(UserMessage(content=[TextContent(text="draft")], timestamp=0))
    assert not (await memory_runtime.clone()).cancelled
    assert [m.role for m in memory_runtime.session.messages] == ["user"]


async def test_branch_summary_reserve_tokens_setting_bounds_what_is_summarized(env: Env, faux: FauxProvider) -> None:
    """``branchSummary.reserveTokens`` leaves ``contextWindow - reserve`` tokens (here 100) for
    the branch: only its newest messages reach the summary prompt."""
    faux.set_responses([faux_assistant_message("old answer " + "x" * 400),
                        faux_assistant_message("newest answer")])
    session = make_session(env, write_settings(env, branchSummary={"reserveTokens": 99_900}))
    await session.prompt("first question " + "y" * 400)
    await session.prompt("second question")
    seen: list[Context] = []
    faux.set_responses([_summary_answer("short", seen)])
    root = session.session_manager.get_entries()[0].id
    await session.navigate_tree(root, summarize=True)
    prompt = _prompt_text(seen[0])
    assert "newest answer" in prompt and "second question" in prompt
    assert "old answer" not in prompt and "first question" not in prompt


def test_skip_prompt_setting_is_read_for_the_interactive_ui(env: Env) -> None:
    assert write_settings(env).branch_summary_skip_prompt is False
    assert write_settings(env, branchSummary={"skipPrompt": True}).branch_summary_skip_prompt is True
    broken = write_settings(env, branchSummary={"skipPrompt": "yes"})
    assert broken.branch_summary_skip_prompt is False and broken.issues
