"""Sprig's date functions (``date.go``), on Go's ``time`` package through :mod:`crossfn.gocompat.time`.

Layouts are Go's (``"2006-01-02"``, ``"02 Jan 06 15:04 -0700"``). ``date`` and ``dateInZone``
accept a ``time.Time`` or Unix seconds as an ``int`` or ``int64``; anything else means *now*.
A zone that does not load means UTC, and ``Local`` is UTC, as in the function's container.
``duration`` and ``durationRound`` read a string or an ``int64``; anything else is zero.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crossfn import errors
from crossfn.gocompat import gofunc, strconv, values
from crossfn.gocompat import time as gotime
from crossfn.gocompat.sprig import _profile, _reflect
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["functions"]

F = gofunc.Func
ANY = gofunc.ANY
TIME = "time.Time"
_SECOND = 10**9
_ZERO_TIME = gotime.Time(-62135596800, 0, gotime.UTC)


def _is_int64(v: Any) -> bool:
    return type(v) is int


def _as_time(v: Any, now: Callable[[], gotime.Time]) -> gotime.Time:
    """The time ``date`` formats: a time, Unix seconds as ``int``/``int64``, else now."""
    if isinstance(v, gotime.Time):
        return v
    if _is_int64(v) or isinstance(v, values.GoInt):
        return gotime.unix(int(v))
    return now()


def _date_in_zone(now: Callable[[], gotime.Time]) -> Callable[[str, Any, str], str]:
    def date_in_zone(layout: str, date: Any, zone: str) -> str:
        try:
            loc = gotime.load_location(zone)
        except errors.GoError:
            loc = gotime.UTC
        return _as_time(date, now).in_location(loc).format(layout)

    return date_in_zone


def _modify(fmt: str, date: gotime.Time) -> gotime.Time:
    """``mustDateModify``: the time moved by a Go duration."""
    return date.add(gotime.parse_duration_ns(fmt))


def _modify_lenient(fmt: str, date: gotime.Time) -> gotime.Time:
    try:
        return _modify(fmt, date)
    except errors.GoError:
        return date


def _ago(now: Callable[[], gotime.Time]) -> Callable[[Any], str]:
    def ago(date: Any) -> str:
        if isinstance(date, gotime.Time):
            t = date
        elif _is_int64(date) or isinstance(date, values.GoInt):
            t = gotime.unix(int(date))
        else:
            t = now()
        return gotime.format_duration(gotime.round_duration(now().sub(t), _SECOND))

    return ago


def _duration(sec: Any) -> str:
    """Sprig's ``duration``: seconds as a Go duration string (``26h3m4s``)."""
    n = 0
    if isinstance(sec, str):
        try:
            n = strconv.parse_int_base(sec, 10)
        except errors.GoError as exc:
            if str(exc).endswith("value out of range"):
                n = -(1 << 63) if sec.startswith("-") else (1 << 63) - 1
    elif _is_int64(sec):
        n = sec
    return gotime.format_duration(_reflect.int64(n * _SECOND))


def _duration_round(now: Callable[[], gotime.Time]) -> Callable[[Any], str]:
    def duration_round(duration: Any) -> str:
        d = 0
        if isinstance(duration, str):
            try:
                d = gotime.parse_duration_ns(duration)
            except errors.GoError:
                d = 0
        elif _is_int64(duration):
            d = duration
        elif isinstance(duration, gotime.Time):
            d = now().sub(duration)
        u = abs(d)
        hour = 3600 * _SECOND
        for unit, suffix in ((hour * 24 * 365, "y"), (hour * 24 * 30, "mo"), (hour * 24, "d"), (hour, "h")):
            if u > unit:
                return f"{u // unit}{suffix}"
        for unit, suffix in ((60 * _SECOND, "m"), (_SECOND, "s")):
            if u > unit:
                return f"{u // unit}{suffix}"
        return "0s"

    return duration_round


def _to_date(fmt: str, value: str) -> gotime.Time:
    """``mustToDate``: ``time.ParseInLocation(fmt, value, time.Local)``."""
    return gotime.parse(fmt, value, default=gotime.LOCAL, local=gotime.LOCAL)


def _to_date_lenient(fmt: str, value: str) -> gotime.Time:
    try:
        return _to_date(fmt, value)
    except errors.GoError:
        return _ZERO_TIME


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's date functions."""
    del profile
    now = sources.now
    in_zone = _date_in_zone(now)
    modify = F(_modify_lenient, ("string", TIME), TIME)
    must_modify = F(_modify, ("string", TIME), TIME, returns_error=True)
    zone_params = ("string", ANY, "string")
    return {
        "ago": F(_ago(now), (ANY,), "string"),
        "date": F(lambda layout, d: in_zone(layout, d, "Local"), ("string", ANY), "string"),
        "date_in_zone": F(in_zone, zone_params, "string"),
        "dateInZone": F(in_zone, zone_params, "string"),
        "date_modify": modify,
        "dateModify": modify,
        "duration": F(_duration, (ANY,), "string"),
        "durationRound": F(_duration_round(now), (ANY,), "string"),
        "htmlDate": F(lambda d: in_zone("2006-01-02", d, "Local"), (ANY,), "string"),
        "htmlDateInZone": F(lambda d, zone: in_zone("2006-01-02", d, zone), (ANY, "string"), "string"),
        "must_date_modify": must_modify,
        "mustDateModify": must_modify,
        "mustToDate": F(_to_date, ("string", "string"), TIME, returns_error=True),
        "now": F(now, (), TIME),
        "toDate": F(_to_date_lenient, ("string", "string"), TIME),
        "unixEpoch": F(lambda t: str(t.sec), (TIME,), "string"),
    }
