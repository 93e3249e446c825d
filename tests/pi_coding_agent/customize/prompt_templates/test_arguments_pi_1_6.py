"""Prompt-template arguments split and substituted as Pi 1.6 does, checked against Pi 1.6's own
``parseCommandArgs`` / ``expandPromptTemplate`` (``tools/pi_resources_driver.mjs`` run live on the
1.6 runtime, one node process): the recorded random texts of ``resource_cases``, the
documented examples and the corners of the rule (quotes only open an argument, escaped quotes,
empty quoted arguments, unclosed quotes, JavaScript's whitespace)."""

from __future__ import annotations

from pathlib import Path

from pi_coding_agent.customize.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    parse_command_args,
)
from tests.support.oracle import run_current_library
from tests.support.resource_cases import EXPAND, EXPAND_TEMPLATES, parse_args_cases

DRIVER = Path(__file__).resolve().parents[4] / "tools" / "pi_resources_driver.mjs"

CORNERS = [
    '"API compatibility" later',
    "doesn't matter",
    'the "fast" path',
    '"the \\"fast\\" path"',
    "'it\\'s' \"a\\'b\" 'c\\\"d'",
    '"" \'\' x ""',
    '"a b"c d',
    'a"b c"',
    "\"a\"'b' c",
    '"unclosed a b',
    "x 'y",
    '"',
    "'",
    '"a\\\\" b',
    'back\\slash "in\\side"',
    "  lead\u00a0nbsp\u2028ls\ufeffbom\x1cfs  ",
    '"tab\there" "new\nline"',
    "\"é ü\" 'ç'",
]


def test_argument_splitting_matches_pi_1_6() -> None:
    texts = [*parse_args_cases(), *CORNERS]
    commands = [*EXPAND, *(f"/review {text}" for text in CORNERS)]
    answers = run_current_library(
        DRIVER, {"parseArgs": texts, "expand": [[text, EXPAND_TEMPLATES] for text in commands]}
    )
    assert [parse_command_args(text) for text in texts] == answers["parseArgs"]
    templates = [
        PromptTemplate(t["name"], t["description"], t["content"], t["filePath"]) for t in EXPAND_TEMPLATES
    ]
    assert [expand_prompt_template(text, templates) for text in commands] == answers["expand"]
    assert ['the "fast" path'] in answers["parseArgs"]  # the documented example, as documented
