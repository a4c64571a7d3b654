"""robfig/cron v3: ``ParseStandard`` and ``Schedule.Next``, as CronOperations read their schedule (upstream ops-7).

Crossplane's CronOperation controller parses ``spec.schedule`` with ``cron.ParseStandard`` and asks
the schedule for the first time after the last one it ran. A standard spec is five fields (minute,
hour, day of month, month, day of week), each a comma-separated list of ``*`` or ``?``, a number or
a name (``jan``, ``mon``), a range ``a-b``, each with an optional ``/step``; or a descriptor
(``@yearly``/``@annually``, ``@monthly``, ``@weekly``, ``@daily``/``@midnight``, ``@hourly``,
``@every <Go duration>``); optionally after ``TZ=<zone>`` or ``CRON_TZ=<zone>``. When both day
fields are restricted a day matches either; when one is ``*`` both must match. Errors are robfig's
texts (``expected exactly 5 fields, found 1: [bad]``), raised as GoError.

:meth:`Schedule.next` is ``SpecSchedule.Next`` (the time is advanced field by field, at most five
years ahead; ``None`` is Go's zero time) or ``ConstantDelaySchedule.Next`` for ``@every``. A
schedule without a zone uses the zone of the time it is given, as robfig's ``time.Local`` does in a
container whose local time is UTC.
"""

from __future__ import annotations

import dataclasses
import datetime
import zoneinfo
from collections.abc import Callable

from crossfn import errors
from crossfn.gocompat import strconv
from crossfn.gocompat import time as gotime

__all__ = ["Schedule", "parse_standard"]

_STAR = 1 << 63


@dataclasses.dataclass(frozen=True)
class _Bounds:
    low: int
    high: int
    names: dict[str, int] = dataclasses.field(default_factory=dict)


_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_MINUTES = _Bounds(0, 59)
_HOURS = _Bounds(0, 23)
_DOM = _Bounds(1, 31)
_MONTHS = _Bounds(1, 12, {m: i + 1 for i, m in enumerate(_MONTH_NAMES)})
_DOW = _Bounds(0, 6, {d: i for i, d in enumerate(_DAY_NAMES)})


def _bits(low: int, high: int, step: int) -> int:
    return sum(1 << i for i in range(low, high + 1, step))


def _all(b: _Bounds) -> int:
    return _bits(b.low, b.high, 1) | _STAR


def _atoi(expr: str) -> int:
    try:
        num = strconv.parse_int(expr)
    except errors.GoError as exc:
        cause = str(exc).replace("strconv.ParseInt", "strconv.Atoi", 1)
        raise errors.GoError(f"failed to parse int from {expr}: {cause}") from exc
    if num < 0:
        raise errors.GoError(f"negative number ({num}) not allowed: {expr}")
    return num


def _int_or_name(expr: str, b: _Bounds) -> int:
    named = b.names.get(expr.lower())
    return named if named is not None else _atoi(expr)


def _range(expr: str, b: _Bounds) -> int:
    """robfig's ``getRange``: the bits of ``*``, ``n``, ``a-b``, each with an optional ``/step``."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = b.low, b.high, _STAR
    else:
        start = _int_or_name(low_and_high[0], b)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], b)
        else:
            raise errors.GoError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _atoi(range_and_step[1])
        if len(low_and_high) == 1:  # "n/step" means "n-max/step"
            end = b.high
        if step > 1:
            extra = 0
    else:
        raise errors.GoError(f"too many slashes: {expr}")
    if start < b.low:
        raise errors.GoError(f"beginning of range ({start}) below minimum ({b.low}): {expr}")
    if end > b.high:
        raise errors.GoError(f"end of range ({end}) above maximum ({b.high}): {expr}")
    if start > end:
        raise errors.GoError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise errors.GoError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def _field(text: str, b: _Bounds) -> int:
    bits = 0
    for expr in (r for r in text.split(",") if r):
        bits |= _range(expr, b)
    return bits


@dataclasses.dataclass(frozen=True)
class Schedule:
    """A parsed schedule: the bit sets of each field, or ``every`` seconds for ``@every``."""

    minute: int = 0
    hour: int = 0
    dom: int = 0
    month: int = 0
    dow: int = 0
    zone: datetime.tzinfo | None = None
    """``TZ=``'s zone; ``None`` is robfig's ``time.Local``: the zone of the time given to :meth:`next`."""
    every: int | None = None

    def next(self, t: datetime.datetime) -> datetime.datetime | None:
        """The first activation strictly after ``t`` (aware), in ``t``'s zone; ``None`` when none within five years."""
        if self.every is not None:
            return t.replace(microsecond=0) + datetime.timedelta(seconds=self.every)
        return _next(self, t)


def _matches_day(s: Schedule, t: datetime.datetime) -> bool:
    dom = bool(1 << t.day & s.dom)
    dow = bool(1 << (t.isoweekday() % 7) & s.dow)
    if s.dom & _STAR or s.dow & _STAR:
        return dom and dow
    return dom or dow


def _plus(t: datetime.datetime, seconds: int) -> datetime.datetime:
    """Go's ``t.Add``: absolute time, whatever the zone's offsets do meanwhile."""
    zone = t.tzinfo
    return (t.astimezone(datetime.UTC) + datetime.timedelta(seconds=seconds)).astimezone(zone)


def _wall(t: datetime.datetime, *, months: int = 0, days: int = 0) -> datetime.datetime:
    """Go's ``t.AddDate(0, months, days)``: the wall clock moved, a month or day past its end normalised."""
    month = t.month - 1 + months
    base = t.replace(year=t.year + month // 12, month=month % 12 + 1, day=1)
    return base + datetime.timedelta(days=t.day - 1 + days)


_Step = tuple[datetime.datetime, bool, bool]
"""A field's step of ``Next``: the time, whether a field was advanced yet, whether it wrapped (start over)."""


def _month(s: Schedule, t: datetime.datetime, added: bool) -> _Step:
    while not 1 << t.month & s.month:
        if not added:
            added, t = True, t.replace(day=1, hour=0, minute=0, second=0)
        t = _wall(t, months=1)
        if t.month == 1:
            return t, added, True
    return t, added, False


def _day(s: Schedule, t: datetime.datetime, added: bool) -> _Step:
    while not _matches_day(s, t):
        if not added:
            added, t = True, t.replace(hour=0, minute=0, second=0)
        t = _wall(t, days=1)
        if t.hour != 0:  # daylight saving moved midnight
            t = _plus(t, (24 - t.hour) * 3600 if t.hour > 12 else -t.hour * 3600)
        if t.day == 1:
            return t, added, True
    return t, added, False


def _clock_field(unit: str, seconds: int, wanted: int, t: datetime.datetime, added: bool) -> _Step:
    """The hour, minute and second steps: advance by ``seconds`` until the field is in ``wanted``."""
    while not 1 << getattr(t, unit) & wanted:
        if not added:
            added = True
            t = t.replace(minute=0, second=0) if unit == "hour" else t.replace(second=0)
        t = _plus(t, seconds)
        if getattr(t, unit) == 0:
            return t, added, True
    return t, added, False


def _next(s: Schedule, t: datetime.datetime) -> datetime.datetime | None:
    """robfig's ``SpecSchedule.Next``: each field in turn, starting over when one wraps round."""
    original = t.tzinfo
    t = t.astimezone(s.zone or original).replace(microsecond=0) + datetime.timedelta(seconds=1)
    added = False
    year_limit = t.year + 5
    steps: tuple[Callable[[datetime.datetime, bool], _Step], ...] = (
        lambda t, a: _month(s, t, a),
        lambda t, a: _day(s, t, a),
        lambda t, a: _clock_field("hour", 3600, s.hour, t, a),
        lambda t, a: _clock_field("minute", 60, s.minute, t, a),
        lambda t, a: _clock_field("second", 1, 1, t, a),  # a standard spec's seconds field is 0
    )
    while t.year <= year_limit:
        for step in steps:
            t, added, wrapped = step(t, added)
            if wrapped:
                break
        else:
            return t.astimezone(original)
    return None


_DESCRIPTORS = {
    "@yearly": (1, 1 << 1, 1 << 1, _all(_DOW)),
    "@annually": (1, 1 << 1, 1 << 1, _all(_DOW)),
    "@monthly": (1, 1 << 1, _all(_MONTHS), _all(_DOW)),
    "@weekly": (1, _all(_DOM), _all(_MONTHS), 1 << 0),
    "@daily": (1, _all(_DOM), _all(_MONTHS), _all(_DOW)),
    "@midnight": (1, _all(_DOM), _all(_MONTHS), _all(_DOW)),
    "@hourly": (_all(_HOURS), _all(_DOM), _all(_MONTHS), _all(_DOW)),
}
"""Descriptor: hour, day-of-month, month and day-of-week bits; the minute is always 0."""


def _descriptor(spec: str, zone: datetime.tzinfo | None) -> Schedule:
    fixed = _DESCRIPTORS.get(spec)
    if fixed is not None:
        hour, dom, month, dow = fixed
        return Schedule(minute=1, hour=hour, dom=dom, month=month, dow=dow, zone=zone)
    if spec.startswith("@every "):
        try:
            seconds = gotime.parse_duration(spec.removeprefix("@every "))
        except errors.GoError as exc:
            raise errors.GoError(f"failed to parse duration {spec}: {exc}") from exc
        return Schedule(every=max(1, int(seconds)), zone=zone)
    raise errors.GoError(f"unrecognized descriptor: {spec}")


def _zone(spec: str) -> tuple[datetime.tzinfo | None, str]:
    """A ``TZ=``/``CRON_TZ=`` prefix's zone and the rest of the spec."""
    if not spec.startswith(("TZ=", "CRON_TZ=")):
        return None, spec
    space = spec.find(" ")
    name = spec[spec.index("=") + 1 : space if space >= 0 else len(spec)]
    rest = spec[space:].strip() if space >= 0 else ""
    try:
        gotime.load_location(
            name
        )  # Go's rules and texts: a path is an invalid name, an unknown zone an error
    except errors.GoError as exc:
        raise errors.GoError(f"provided bad location {name}: {exc}") from exc
    if name == "Local":
        return None, rest  # robfig treats time.Local as the zone of the time it is given
    return (datetime.UTC if name in ("", "UTC") else zoneinfo.ZoneInfo(name)), rest


def parse_standard(spec: str) -> Schedule:
    """``cron.ParseStandard(spec)``; raises GoError with robfig's text."""
    if not spec:
        raise errors.GoError("empty spec string")
    zone, spec = _zone(spec)
    if spec.startswith("@"):
        return _descriptor(spec, zone)
    fields = spec.split()
    if len(fields) != 5:
        raise errors.GoError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    return Schedule(
        minute=_field(fields[0], _MINUTES),
        hour=_field(fields[1], _HOURS),
        dom=_field(fields[2], _DOM),
        month=_field(fields[3], _MONTHS),
        dow=_field(fields[4], _DOW),
        zone=zone,
    )
