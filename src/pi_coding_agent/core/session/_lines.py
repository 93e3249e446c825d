"""One session line as JSON text: read as JavaScript's ``JSON.parse`` reads it, written whole.

msgspec parses almost every line; a few valid lines it refuses, and Pi reads them:

* invalid UTF-8: Pi decodes the file with replacement characters (``StringDecoder``), so
  the line is read with U+FFFD in place of each bad sequence;
* a lone surrogate escape (``"\\ud83d"``, which Node writes for an emoji cut in half) and
  numbers out of range (``1e400`` is ``Infinity``): the standard library's parser reads
  them (strict otherwise: ``NaN``/``Infinity`` literals are refused, as ``JSON.parse`` does).

A line nested deeper than Python's recursion limit allows (about 1,000 levels) cannot be
held safely and is refused (``LineError``): the index reports it as a bad line and keeps
it in the file (a documented difference from Pi, which reads it).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from pi_ai import encode


class LineError(ValueError):
    """A line that is not one JSON value, with the reason."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_line(line: bytes | memoryview | str) -> Any:
    """The JSON value of ``line`` as ``JSON.parse`` gives it; ``LineError`` if it is none."""
    try:
        return msgspec.json.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        first = str(error)
    except RecursionError:
        raise LineError("nested too deeply to read (about 1,000 levels)") from None
    if isinstance(line, str):
        text = line
    else:
        raw = bytes(line)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")  # what Pi's StringDecoder makes of it
            try:
                return msgspec.json.decode(text.encode())
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass
            except RecursionError:
                raise LineError("nested too deeply to read (about 1,000 levels)") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise LineError("nested too deeply to read (about 1,000 levels)") from None
    except ValueError:
        raise LineError(first) from None


def encode_line(value: Any) -> bytes:
    """``value`` as one compact JSON line (without the newline), as ``JSON.stringify`` writes it
    (``pi_ai.encode``: JavaScript's numbers, a lone surrogate escaped as ``\\ud83d``)."""
    return encode(value)
