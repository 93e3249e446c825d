"""Timestamps the way Pi writes and reads them.

Entries carry ``Date.prototype.toISOString()`` strings (UTC, milliseconds, ``Z``); messages
carry integer milliseconds. Converting an entry timestamp to milliseconds follows
``new Date(text).getTime()`` for the ISO forms JavaScript accepts; anything else is ``None``
(JavaScript's ``NaN``).
"""

from __future__ import annotations

import re
import time
from datetime import date

_ISO = re.compile(
    r"(?P<year>[+-]\d{6}|\d{4})"
    r"(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:[.,](?P<fraction>\d+))?)?"
    r"(?P<zone>Z|[+-]\d{2}:?\d{2})?)?"
)


def now_iso() -> str:
    """The current time as ``toISOString()`` writes it: ``2026-11-30T09:08:28.653Z``."""
    return ms_to_iso(time.time_ns() // 1_000_000)


def ms_to_iso(ms: int) -> str:
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


_EPOCH_DAY = date(1970, 1, 1).toordinal()


def _timegm(fields: tuple[int, int, int, int, int, int]) -> int:
    """``calendar.timegm`` (same arithmetic, same errors) without importing ``calendar``."""
    year, month, day, hour, minute, second = fields
    days = date(year, month, 1).toordinal() - _EPOCH_DAY + day - 1
    return ((days * 24 + hour) * 60 + minute) * 60 + second


def iso_to_ms(text: str) -> int | None:
    """``new Date(text).getTime()`` for ISO date strings; ``None`` where JavaScript gives NaN.

    Date-only forms are UTC and date-time forms without a zone are local time, as in
    ECMAScript. Fractions beyond milliseconds are truncated; like V8, a day past the end of
    its month rolls over into the next month.
    """
    match = _ISO.fullmatch(text)
    if match is None:
        return None
    parts = match.groupdict()
    year = int(parts["year"])
    month = int(parts["month"] or 1)
    day = int(parts["day"] or 1)
    hour = int(parts["hour"] or 0)
    minute = int(parts["minute"] or 0)
    second = int(parts["second"] or 0)
    millis = int((parts["fraction"] or "0")[:3].ljust(3, "0"))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 24 and minute <= 59 and second <= 59):
        return None
    if hour == 24 and (minute or second or millis):
        return None
    fields = (year, month, day, hour, minute, second)
    utc_seconds = _timegm(fields)
    zone = parts["zone"]
    if zone is None and parts["hour"] is not None:
        # Local time: find the offset that was in force at that wall-clock time.
        local = time.mktime((*fields, 0, 0, -1)) if 1970 <= year <= 9999 else float(utc_seconds)
        return int(local) * 1000 + millis
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 3600 + int(digits[2:]) * 60
        utc_seconds -= sign * offset
    return utc_seconds * 1000 + millis
