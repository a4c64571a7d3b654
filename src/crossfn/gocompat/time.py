"""Go's ``time.ParseDuration``, and RFC 3339 times as ``metav1.Time`` reads and writes them.

Durations as Crossplane's flags and functions write them:

``1m``, ``90s``, ``1m30s``, ``1.5h``, ``300ms``, ``-2s``, ``0``: a sequence of
decimal numbers, each with a unit (``ns``, ``us``, ``µs``, ``μs``, ``ms``,
``s``, ``m``, ``h``), with an optional sign in front. Errors are Go's texts
(``time: invalid duration "x"``, ``time: missing unit in duration "1"``,
``time: unknown unit "d" in duration "1d"``), so a caller can prefix them as the
Go code it ports does (kong prints ``--poll-interval: time: ...``).
"""

from __future__ import annotations

import datetime
import re

from crossfn import errors

__all__ = ["format_rfc3339", "parse_duration", "parse_rfc3339"]

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})", re.ASCII
)


def parse_rfc3339(text: str) -> datetime.datetime:
    """``time.Parse(time.RFC3339, text)``: a fractional second is accepted, the zone is ``Z`` or ``±hh:mm``.

    Raises GoError (``parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse ...``,
    shortened to Go's first words) when Go would fail.
    """
    m = _RFC3339.fullmatch(text)
    bad = errors.GoError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    if m is None:
        raise bad
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    micro = int((m[7] or "0").ljust(9, "0")[:6])
    zone = m[8]
    if zone == "Z":
        tz = datetime.UTC
    else:
        sign = 1 if zone[0] == "+" else -1
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 23 or minutes > 59:
            raise bad
        tz = datetime.timezone(sign * datetime.timedelta(hours=hours, minutes=minutes))
    try:
        return datetime.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError as exc:
        raise bad from exc


def format_rfc3339(t: datetime.datetime) -> str:
    """``metav1.Time`` as JSON writes it: ``t.UTC().Format(time.RFC3339)``, whole seconds, ``Z``."""
    return t.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # U+00B5 micro sign
    "μs": 1e-6,  # U+03BC Greek mu
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_INT64_NANOSECONDS = 2.0**63
"""A Go Duration is an int64 of nanoseconds: ``-2562047h47m16.854775808s`` to just under ``2562047h47m16.854775808s``."""
_NUMBER = re.compile(r"([0-9]*)(?:\.([0-9]*))?")
_UNIT = re.compile(r"[^0-9.]*")


def parse_duration(text: str) -> float:
    """The duration ``text`` in seconds; :class:`~crossfn.errors.GoError` with Go's text when it is not one."""
    s = text
    negative = s[:1] == "-"
    if s[:1] in ("-", "+"):
        s = s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise errors.GoError(f"time: invalid duration {errors.quote(text)}")
    total = 0.0
    while s:
        number = _NUMBER.match(s)
        assert number is not None  # the pattern matches the empty string
        whole, fraction = number.group(1), number.group(2) or ""
        if not whole and not fraction:
            raise errors.GoError(f"time: invalid duration {errors.quote(text)}")
        s = s[number.end() :]
        unit = _UNIT.match(s)
        assert unit is not None
        name = unit.group(0)
        if not name:
            raise errors.GoError(f"time: missing unit in duration {errors.quote(text)}")
        if name not in _UNITS:
            raise errors.GoError(f"time: unknown unit {errors.quote(name)} in duration {errors.quote(text)}")
        s = s[unit.end() :]
        total += float(f"{whole or '0'}.{fraction or '0'}") * _UNITS[name]
    nanoseconds = total * 1e9
    if nanoseconds > _INT64_NANOSECONDS or (nanoseconds == _INT64_NANOSECONDS and not negative):
        raise errors.GoError(f"time: invalid duration {errors.quote(text)}")  # Go's int64 overflows
    return -total if negative else total
