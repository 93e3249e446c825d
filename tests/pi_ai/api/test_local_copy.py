"""Copy rules of the local API: a call's argument that must quote whole lines of a text
(docs/providers/local.md). The grammars are checked by llama.cpp's own grammar sampler, and a real
model's calls under a rule are checked against the text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pi_ai import Context, Tool, ToolCall, UserMessage, stream
from pi_ai.api.local import CopiedText, LocalOptions
from pi_ai.api.local._copy import CopyRule, enforceable
from pi_ai.api.local._grammar import first_argument, turn_grammar
from tests.support.gbnf import grammar_accepts
from tests.support.local_model import SMOKE_MODEL, local_model, model_file, require_runtime

EDIT = Tool(
    name="edit",
    description="Replace exact text in a file",
    parameters={
        "type": "object",
        "required": ["path", "edits"],
        "properties": {
            "path": {"type": "string"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["oldText", "newText"],
                    "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                },
            },
        },
    },
)
READ = Tool(
    name="read",
    description="Read a file",
    parameters={"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}},
)
TEXT = 'def add(a, b):\n    return a - b\n\n\nprint("sum:\\t", add(2, 3))\n'
RULE = CopyRule("edit", "path", "calc.py", CopiedText("oldText", TEXT))


@pytest.fixture(scope="module")
def vocab() -> Iterator[Any]:
    require_runtime()
    from pi_ai.api.local._engine import Engine

    engine = Engine(str(model_file(SMOKE_MODEL)), 256)
    yield engine
    engine.close()


def _call(path: str, *old_texts: str, name: str = "edit") -> str:
    edits = [{"oldText": old, "newText": "X"} for old in old_texts]
    arguments = {"path": path, "edits": edits} if name == "edit" else {"path": path}
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + "\n</tool_call>"


def _accepts(vocab: Any, text: str, *, resume: bool = False, rules: tuple[CopyRule, ...] = (RULE,)) -> bool:
    return grammar_accepts(vocab, turn_grammar([EDIT, READ], thinking=False, copies=rules, resume=resume), text)


@pytest.mark.parametrize(
    "old_text",
    [
        "def add(a, b):",
        "    return a - b",
        "return a - b",  # a line without its indentation
        "def add(a, b):\n    return a - b",
        "return a - b\n\n",  # a run may end on blank lines
        'print("sum:\\t", add(2, 3))',  # quotes and a tab, escaped as JSON
    ],
)
def test_runs_of_whole_lines_of_the_text_are_accepted(vocab: Any, old_text: str) -> None:
    assert _accepts(vocab, _call("calc.py", old_text))


@pytest.mark.parametrize(
    "old_text",
    [
        "return a + b",  # made up
        "return a",  # part of a line
        "a - b",
        "def add(a, b):\nprint(\"sum:\\t\", add(2, 3))",  # lines that do not follow each other
        "\ndef add(a, b):",  # a run may not begin on a blank line
        "",
    ],
)
def test_anything_else_is_refused_for_that_file(vocab: Any, old_text: str) -> None:
    assert not _accepts(vocab, _call("calc.py", old_text))
    assert not _accepts(vocab, _call("calc.py", "def add(a, b):", old_text))  # in any entry


def test_other_files_and_other_tools_stay_free(vocab: Any) -> None:
    for path in ("other.py", "calc.pyx", "calc.p", "", "src/calc.py", "cälc.py"):
        assert _accepts(vocab, _call(path, "return a + b")), path
    assert _accepts(vocab, _call("calc.py", name="read"))


def test_several_rules_and_values_with_special_characters(vocab: Any) -> None:
    rules = (
        RULE,
        CopyRule("edit", "path", "a-]b^.txt", CopiedText("oldText", "alpha\nbeta\n")),
        CopyRule("edit", "path", "café.md", CopiedText("oldText", "# Café\n")),
    )
    assert _accepts(vocab, _call("a-]b^.txt", "alpha\nbeta"), rules=rules)
    assert not _accepts(vocab, _call("a-]b^.txt", "gamma"), rules=rules)
    assert _accepts(vocab, _call("café.md", "# Café"), rules=rules)
    assert not _accepts(vocab, _call("café.md", "return a - b"), rules=rules)
    assert _accepts(vocab, _call("café.mdx", "anything"), rules=rules)
    # Known gap: the same value spelled with an escape is another string to the grammar.
    escaped = _call("café.md", "return a - b").replace("é", "\\u00e9")
    assert _accepts(vocab, escaped, rules=rules)


def test_one_call_per_turn_and_resuming_at_a_call(vocab: Any) -> None:
    one = _call("calc.py", "def add(a, b):")
    assert _accepts(vocab, one)
    assert not _accepts(vocab, one + "\n" + _call("notes.txt", name="read"))
    assert _accepts(vocab, "Done: the test passes.")
    assert _accepts(vocab, one, resume=True)
    assert not _accepts(vocab, "Done: the test passes.", resume=True)  # the turn was writing a call


def test_the_first_argument_and_the_size_limits() -> None:
    assert first_argument(EDIT) == "path" and first_argument(READ) == "path"
    numbered = Tool(name="n", description="", parameters={"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}})
    assert first_argument(numbered) is None  # only a string can name a text
    assert enforceable(CopiedText("oldText", "x\n" * 399))
    assert not enforceable(CopiedText("oldText", "x\n" * 400))
    assert not enforceable(CopiedText("oldText", "x" * 32_001))


async def test_a_real_models_edit_quotes_the_text_it_was_given() -> None:
    asked: list[tuple[str, str, str]] = []

    def source(tool: str, key: str, value: str) -> CopiedText:
        asked.append((tool, key, value))
        return CopiedText("oldText", TEXT)

    model = local_model(SMOKE_MODEL, max_tokens=120)
    runs = [line.strip() for line in TEXT.split("\n") if line.strip()]
    for prompt in ("Fix the subtraction in calc.py.",):
        context = Context(messages=[UserMessage(content=prompt, timestamp=0)], tools=[EDIT])
        events = stream(model, context, LocalOptions(tool_choice="required", copy_source=source))
        kinds = [event.type async for event in events]
        message = await events.result()
        calls = [block for block in message.content if isinstance(block, ToolCall)]
        assert message.stop_reason in ("toolUse", "length"), message.error_message
        assert len(calls) == 1 and kinds.count("toolcall_end") == 1
        arguments = calls[0].arguments
        if message.stop_reason == "toolUse":
            assert asked[-1] == ("edit", "path", arguments["path"])
            for edit in arguments["edits"]:
                quoted = [line.strip() for line in edit["oldText"].split("\n") if line.strip()]
                assert quoted and edit["oldText"].strip() in TEXT, edit
                assert all(line in runs for line in quoted)
    assert asked
