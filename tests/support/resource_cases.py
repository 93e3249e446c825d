"""Inputs for comparing our resource loaders with Pi 0.85's (recorded by
``tools/gen_pi_resource_cases.py``, checked by ``tests/pi_coding_agent/customize/resources/test_pi_answers.py``).

Deterministic: the same seed gives the same cases, so the recorded answers stay valid.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from tests.support.resource_tree import HOME_SKILLS, PROMPTS, SKILLS

_TOKENS = [
    "$1",
    "$2",
    "$3",
    "$10",
    "$0",
    "$@",
    "$ARGUMENTS",
    "${1:-one}",
    "${2:-}",
    "${0:-z}",
    "${@:-all}",
    "${ARGUMENTS:-none}",
    "${@:1}",
    "${@:2}",
    "${@:0}",
    "${@:2:1}",
    "${@:1:0}",
    "${@:3:5}",
    "$",
    "${",
    "}",
    "${x}",
    "$$1",
    "${1:-$2}",
    "${1:-a}b}",
    "text",
    " ",
    "\n",
    "é",
    "$1a",
    "${12:-d}",
    "$ARGUMENTSX",
    "$@@",
]
_ARG_ALPHABET = ["a", "b", "x y", "", "$1", "é", " ", "${2:-q}", "long-argument"]
_ARGS_TEXT = ["a", "b", " ", "\t", '"', "'", "\u00a0", "\u2028", "\ufeff", "\x1c", "é", "\n", "$1", "\\"]

FRONTMATTER = [
    "---\nname: x\ndescription: plain\n---\nbody\n",
    "---\nflag: yes\nother: on\nno: no\n---\nb",
    "---\nnum: 010\noct: 0o17\nhex: 0x1F\nsexa: 1:20\nfloat: 1.5e3\ninf: .inf\nneg: -12\n---\nb",
    "---\nt: true\nT: True\nf: FALSE\nn: null\nt2: ~\ne:\n---\nb",
    "---\nkey: value\nkey: again\n---\nb",
    "---\n- a\n- b\n---\nlist frontmatter",
    "---\njust a string\n---\nb",
    "---\n---\nempty frontmatter",
    "---\nname: unclosed\nno end marker",
    "----\nname: four dashes\n---\nb",
    "---\r\nname: crlf\r\ndescription: windows\r\n---\r\nline1\r\nline2\r\n",
    "\ufeff---\nname: bom\n---\n  body with spaces  \n\n",
    "---\nname: a\ndescription: has: colon\n---\nb",
    "---\nname: a\ndescription: 'single ''quoted'''\n---\nb",
    '---\ndescription: "double \\"quoted\\" \\u00e9"\n---\nb',
    "---\ndescription: >\n  folded\n  text\n---\nb",
    "---\ndescription: |\n  literal\n  text\n---\nb",
    "---\nmetadata:\n  a: 1\n  b: [x, y]\n---\nb",
    "---\nname: trailing   \ndescription: value # comment\n---\nb",
    "---\nname: -dash\ndescription: ?q\n---\nb",
    "---\n  indented: x\n---\nb",
    "---\ntab:\tvalue\n---\nb",
    "---\n# a comment\nname: after-comment\n\nblank: lines\n---\nb",
    "---\nname: [unclosed\n---\nb",
    "no frontmatter at all\n",
    "---\nname: x\n---",
    "---\nname: x\n---trailing on the marker line\nbody",
    "\n---\nname: not at start\n---\nb",
    "---\nunicode: ünïcödé ✓\nemoji: 😀\n---\nb",
    "---\nempty-string: ''\nspace: ' '\n---\nb",
    "---\ndate: 2024-01-02\n---\nb",
    "---\nkey:value\n---\nb",
    "---\n:\n---\nb",
    "---\nanchors: &a x\nref: *a\n---\nb",
    "---\nkey: @at\n---\nb",
    "---\nkey: `tick\n---\nb",
    "---\nkey: 12abc\n---\nb",
    "---\nkey: +1\n---\nb",
    "---\nkey: .5\n---\nb",
    "---\nkey: 1_000\n---\nb",
    "---\nkey: 0b101\n---\nb",
    "---\nkey: .NaN\n---\nb",
    "---\nkey: x\u0085y\n---\nb",
]

EXPAND = [
    "/review a b",
    "/review",
    "/review ",
    "/review\u00a0x",
    "/review\u2028x y",
    "/review\ufeffx",
    "/rev",
    "review x",
    "/review  'a b'  c",
    "/review\n\nmultiline\nargs",
    "/ review",
    "//review",
    "/review\x1cx",
    "/Review x",
    '/review "unterminated',
    "/review a\\ b",
]

EXPAND_TEMPLATES = [
    {"name": "review", "description": "", "content": "[$1|$2|$@]", "filePath": "/t/review.md"}
]

SKILL_TREE: dict[str, str] = {
    **{f"agent/{k}": v for k, v in SKILLS.items()},
    **{f"home/{k}": v for k, v in HOME_SKILLS.items()},
    "agent/odd/UPPER/SKILL.md": "---\ndescription: upper-case folder name\n---\nx\n",
    "agent/odd/-dash-/SKILL.md": "---\ndescription: hyphens at the ends\n---\nx\n",
    "agent/odd/a--b/SKILL.md": "---\ndescription: consecutive hyphens\n---\nx\n",
    "agent/odd/named/SKILL.md": "---\nname: Has Space\ndescription: invalid declared name\n---\nx\n",
    "agent/odd/empty-name/SKILL.md": "---\nname: ''\ndescription: empty name falls back\n---\nx\n",
    "agent/odd/numeric/SKILL.md": "---\nname: 123\ndescription: 456\n---\nx\n",
    "agent/odd/blank-desc/SKILL.md": "---\nname: blank-desc\ndescription: '   '\n---\nx\n",
    "agent/odd/emoji/SKILL.md": "---\nname: emoji\ndescription: " + "😀" * 520 + "\n---\nx\n",
    "agent/odd/no-frontmatter/SKILL.md": "# Only a heading\n",
    "agent/odd/not-md.txt": "x",
    "agent/odd/link-target/SKILL.md": "---\nname: link-target\ndescription: reached twice through a link\n---\nx\n",
}
SKILL_LINKS = {"agent/odd/zz-link": "link-target"}
SKILL_PATHS = [
    "agent/skills",
    "home/.agents/skills",
    "agent/odd",
    "agent/odd/zz-link",
    "agent/odd/not-md.txt",
    "agent/missing",
    "agent/skills/single.md",
    "agent/skills/notes.md",
]

PROMPT_TREE: dict[str, str] = {
    **{f"agent/{k}": v for k, v in PROMPTS.items()},
    "agent/more/long-first-line.md": "   \n" + "word " * 20 + "\n",
    "agent/more/only-blank.md": "\n\n   \n",
    "agent/more/hint.md": "---\nargument-hint: '[n]'\ndescription: ''\n---\nFirst line used\n",
    "agent/more/review.md": "duplicate name from another folder\n",
    "agent/more/file.txt": "not a template",
}
PROMPT_PATHS = ["agent/prompts", "agent/more", "agent/more/hint.md", "agent/missing.md"]

RESOLVE_TREE: dict[str, str] = {
    "agent/skills/auto-one/SKILL.md": "---\nname: auto-one\ndescription: d\n---\n",
    "agent/skills/auto-off/SKILL.md": "---\nname: auto-off\ndescription: d\n---\n",
    "agent/prompts/p1.md": "p1",
    "agent/prompts/p2.md": "p2",
    "agent/themes/dark-blue.json": "{}",
    "agent/extra/s1/SKILL.md": "---\nname: s1\ndescription: d\n---\n",
    "agent/extra/skip-me/SKILL.md": "---\nname: skip-me\ndescription: d\n---\n",
    "agent/more-prompts/on.md": "on",
    "agent/more-prompts/off.md": "off",
    "agent/more-prompts/sub/deep.md": "deep",
    "pkgs/manifested/package.json": (
        '{"name": "manifested", "pi": {"skills": ["skills", "!skills/beta*"], "prompts": ["prompts/*.md", "docs/extra.md"],'
        ' "themes": ["themes"], "extensions": ["ext/main.py"]}}'
    ),
    "pkgs/manifested/skills/alpha/SKILL.md": "---\nname: alpha\ndescription: d\n---\n",
    "pkgs/manifested/skills/beta/SKILL.md": "---\nname: beta\ndescription: d\n---\n",
    "pkgs/manifested/skills/top.md": "---\nname: top\ndescription: d\n---\n",
    "pkgs/manifested/prompts/a.md": "a",
    "pkgs/manifested/prompts/.hidden.md": "h",
    "pkgs/manifested/prompts/sub/b.md": "b",
    "pkgs/manifested/docs/extra.md": "extra",
    "pkgs/manifested/themes/t.json": "{}",
    "pkgs/manifested/themes/sub/u.json": "{}",
    "pkgs/manifested/ext/main.py": "",
    "pkgs/conventional/skills/c1/SKILL.md": "---\nname: c1\ndescription: d\n---\n",
    "pkgs/conventional/skills/c2/SKILL.md": "---\nname: c2\ndescription: d\n---\n",
    "pkgs/conventional/prompts/cp.md": "cp",
    "pkgs/conventional/prompts/nested/cn.md": "cn",
    "pkgs/conventional/themes/x.json": "{}",
    "pkgs/conventional/themes/y.json": "{}",
    "pkgs/empty-manifest/package.json": '{"name": "e", "pi": {}}',
    "pkgs/empty-manifest/skills/never/SKILL.md": "---\nname: never\ndescription: d\n---\n",
    "pkgs/project-only/prompts/pp.md": "pp",
    "work/.pi/skills/proj/SKILL.md": "---\nname: proj\ndescription: d\n---\n",
    "work/.pi/prompts/wp.md": "wp",
    "work/.agents/skills/wa/SKILL.md": "---\nname: wa\ndescription: d\n---\n",
    "home/.agents/skills/ha/SKILL.md": "---\nname: ha\ndescription: d\n---\n",
}
RESOLVE_SETTINGS: list[dict[str, Any]] = [
    {
        "global": {
            "packages": [
                "../pkgs/manifested",
                {
                    "source": "../pkgs/conventional",
                    "skills": ["c1"],
                    "prompts": [],
                    "themes": ["+themes/y.json"],
                },
                "../pkgs/empty-manifest",
            ],
            "skills": ["extra", "!**/skip-me", "-skills/auto-off"],
            "prompts": ["more-prompts", "-more-prompts/off.md"],
        },
        "project": {"packages": ["../../pkgs/project-only"], "prompts": ["!wp.md"]},
        "trusted": True,
    },
    {
        "global": {"packages": [{"source": "../pkgs/conventional", "themes": ["themes/x.json"]}]},
        "project": {
            "packages": [
                {
                    "source": "../../pkgs/conventional",
                    "autoload": False,
                    "skills": ["-skills/c2"],
                    "prompts": ["+prompts/cp.md"],
                }
            ]
        },
        "trusted": True,
    },
    {
        "global": {"packages": ["../pkgs/manifested"]},
        "project": {"packages": ["../../pkgs/conventional"]},
        "trusted": False,
    },
]


def substitute_cases(count: int = 300, seed: int = 12) -> list[list[Any]]:
    rng = random.Random(seed)
    cases: list[list[Any]] = []
    for _ in range(count):
        content = "".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 8)))
        args = [rng.choice(_ARG_ALPHABET) for _ in range(rng.randint(0, 4))]
        cases.append([content, args])
    return cases


def parse_args_cases(count: int = 200, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_ARGS_TEXT) for _ in range(rng.randint(0, 12))) for _ in range(count)]


def build_tree(root: Path, files: dict[str, str], links: dict[str, str] | None = None) -> None:
    """Write ``files`` (relative path -> text) under ``root``; ``links``: link -> target."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    for link, target in (links or {}).items():
        os.symlink(target, root / link)
