"""Argument parsing corner cases, checked against Pi 0.85's parser rules."""

from __future__ import annotations

from pi_coding_agent.app.cli._args import parse_args
from pi_coding_agent.app.cli._inputs import FileInputs, build_initial_input


def test_print_takes_the_next_argument_unless_it_looks_like_an_option_or_file() -> None:
    assert parse_args(["-p", "hello"]).messages == ["hello"]
    parsed = parse_args(["-p", "--model", "x"])
    assert parsed.print and parsed.messages == [] and parsed.model == "x"
    parsed = parse_args(["-p", "@f.txt"])
    assert parsed.messages == [] and parsed.file_args == ["f.txt"]
    assert parse_args(["-p", "--- a heading"]).messages == ["--- a heading"]
    assert parse_args(["--print"]).print


def test_double_dash_ends_options() -> None:
    parsed = parse_args(["--", "-p", "@x", "--model"])
    assert parsed.messages == ["-p", "--model"] and parsed.file_args == ["x"] and not parsed.print


def test_value_flags_at_the_end_are_ignored() -> None:
    parsed = parse_args(["hello", "--model"])
    assert parsed.model is None and parsed.messages == ["hello"]


def test_lists_and_repeatables() -> None:
    parsed = parse_args(
        [
            "--append-system-prompt",
            "a",
            "--append-system-prompt",
            "b",
            "--tools",
            "read, bash,,",
            "-xt",
            "edit",
            "--models",
            "a, b",
        ]
    )
    assert parsed.append_system_prompt == ["a", "b"]
    assert parsed.tools == ["read", "bash"]
    assert parsed.exclude_tools == ["edit"]
    assert parsed.models == ["a", "b"]


def test_thinking_and_mode_validation() -> None:
    parsed = parse_args(["--thinking", "huge", "--mode", "yaml"])
    assert parsed.thinking is None and parsed.mode is None
    assert [str(d) for d in parsed.diagnostics] == [
        'Warning: Invalid thinking level "huge". Valid values: off, minimal, low, medium, high, xhigh, max',
        'Error: Invalid mode "yaml". Valid values: text, json, rpc',
    ]
    parsed = parse_args(["--mode", "--print", "hi"])  # Pi 1.6: a missing mode is an error, not a skip
    assert parsed.print and parsed.messages == ["hi"]
    assert [str(d) for d in parsed.diagnostics] == ["Error: --mode requires text, json, or rpc"]
    parsed = parse_args(["--thinking", "xhigh", "--mode", "json"])
    assert parsed.thinking == "xhigh" and parsed.mode == "json" and not parsed.diagnostics


def test_list_models_optional_search() -> None:
    assert parse_args(["--list-models"]).list_models is True
    assert parse_args(["--list-models", "sonnet"]).list_models == "sonnet"
    parsed = parse_args(["--list-models", "-p"])
    assert parsed.list_models is True and parsed.print


def test_unknown_flags() -> None:
    parsed = parse_args(["--plan", "value", "--flag", "--x=1", "-z"])
    assert parsed.unknown_flags == {"plan": "value", "flag": True, "x": "1"}
    assert [str(d) for d in parsed.diagnostics] == ["Error: Unknown option: -z"]


def test_session_flags_and_switches() -> None:
    parsed = parse_args(
        ["-c", "-r", "--session", "abc", "--session-id", "id1", "--no-session", "--session-dir", "d", "-nc", "-nt", "-a"]
    )
    assert parsed.continue_session and parsed.resume and parsed.no_session and parsed.no_context_files
    assert parsed.no_tools and parsed.project_trust_override is True
    assert (parsed.session, parsed.session_id, parsed.session_dir) == ("abc", "id1", "d")
    assert parse_args(["--name"]).diagnostics[0].message == "--name requires a value"


def test_initial_message_concatenates_stdin_files_and_first_message_without_separator() -> None:
    initial = build_initial_input(["first", "second", "third"], "from stdin", FileInputs(text="<file>\n"))
    assert initial.message == "from stdin<file>\nfirst"
    assert initial.rest == ["second", "third"]
    assert build_initial_input([], None, None).message is None


def test_tool_lists_follow_pi_1_6() -> None:
    assert parse_args(["--tools", "+grep, -bash"]).tools == ["+grep", "-bash"]
    assert parse_args(["--tools", "re*,ls"]).tools == ["re*", "ls"]
    mixed = parse_args(["-t", "read,+grep"])
    assert mixed.tools is None
    assert [str(d) for d in mixed.diagnostics] == ["Error: -t: tool names cannot be mixed with +name or -name entries"]
    pattern = parse_args(["--tools", "+gr*"])
    assert [str(d) for d in pattern.diagnostics] == [
        "Error: --tools: +name and -name entries take exact tool names, not patterns: +gr*"
    ]
    assert parse_args(["--models", "a,,b, "]).models == ["a", "b"]


def test_no_mcp_is_a_known_switch() -> None:
    parsed = parse_args(["--no-mcp", "hello"])
    assert parsed.no_mcp and parsed.messages == ["hello"] and not parsed.unknown_flags
