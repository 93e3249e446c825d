"""The script a ``codemode`` call carries: JavaScript, optionally led by one options line.

``// @options: {"max_output_tokens": 2000, "timeout_ms": 60000}`` may be the first line and
nowhere else (a misplaced one would otherwise be ignored without notice). The field names and
limits are Pi 1.6's; the messages are ours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

OPTIONS_PREFIX = "// @options:"
MAX_TIMEOUT_MS = 2_147_483_647
"""The largest ``timeout_ms`` Pi 1.6 accepts (what a JavaScript timer can wait)."""
MAX_SAFE_INTEGER = 2**53 - 1
_FIELDS = ("max_output_tokens", "timeout_ms")
_FIELDS_TEXT = "`max_output_tokens` and `timeout_ms`"


class CodemodeSourceError(ValueError):
    """The input cannot be run: empty, or a bad options line. The message is what the model reads."""


@dataclass(frozen=True, slots=True)
class ScriptOptions:
    max_output_tokens: int | None = None
    timeout_ms: int | None = None


def _non_negative_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_SAFE_INTEGER


def _integral_float(value: object) -> object:
    """JSON ``10.0`` is the number 10 in JavaScript."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def parse_options(text: str) -> ScriptOptions:
    """The JSON object after ``// @options:``."""
    if not text:
        raise CodemodeSourceError(f"The options line needs a JSON object; it may set {_FIELDS_TEXT}")
    try:
        value = json.loads(text)
    except ValueError as error:
        raise CodemodeSourceError(f"The options line is not valid JSON ({error}); it may set {_FIELDS_TEXT}") from None
    if not isinstance(value, dict):
        raise CodemodeSourceError(f"The options line needs a JSON object; it may set {_FIELDS_TEXT}")
    unknown = next((key for key in value if key not in _FIELDS), None)
    if unknown is not None:
        raise CodemodeSourceError(f"The options line may set only {_FIELDS_TEXT}, not `{unknown}`")
    tokens = _integral_float(value.get("max_output_tokens"))
    timeout = _integral_float(value.get("timeout_ms"))
    if tokens is not None and not _non_negative_integer(tokens):
        raise CodemodeSourceError("`max_output_tokens` must be a whole number, zero or more")
    if timeout is not None and (not _non_negative_integer(timeout) or timeout == 0 or timeout > MAX_TIMEOUT_MS):  # type: ignore[operator]
        raise CodemodeSourceError(f"`timeout_ms` must be a whole number from 1 to {MAX_TIMEOUT_MS}")
    return ScriptOptions(
        max_output_tokens=tokens if isinstance(tokens, int) else None,
        timeout_ms=timeout if isinstance(timeout, int) else None,
    )


def parse_source(source: str) -> tuple[str, ScriptOptions]:
    """The script to run and its options. The options line is replaced by nothing but its line
    break, so the script's line numbers stay those of the input."""
    if not source.strip():
        raise CodemodeSourceError(
            "The input is empty: send JavaScript source, optionally led by a line like "
            '`// @options: {"max_output_tokens": 1000}`'
        )
    lines = source.split("\n")
    misplaced = next(
        (number for number, line in enumerate(lines[1:], start=2) if line.lstrip().startswith(OPTIONS_PREFIX)), None
    )
    if misplaced is not None:
        raise CodemodeSourceError(f"An `{OPTIONS_PREFIX}` line is allowed only as the first line (found on line {misplaced})")
    first = lines[0].removesuffix("\r").lstrip()
    if not first.startswith(OPTIONS_PREFIX):
        return source, ScriptOptions()
    newline = source.find("\n")
    code = "" if newline == -1 else source[newline:]
    if not code.strip():
        raise CodemodeSourceError("The options line must be followed by the script on the next lines")
    return code, parse_options(first[len(OPTIONS_PREFIX) :].strip())
