"""What kind of request the user's message is, for the in-process model's guards and notes.

The 1.5B treats every message as a task to change files: asked "What is 17 + 25?" in an empty
folder, it wrote the sum into a new file (a fresh machine, 2026-12-07). ``asks_no_change`` tells a
question, or a command to run and report, from a request for a change; the write guard refuses
changes for the first kind and the result notes ask for the answer instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pi_ai import UserMessage, content_text

_CHANGE_VERBS = (
    "fix add create write make change edit update rename refactor implement remove delete move replace "
    "insert append prepend put set modify correct rewrite convert generate save copy duplicate extract "
    "split merge sort reformat clean tidy bump increase decrease extend shorten simplify optimise "
    "optimize improve adjust swap turn patch repair uncomment translate resolve upgrade downgrade "
    "enable disable initialise initialize scaffold restructure reorganise reorganize rework erase "
    "overwrite truncate introduce migrate undo revert"
)
"""The verbs of a change request, space-separated (their inflections follow from ``_forms``)."""
_IRREGULAR = ("made", "wrote", "written", "rewrote", "rewritten", "undid", "undone")


def _forms(verb: str) -> set[str]:
    """The verb's inflections: fix/fixes/fixed/fixing, make/making, set/setting, copy/copied."""
    forms = {
        verb,
        verb + "s",
        verb + "es",
        verb + "ed",
        verb + "ing",
        verb + verb[-1] + "ing",
        verb + verb[-1] + "ed",
    }
    if verb.endswith("e"):
        forms |= {verb + "d", verb[:-1] + "ing"}
    if verb.endswith("y"):
        forms |= {verb[:-1] + "ies", verb[:-1] + "ied"}
    return forms


_VERB_FORMS = "|".join(
    sorted({form for verb in _CHANGE_VERBS.split() for form in _forms(verb)} | set(_IRREGULAR))
)
_PARTICIPLES = "|".join(
    sorted(
        {form for form in _VERB_FORMS.split("|") if form.endswith(("ed", "en", "one"))}
        | {"made", "set", "put", "split"}
    )
)
_CHANGE_VERB = re.compile(rf"\b(?:{_VERB_FORMS})\b", re.IGNORECASE)
_NOT_ASKED = re.compile(
    rf"\b(?:don't|dont|do not|doesn't|does not|never|without|no need to)\s+(?:\w+\s+){{0,2}}(?:{_VERB_FORMS})\b"
    rf"|\b(?:is|are|was|were|been)\s+(?:\w+\s+){{0,2}}(?:{_PARTICIPLES})\b",
    re.IGNORECASE,
)
"""A change verb negated ("don't change anything") or a participle in the passive of a state
("what is the timeout set to?", "has it been fixed?") asks for no change."""
_QUOTED_OR_NAME = re.compile(r"`[^`]*`|\"[^\"]*\"|\S*[\w-][./][\w./-]*")
"""Code, quoted text and file names or paths (``update.sh``, ``src/fix``): their words are no verbs."""
_QUESTION_START = re.compile(
    r"^\s*(?:what|what's|whats|which|where|where's|who|who's|whose|whom|why|how|how's|when|"
    r"is|are|was|were|am|do|does|did|can|could|should|would|will|has|have|had|may|might|"
    r"tell me|explain|describe|show me|summari[sz]e|(?:please\s+)?(?:run|execute))\b",
    re.IGNORECASE,
)


_INFO_VERBS = (
    "tell|explain|show|describe|check|look|find|see|count|list|say|summari[sz]e|run|read|confirm|verify|"
    "compute|calculate|answer|name|identify|print|help|guess|give me|let me know|remind"
)
_ASKED_TO_DO = re.compile(
    rf"\b(?:(?:can|could|would|will)\s+you|please|I want you to|I'd like you to|I need you to)\s+"
    rf"(?:please\s+|just\s+|also\s+|quickly\s+)*(?!(?:{_INFO_VERBS})\b)[a-z]+",
    re.IGNORECASE,
)
"""A request to do something ("Can you give greet() a default?") other than tell or show."""


def asks_no_change(request: str) -> bool:
    """Whether ``request`` (the user's message) is a question that asks for no change: it has a
    ``?`` or opens as a question ("What...", "Does...", "Explain...") or as a command to run
    ("Please run count_words.py on poem.txt and let me know the counts": the 1.5B then wrote
    poem.txt), and no sentence of it asks
    for a change: no change verb (fix, add, create, write, make, rename...) outside code, quotes
    and file names, unless negated ("don't change anything"), and no request to do something other
    than tell or show ("Can you give greet() a default?"). "Can you fix calc.py?" asks for one."""
    text = _QUOTED_OR_NAME.sub(" ", request)
    if not ("?" in text or _QUESTION_START.match(text)) or _ASKED_TO_DO.search(text):
        return False
    return _CHANGE_VERB.search(_NOT_ASKED.sub(" ", text)) is None


_IN_SENTENCE = r"(?:[^.?!]|[.?!](?=\S))*"
"""Text within one sentence (a dot inside a file name does not end it)."""
_TEST_WORD = r"(?:tests?|test_\w+|\w+_test)"
_FAILING = re.compile(
    rf"\b{_TEST_WORD}\b{_IN_SENTENCE}\b(?:fail|fails|failing|failed|pass|passes|passing|broken)\b"
    rf"|\b(?:fail|fails|failing|failed|pass|passes|passing|broken)\b{_IN_SENTENCE}\b{_TEST_WORD}\b",
    re.IGNORECASE,
)


def wants_tests_passing(request: str) -> bool:
    """Whether ``request`` (the user's message) speaks of tests failing or passing in one sentence
    ("test_discount.py fails. Fix discount.py so the test passes.")."""
    return _FAILING.search(request) is not None


_DROP_WORDS = re.compile(
    r"\b(?:remove|removes|removing|delete|deleting|drop|dropping|strip|stripping|rewrite|rewriting|rework|"
    r"replace|replacing|move|moving|clean|tidy|refactor|refactoring|simplify|shorten|reword|rephrase|"
    r"uncomment|split|merge|extract|restructure|docstrings?|comments?|document|documentation)\b",
    re.IGNORECASE,
)


def may_drop_text(request: str) -> bool:
    """Whether ``request`` (the user's message) may mean to remove or rewrite docstrings or comments:
    it asks to remove, rewrite, move, clean up or refactor something, or speaks of docstrings or
    comments. Otherwise an edit that loses them is refused (``_file_damage.dropped_text_refusal``)."""
    return _DROP_WORDS.search(request) is not None


def last_request(messages: Iterable[object]) -> str:
    """The text of the last user message in ``messages`` (the task the model is working on)."""
    for message in reversed(list(messages)):
        if isinstance(message, UserMessage):
            return content_text(message.content, "")
    return ""
