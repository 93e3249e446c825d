"""What the embedded model gets besides Pi's request: edits that quote the file, edit results
that show the changed lines, a note after a command succeeds following a change, a note after a
file is read for a question, and edits that undo the task's edits counted as repeats."""

from __future__ import annotations

from pathlib import Path

from pi_ai import Context, TextContent, ToolResultMessage, UserMessage, content_text
from pi_ai.api.local import COPY_SOURCE_OPTION, UNDO_OPTION, CopiedText
from pi_coding_agent.core.tools._diff import unified_patch
from pi_coding_agent.runtime.agent_session._local_aids import (
    ANSWER_NOTE,
    ATTACH_MAX_CHARS,
    DONE_NOTE,
    NamedFiles,
    changed_region,
    edit_quotes,
    edit_undos,
    with_result_notes,
    without_pi_docs,
)


def _result(tool: str, *, error: bool = False, details: object = None) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id="c", tool_name=tool, content=[TextContent(text="done")], details=details,
        is_error=error, timestamp=0,
    )


def test_edits_quote_the_file_as_the_edit_tool_reads_it(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"\xef\xbb\xbfx = 1\r\ny = 2\r\n")
    (tmp_path / "bin.dat").write_bytes(b"\xff\xfe\x00")
    quotes = edit_quotes(str(tmp_path))[COPY_SOURCE_OPTION]
    assert quotes("edit", "path", "a.py") == CopiedText("oldText", "x = 1\ny = 2\n")
    assert quotes("edit", "path", str(tmp_path / "a.py")) == CopiedText("oldText", "x = 1\ny = 2\n")
    assert quotes("edit", "path", "missing.py") is None
    assert quotes("edit", "path", "bin.dat") is None
    assert quotes("write", "path", "a.py") is None and quotes("edit", "content", "a.py") is None


def test_the_changed_region_is_the_new_side_of_each_hunk() -> None:
    old = "".join(f"line {n}\n" for n in range(1, 30))
    new = old.replace("line 3\n", "line three\n").replace("line 25\n", "line 25\nadded\n")
    region = changed_region(unified_patch("f", "f", old, new))
    assert region is not None
    assert "line three" in region and "added" in region and "line 3\n" not in region
    assert "\n...\n" in region  # two hunks
    assert changed_region("") is None


def test_results_are_annotated_in_the_request_only() -> None:
    patch = unified_patch("f", "f", "a\nb\n", "a\nc\n")
    edit = _result("edit", details={"diff": "", "patch": patch})
    context = Context(messages=[
        UserMessage(content="fix it", timestamp=0), _result("bash", error=True), edit, _result("bash"),
        UserMessage(content="Now run the tests again.", timestamp=0), _result("bash"),
        _result("edit", error=True, details={"patch": patch}),
    ])
    shown = with_result_notes(context).messages
    texts = [[block.text for block in message.content if isinstance(block, TextContent)] for message in shown]
    assert texts[1] == ["done"]  # a failed run before any change
    assert texts[2][0] == "done" and "a\nc" in texts[2][1]
    assert texts[3] == ["done", DONE_NOTE]  # succeeded after a change
    assert texts[5] == ["done"]  # the change was made before the user's last message
    assert texts[6] == ["done"]  # a failed edit shows nothing
    assert [block.text for block in edit.content] == ["done"]  # the session's message is untouched


def _texts(context: Context) -> list[list[str]]:
    shown = with_result_notes(context).messages
    return [[block.text for block in message.content if isinstance(block, TextContent)] for message in shown]


def test_a_file_read_for_a_question_is_followed_by_a_note_to_answer() -> None:
    patch = unified_patch("f", "f", "a\n", "b\n")
    question = [UserMessage(content="What is the port?", timestamp=0), _result("read")]
    assert _texts(Context(messages=question))[1] == ["done", ANSWER_NOTE]
    listed = UserMessage(content=[TextContent(text="Which port"), TextContent(text="is it?")], timestamp=0)
    assert _texts(Context(messages=[listed, _result("read")]))[1] == ["done", ANSWER_NOTE]
    # Not for a request, nor once the task changed a file, nor after a failed read.
    assert _texts(Context(messages=[UserMessage(content="Fix a.py.", timestamp=0), _result("read")]))[1] == ["done"]
    changed = [*question[:1], _result("edit", details={"patch": patch}), _result("read")]
    assert _texts(Context(messages=changed))[2] == ["done"]
    assert _texts(Context(messages=[question[0], _result("read", error=True)]))[1] == ["done"]


def test_the_undo_of_an_edit_swaps_its_blocks_back() -> None:
    undos = edit_undos()[UNDO_OPTION]
    one = {"path": "u.py", "edits": [{"oldText": "def a():", "newText": "def b():"}]}
    assert undos("edit", one) == [("edit", {"path": "u.py", "edits": [{"oldText": "def b():", "newText": "def a():"}]})]
    two = {"path": "m.py", "edits": [{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": "d"}]}
    assert undos("edit", two) == [
        ("edit", {"path": "m.py", "edits": [{"oldText": "b", "newText": "a"}, {"oldText": "d", "newText": "c"}]}),
        ("edit", {"path": "m.py", "edits": [{"oldText": "b", "newText": "a"}]}),
        ("edit", {"path": "m.py", "edits": [{"oldText": "d", "newText": "c"}]}),
    ]
    assert undos("write", {"path": "u.py", "content": ""}) == []
    assert undos("edit", {"path": "u.py", "edits": "not a list"}) == []


# ------------------------------------------------------------ the files a message names


def test_the_files_a_message_names_are_attached_once_as_first_seen(tmp_path: Path) -> None:
    (tmp_path / "settings.toml").write_text("[http]\nrequest_timeout = 37\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "dates.py").write_text("def parse_day(text):\n    return text\n")
    (tmp_path / "big.txt").write_text("x" * (ATTACH_MAX_CHARS + 1))
    (tmp_path.parent / "outside.txt").write_text("secret\n")
    question = UserMessage(
        content="What is request_timeout in settings.toml? See lib/dates.py, big.txt, ../outside.txt, new.py.",
        timestamp=1,
    )
    attach = NamedFiles(str(tmp_path))
    context = Context(system_prompt="s", messages=[question])
    sent = attach(context).messages[0]
    assert isinstance(sent, UserMessage) and isinstance(sent.content, list)
    attached = content_text(sent.content, "")
    assert '<file name="settings.toml">\n[http]\nrequest_timeout = 37\n\n</file>' in attached
    assert '<file name="lib/dates.py">' in attached
    assert "big.txt\">" not in attached and "secret" not in attached and 'name="new.py"' not in attached
    assert context.messages[0] is question  # the session's message is left as it is
    (tmp_path / "settings.toml").write_text("[http]\nrequest_timeout = 99\n")
    assert attach(context).messages[0] == sent  # later turns send the same text (the prompt cache)
    plain = Context(system_prompt="s", messages=[UserMessage(content="hi", timestamp=2)])
    assert attach(plain) is plain


def test_pis_docs_section_is_left_out_unless_the_user_asks_about_pi() -> None:
    prompt = "You are pi.\n\n<tools>\n- read\n</tools>\n\n<docs>\nAbout pi itself:\n- Overview: /opt/pi/README.md\n</docs>\n\n<cwd>\n/p\n</cwd>"
    task = Context(system_prompt=prompt, messages=[UserMessage(content="Fix calc.py.", timestamp=0)])
    assert without_pi_docs(task).system_prompt == "You are pi.\n\n<tools>\n- read\n</tools>\n\n<cwd>\n/p\n</cwd>"
    assert task.system_prompt == prompt  # the session's prompt is left as it is
    about_pi = Context(system_prompt=prompt, messages=[UserMessage(content="How do I write a Pi extension?", timestamp=0)])
    assert without_pi_docs(about_pi) is about_pi
