"""The terminal-output policy (``pi_tui.terminal_safe``): each escape family is dropped, text
and SGR stay; a fuzz over all families and random byte mixes; ``Markdown`` content passes it.

Figures: each family tried (``escape_family``, with what leaked) and each fuzzed input
(``fuzz_input``, target ``terminal policy``), for ``tools/reliability_figures.py``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_tui import Markdown, terminal_safe
from tests.reliability.figures import record
from tests.support.escape_families import SAMPLES, SGR, SGR_SEQUENCE, STRATEGIES, TEXT, leaks

EXAMPLES = int(os.environ.get("PI_FUZZ_EXAMPLES", "1000"))


def _check(family: str, surface: str, shown: str) -> None:
    found = leaks(shown)
    record("escape_family", family=family, surface=surface, leaked=int(bool(found)))
    assert not found, f"{family} reached the terminal: {found[:5]}"


@pytest.mark.parametrize("family", sorted(SAMPLES))
def test_each_family_is_dropped_and_the_text_around_it_kept(family: str) -> None:
    text = f"before \x1b[1;31mred\x1b[0m {SAMPLES[family]}after\tend\n"
    shown = terminal_safe(text)
    _check(family, "unit", shown)
    assert shown == "before \x1b[1;31mred\x1b[0m after\tend\n"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # an unterminated string loses its introducer only: the rest shows as plain text
        ("a\x1b]52;c;QUJD", "a52;c;QUJD"),
        ("a\x1b]0;title\x1b[31mred", "a0;title\x1b[31mred"),
        # a CSI still missing its final byte, a lone ESC, an ESC before another ESC
        ("a\x1b[12", "a"),
        ("a\x1b", "a"),
        ("\x1b\x1b[32mgreen", "\x1b[32mgreen"),
        # CRLF becomes LF; carriage returns cannot overwrite a line
        ("one\r\ntwo\rTWO", "one\ntwoTWO"),
        # SGR in its 8-bit form and SGR-like private sequences are not SGR
        ("\x9b31mx\x1b[>4;2my\x1b[?1m", "xy"),
        # the string terminators alone
        ("a\x1b\\b\x9cc", "abc"),
    ],
)
def test_edges(text: str, shown: str) -> None:
    assert terminal_safe(text) == shown
    assert not leaks(shown)


@pytest.mark.timeout(60)
def test_many_unterminated_introducers_are_cheap() -> None:
    """200,000 string introducers without a terminator: each payload stops at the next one, so
    this is one linear pass (were every one scanned to the end, it would not finish)."""
    for introducer in ("\x9d", "\x1b]", "\x90", "\x1b_"):
        assert terminal_safe(introducer * 200_000 + "tail") == "tail"


def test_without_sgr_colours_go_too() -> None:
    assert terminal_safe("\x1b[31mred\x1b[0m \x1b]0;t\x07x", keep_sgr=False) == "red x"


def test_text_without_controls_is_returned_as_it_is() -> None:
    text = "plain — ünïcödé 漢字 \t tabs\nand lines [31m ]52; no ESC"
    assert terminal_safe(text) is text


_FAMILY_SEGMENT = st.sampled_from(sorted(STRATEGIES)).flatmap(lambda name: STRATEGIES[name].map(lambda s: (name, s)))
_SEGMENT = st.one_of(
    TEXT.map(lambda s: ("text", s)), SGR_SEQUENCE.map(lambda s: ("sgr", s)), _FAMILY_SEGMENT
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(_SEGMENT, max_size=12))
def test_fuzz_well_formed_sequences_of_every_family(segments: list[tuple[str, str]]) -> None:
    """Complete sequences of any family between text and SGR: exactly the text and SGR stay."""
    shown = terminal_safe("".join(piece for _, piece in segments))
    families = {kind for kind, _ in segments if kind not in ("text", "sgr")}
    found = leaks(shown)
    record("fuzz_input", target="terminal policy")
    for family in families:
        record("escape_family", family=family, surface="fuzz", leaked=int(bool(found)))
    assert not found
    assert shown == "".join(piece for kind, piece in segments if kind in ("text", "sgr"))


# Random mixes: the bytes escape sequences are made of, controls, and text.
_MIX = st.text(
    st.one_of(
        st.sampled_from("\x1b\x9b\x9c\x9d\x90\x9f\x9e\x98\x07[]P_^X\\;:?>=<0123456789mHJKhlnc()# \n\t\r"),
        st.characters(max_codepoint=0x9F),
        st.characters(exclude_categories=("Cs",)),
    ),
    max_size=80,
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(_MIX)
def test_fuzz_random_mixes(text: str) -> None:
    """Whatever the mix: no control but tab, newline and SGR comes out, nothing is invented
    (the output is a subsequence of the input), and filtering twice changes nothing."""
    shown = terminal_safe(text)
    found = leaks(shown)
    record("fuzz_input", target="terminal policy")
    assert not found
    remaining = iter(text)
    assert all(char in remaining for char in shown)
    assert terminal_safe(shown) == shown


def test_markdown_content_passes_the_policy() -> None:
    """What a ``Markdown`` draws (an answer, thinking, a custom message) carries no escape of
    the text's own; its own styling (bold here) stays."""
    source = "".join(f"**bold** {sample} text\n\n" for sample in SAMPLES.values())
    view = Markdown("", 0, 0)
    view.set_text(source)
    lines = view.render(200)
    for family in SAMPLES:
        _check(family, "markdown", "\n".join(lines))
    assert Markdown(source, 0, 0).render(200) == lines
    plain = SGR.sub("", "\n".join(lines))
    assert plain.count("bold") == plain.count("text") == len(SAMPLES)


def test_markdown_streamed_in_pieces_filters_a_sequence_split_between_them() -> None:
    """An answer arrives a few characters at a time: a sequence cut between two deltas, after
    a clean prefix that is not searched again, is still removed once it is whole."""
    answer = "clean start " * 50 + "\x1b]52;c;cHduZWQ=\x07 middle \x1b[2J\x1b[31mred\x1b[0m end"
    view = Markdown("", 0, 0)
    for cut in range(1, len(answer) + 1, 3):
        view.set_text(answer[:cut])
        assert not leaks("\n".join(view.render(80)))
    view.set_text(answer)
    assert view.text == "clean start " * 50 + " middle \x1b[31mred\x1b[0m end"
