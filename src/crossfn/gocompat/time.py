"""Go's ``time`` package: durations, RFC 3339 as ``metav1.Time`` writes it, and ``time.Time`` itself.

Durations as Crossplane's flags and functions write them:

``1m``, ``90s``, ``1m30s``, ``1.5h``, ``300ms``, ``-2s``, ``0``: a sequence of
decimal numbers, each with a unit (``ns``, ``us``, ``µs``, ``μs``, ``ms``,
``s``, ``m``, ``h``), with an optional sign in front. Errors are Go's texts
(``time: invalid duration "x"``, ``time: missing unit in duration "1"``,
``time: unknown unit "d" in duration "1d"``), so a caller can prefix them as the
Go code it ports does (kong prints ``--poll-interval: time: ...``).
:func:`parse_duration` gives seconds as a float; :func:`parse_duration_ns` the exact int64 of
nanoseconds Go computes, which Sprig's date functions need.

Templates see ``time.Time`` values (Sprig's ``now``, ``toDate``, ``dateModify``) and call their
methods (``now.Year``, ``(now).Format "2006"``), so :class:`Time` models Go's: an instant in whole
seconds and nanoseconds, a :class:`Location`, and an optional monotonic clock reading, which
``String()`` prints as Go does (``m=+0.001234567``). Its named companions are :class:`Duration`,
:class:`Month` and :class:`Weekday`, integers that print as Go's ``String()`` methods do. The
layout language of ``Format`` and ``Parse`` lives in :mod:`crossfn.gocompat._timelayout`.

Locations are IANA zones read with :mod:`zoneinfo`. ``Local`` is UTC, named ``UTC``: Go falls back
to it when neither ``TZ`` nor ``/etc/localtime`` is set, as in the distroless image functions run
in, and a render on a developer's machine must print what the function prints in a cluster.
Years outside 1..9999, which :mod:`datetime` cannot hold, use the zone's offset at the nearest
year it can.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
import time as _pytime
import zoneinfo
from collections.abc import Mapping
from typing import Any, ClassVar

from crossfn import errors
from crossfn.gocompat import _timelayout, gofunc, values

__all__ = [
    "LOCAL",
    "MAX_DURATION",
    "MIN_DURATION",
    "UTC",
    "Duration",
    "Location",
    "Month",
    "Time",
    "Weekday",
    "date",
    "fixed_zone",
    "format_duration",
    "format_rfc3339",
    "load_location",
    "now",
    "parse",
    "parse_duration",
    "parse_duration_ns",
    "parse_rfc3339",
    "round_duration",
    "unix",
]

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


_UNITS_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 10**9, "m": 60 * 10**9}
_UNITS_NS["h"] = 3600 * 10**9
_U63 = 1 << 63
MAX_DURATION = _U63 - 1
"""The largest ``time.Duration``: an int64 of nanoseconds."""
MIN_DURATION = -_U63
"""The smallest ``time.Duration``."""


def parse_duration(text: str) -> float:
    """The duration ``text`` in seconds; :class:`~crossfn.errors.GoError` with Go's text when it is not one."""
    return parse_duration_ns(text) / 1e9


def parse_duration_ns(text: str) -> int:
    """Go's ``time.ParseDuration``: the exact nanoseconds, fractions rounded as Go's float64 arithmetic does."""
    s, orig = text, text
    invalid = errors.GoError("time: invalid duration " + _timelayout.quote(orig))
    negative = s[:1] == "-"
    if s[:1] in ("-", "+"):
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise invalid
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            raise invalid
        whole, s, ok = _leading_int(s)
        if not ok:
            raise invalid
        pre = whole is not None
        fraction, scale, post = 0, 1.0, False
        if s[:1] == ".":
            fraction, scale, rest = _leading_fraction(s[1:])
            post = len(rest) != len(s) - 1
            s = rest
        if not pre and not post:
            raise invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            raise errors.GoError("time: missing unit in duration " + _timelayout.quote(orig))
        name, s = s[:i], s[i:]
        if name not in _UNITS_NS:
            raise errors.GoError(
                f"time: unknown unit {_timelayout.quote(name)} in duration {_timelayout.quote(orig)}"
            )
        unit = _UNITS_NS[name]
        v = whole or 0
        if v > _U63 // unit:
            raise invalid
        v *= unit
        if fraction > 0:
            v += int(float(fraction) * (float(unit) / scale))
            if v > _U63:
                raise invalid
        total += v
        if total > _U63:
            raise invalid
    if negative:
        return -total
    if total > MAX_DURATION:
        raise invalid
    return total


def _leading_int(s: str) -> tuple[int | None, str, bool]:
    """Go's ``leadingInt``: the digits in front (None when there are none), the rest, and False on overflow."""
    i, x = 0, 0
    while i < len(s) and "0" <= s[i] <= "9":
        if x > _U63 // 10:
            return None, s, False
        x = x * 10 + ord(s[i]) - 48
        if x > _U63:
            return None, s, False
        i += 1
    return (x if i else None), s[i:], True


def _leading_fraction(s: str) -> tuple[int, float, str]:
    """Go's ``leadingFraction``: digits after the point, stopping to add precision at int64's limit."""
    i, x, scale, overflow = 0, 0, 1.0, False
    while i < len(s) and "0" <= s[i] <= "9":
        if not overflow:
            y = x * 10 + ord(s[i]) - 48
            if x > (_U63 - 1) // 10 or y > _U63:
                overflow = True
            else:
                x, scale = y, scale * 10
        i += 1
    return x, scale, s[i:]


def format_duration(ns: int) -> str:
    """Go's ``Duration.String``: ``1h2m3.5s``, ``1.5ms``, ``0s``."""
    negative, u = ns < 0, abs(ns)
    if u < 10**9:
        if u == 0:
            return "0s"
        if u < 1_000:
            text = f"{u}ns"
        elif u < 1_000_000:
            text = _fraction(u, 3) + "µs"
        else:
            text = _fraction(u, 6) + "ms"
    else:
        seconds, rest = divmod(u, 10**9)
        text = _fraction_tail(rest, 9) + "s"
        minutes, secs = divmod(seconds, 60)
        text = str(secs) + text
        if minutes:
            hours, mins = divmod(minutes, 60)
            text = f"{mins}m" + text
            if hours:
                text = f"{hours}h" + text
    return "-" + text if negative else text


def _fraction(u: int, prec: int) -> str:
    whole, rest = divmod(u, 10**prec)
    return str(whole) + _fraction_tail(rest, prec)


def _fraction_tail(rest: int, prec: int) -> str:
    digits = str(rest).rjust(prec, "0").rstrip("0")
    return "." + digits if digits else ""


def _go_rem(a: int, b: int) -> int:
    """Go's ``%``: the remainder takes the dividend's sign."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def round_duration(d: int, m: int) -> int:
    """Go's ``Duration.Round`` of ``d`` to a multiple of ``m`` (nanoseconds): halfway values round away
    from zero; the result saturates at the int64 limits."""
    if m <= 0:
        return d
    r = _go_rem(d, m)
    if d < 0:
        r = -r
        if r + r < m:
            return d + r
        return max(d - m + r, MIN_DURATION)
    if r + r < m:
        return d - r
    return min(d + m - r, MAX_DURATION)


def _int64(n: int) -> int:
    """Wrap ``n`` to int64, as Go's arithmetic does."""
    return (n + _U63) % (1 << 64) - _U63


class Duration(int, values.GoNamed):
    """A ``time.Duration``: an int64 of nanoseconds that prints as ``1h30m0s``."""

    __slots__ = ()
    go_type: ClassVar[str] = "time.Duration"
    go_kind: ClassVar[str] = "int64"

    def go_string(self) -> str:
        """``Duration.String()``."""
        return format_duration(int(self))

    def go_json(self) -> Any:
        """A Duration marshals as its integer."""
        return int(self)

    def go_methods(self) -> Mapping[str, gofunc.Func]:
        """Duration's methods."""
        d = int(self)
        return {
            "Abs": gofunc.Func(
                lambda: Duration(MAX_DURATION if d == MIN_DURATION else abs(d)), (), "time.Duration"
            ),
            "Hours": gofunc.Func(lambda: d / 3.6e12, (), "float64"),
            "Microseconds": gofunc.Func(lambda: int(d / 1_000), (), "int64"),
            "Milliseconds": gofunc.Func(lambda: int(d / 1_000_000), (), "int64"),
            "Minutes": gofunc.Func(lambda: d / 6e10, (), "float64"),
            "Nanoseconds": gofunc.Func(lambda: d, (), "int64"),
            "Round": gofunc.Func(
                lambda m: Duration(round_duration(d, int(m))), ("time.Duration",), "time.Duration"
            ),
            "Seconds": gofunc.Func(lambda: d / 1e9, (), "float64"),
            "String": gofunc.Func(lambda: format_duration(d), (), "string"),
            "Truncate": gofunc.Func(
                lambda m: Duration(d if m <= 0 else d - _go_rem(d, int(m))),
                ("time.Duration",),
                "time.Duration",
            ),
        }


class Month(int, values.GoNamed):
    """A ``time.Month`` (1 is January), which prints its English name."""

    __slots__ = ()
    go_type: ClassVar[str] = "time.Month"
    go_kind: ClassVar[str] = "int"

    def go_string(self) -> str:
        """``Month.String()``; out of range, ``%!Month(13)``."""
        if 1 <= self <= 12:
            return _timelayout.LONG_MONTHS[self - 1]
        return f"%!Month({int(self)})"

    def go_methods(self) -> Mapping[str, gofunc.Func]:
        """Month's methods."""
        return {"String": gofunc.Func(self.go_string, (), "string")}


class Weekday(int, values.GoNamed):
    """A ``time.Weekday`` (0 is Sunday), which prints its English name."""

    __slots__ = ()
    go_type: ClassVar[str] = "time.Weekday"
    go_kind: ClassVar[str] = "int"

    def go_string(self) -> str:
        """``Weekday.String()``; out of range, ``%!Weekday(7)``."""
        if 0 <= self <= 6:
            return _timelayout.LONG_DAYS[self]
        return f"%!Weekday({int(self)})"

    def go_methods(self) -> Mapping[str, gofunc.Func]:
        """Weekday's methods."""
        return {"String": gofunc.Func(self.go_string, (), "string")}


_MIN_DATETIME = int(datetime.datetime(1, 1, 2, tzinfo=datetime.UTC).timestamp())
_MAX_DATETIME = int(datetime.datetime(9999, 12, 30, tzinfo=datetime.UTC).timestamp())


class Location(values.GoNamed):
    """A ``*time.Location``: UTC, a fixed offset, or an IANA zone; it prints its name."""

    __slots__ = ("_fixed", "_zone", "name")
    go_type: ClassVar[str] = "*time.Location"
    go_kind: ClassVar[str] = "ptr"

    def __init__(
        self, name: str, *, zone: zoneinfo.ZoneInfo | None = None, fixed: tuple[str, int] = ("UTC", 0)
    ):
        self.name = name
        self._zone = zone
        self._fixed = fixed

    def lookup(self, unix_seconds: int) -> tuple[str, int]:
        """The zone abbreviation and offset (seconds east of UTC) in effect at an instant."""
        if self._zone is None:
            return self._fixed
        clamped = min(max(unix_seconds, _MIN_DATETIME), _MAX_DATETIME)
        local = datetime.datetime.fromtimestamp(clamped, self._zone)
        offset = local.utcoffset()
        return local.tzname() or "", int(offset.total_seconds()) if offset is not None else 0

    def lookup_name(self, name: str, unix_seconds: int) -> int | None:
        """The offset of the abbreviation ``name`` around an instant, or None (Go's ``lookupName``)."""
        if self._zone is None:
            return self._fixed[1] if self._fixed[0] == name and self is not LOCAL else None
        for guess in (unix_seconds, unix_seconds - 86400 * 183):
            zone, offset = self.lookup(guess)
            if zone == name:
                return offset
        return None

    def go_string(self) -> str:
        """``Location.String()``: its name."""
        return self.name

    def go_methods(self) -> Mapping[str, gofunc.Func]:
        """Location's methods."""
        return {"String": gofunc.Func(self.go_string, (), "string")}


UTC = Location("UTC")
"""``time.UTC``."""
LOCAL = Location("UTC")
"""``time.Local`` as functions see it in their container: UTC, a location of its own named ``UTC``."""


def fixed_zone(name: str, offset: int) -> Location:
    """``time.FixedZone(name, offset)``."""
    return Location(name, fixed=(name, offset))


def load_location(name: str) -> Location:
    """``time.LoadLocation``: ``""`` and ``UTC`` are UTC, ``Local`` is :data:`LOCAL`, else an IANA zone.

    Raises GoError ``unknown time zone NAME`` (or ``time: invalid location name``) when there is none.
    """
    if name in ("", "UTC"):
        return UTC
    if name == "Local":
        return LOCAL
    if ".." in name or name.startswith("/") or "\\" in name:
        raise errors.GoError("time: invalid location name")
    if name not in _LOCATIONS:
        try:
            zone = zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError) as exc:
            raise errors.GoError(f"unknown time zone {name}") from exc
        _LOCATIONS[name] = Location(name, zone=zone)  # one object per name: equal times compare equal
    return _LOCATIONS[name]


_LOCATIONS: dict[str, Location] = {}


_SECONDS_PER_DAY = 86400
_MONO_WALL_MIN = -2682288000
"""1885-01-01 in Unix seconds: a time with a monotonic reading stores its wall clock in 33 bits from here."""
_MONO_WALL_MAX = _MONO_WALL_MIN + (1 << 33) - 1
_UNIX_TO_ZERO = 62135596800
"""Seconds from January 1 of year 1 (Go's zero Time) to the Unix epoch."""


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date; any year (H. Hinnant's algorithm)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, day


@dataclasses.dataclass(frozen=True, eq=False)
class Time(values.GoNamed):
    """A ``time.Time``: ``sec`` Unix seconds, ``nsec`` nanoseconds (0..999999999), a location, and
    ``mono``, the monotonic clock reading in nanoseconds that only :func:`now` sets."""

    sec: int
    nsec: int = 0
    loc: Location = LOCAL
    mono: int | None = None

    go_type: ClassVar[str] = "time.Time"
    go_kind: ClassVar[str] = "struct"

    def __eq__(self, other: object) -> bool:
        """``reflect.DeepEqual``: the same instant, location and monotonic reading."""
        if not isinstance(other, Time):
            return NotImplemented
        return (self.sec, self.nsec, self.loc, self.mono) == (other.sec, other.nsec, other.loc, other.mono)

    def __hash__(self) -> int:
        return hash((self.sec, self.nsec))

    def fields(self) -> _timelayout.Fields:
        """The time broken down in its location."""
        zone, offset = self.loc.lookup(self.sec)
        local = self.sec + offset
        days, clock = divmod(local, _SECONDS_PER_DAY)
        year, month, day = _civil_from_days(days)
        yday = days - _days_from_civil(year, 1, 1) + 1
        hour, rest = divmod(clock, 3600)
        return _timelayout.Fields(
            year, month, day, (days + 4) % 7, yday, hour, rest // 60, rest % 60, self.nsec, zone, offset
        )

    def format(self, layout: str) -> str:
        """``Time.Format(layout)``."""
        return _timelayout.format(self.fields(), layout)

    def go_string(self) -> str:
        """``Time.String()``: with ``m=±s.nnnnnnnnn`` when it carries a monotonic reading."""
        text = self.format("2006-01-02 15:04:05.999999999 -0700 MST")
        if self.mono is None:
            return text
        sign = "-" if self.mono < 0 else "+"
        seconds, ns = divmod(abs(self.mono), 10**9)
        return f"{text} m={sign}{seconds}.{ns:09d}"

    def go_json(self) -> Any:
        """``Time.MarshalJSON``: RFC 3339 with nanoseconds; years outside 0..9999 fail."""
        if not 0 <= self.fields().year <= 9999:
            raise errors.GoError("Time.MarshalJSON: year outside of range [0,9999]")
        return self.format("2006-01-02T15:04:05.999999999Z07:00")

    def unix_nano(self) -> int:
        """``Time.UnixNano``, wrapped to int64 as Go's is."""
        return _int64(self.sec * 10**9 + self.nsec)

    def add(self, d: int) -> Time:
        """``Time.Add(d)``: the monotonic reading moves too, and is dropped, as Go drops it, when it
        overflows or the wall clock leaves the years Go can store beside it (1885 to 2157)."""
        sec, nsec = divmod(self.nsec + d, 10**9)
        sec += self.sec
        mono = None if self.mono is None else self.mono + d
        if mono is not None and not (
            MIN_DURATION <= mono <= MAX_DURATION and _MONO_WALL_MIN <= sec <= _MONO_WALL_MAX
        ):
            mono = None
        return Time(sec, nsec, self.loc, mono)

    def sub(self, u: Time) -> int:
        """``Time.Sub(u)`` in nanoseconds, saturating at the Duration limits."""
        if self.mono is not None and u.mono is not None:
            d = self.mono - u.mono
        else:
            d = (self.sec - u.sec) * 10**9 + self.nsec - u.nsec
        return min(max(d, MIN_DURATION), MAX_DURATION)

    def compare(self, u: Time) -> int:
        """``Time.Compare(u)``: -1, 0 or +1 (monotonic readings first, when both have one)."""
        a, b = (
            (self.mono, u.mono)
            if self.mono is not None and u.mono is not None
            else ((self.sec, self.nsec), (u.sec, u.nsec))
        )
        return (a > b) - (a < b)  # type: ignore[operator] # both sides are ints or both are tuples

    def in_location(self, loc: Location) -> Time:
        """``Time.In(loc)``; like every change of location, it drops the monotonic reading."""
        return Time(self.sec, self.nsec, loc)

    def add_date(self, years: int, months: int, days: int) -> Time:
        """``Time.AddDate``: the civil date moved, normalised as ``time.Date`` does."""
        f = self.fields()
        clock = (f.hour, f.minute, f.second, f.nanosecond)
        return date(f.year + years, f.month + months, f.day + days, clock, self.loc)

    def round(self, d: int, *, down: bool = False) -> Time:
        """``Time.Round(d)`` (``Truncate`` with ``down``): a multiple of ``d`` since the zero Time."""
        if d <= 0:
            return Time(self.sec, self.nsec, self.loc)
        r = ((self.sec + _UNIX_TO_ZERO) * 10**9 + self.nsec) % d
        bare = Time(self.sec, self.nsec, self.loc)
        if down or r + r < d:
            return bare.add(-r)
        return bare.add(d - r)

    def go_methods(self) -> Mapping[str, gofunc.Func]:
        """The methods of ``time.Time`` a template can call (one result, or a result and an error)."""
        return _time_methods(self)


def _time_methods(t: Time) -> dict[str, gofunc.Func]:
    f = gofunc.Func
    fields = functools.cache(t.fields)
    return {
        "Add": f(lambda d: t.add(int(d)), ("time.Duration",), "time.Time"),
        "AddDate": f(t.add_date, ("int", "int", "int"), "time.Time"),
        "After": f(lambda u: t.compare(u) > 0, ("time.Time",), "bool"),
        "Before": f(lambda u: t.compare(u) < 0, ("time.Time",), "bool"),
        "Compare": f(lambda u: values.GoInt(t.compare(u)), ("time.Time",), "int"),
        "Day": f(lambda: values.GoInt(fields().day), (), "int"),
        "Equal": f(lambda u: t.compare(u) == 0, ("time.Time",), "bool"),
        "Format": f(t.format, ("string",), "string"),
        "Hour": f(lambda: values.GoInt(fields().hour), (), "int"),
        "In": f(t.in_location, ("*time.Location",), "time.Time"),
        "IsDST": f(lambda: _is_dst(t), (), "bool"),
        "IsZero": f(lambda: t.sec == -_UNIX_TO_ZERO and t.nsec == 0, (), "bool"),
        "Local": f(lambda: t.in_location(LOCAL), (), "time.Time"),
        "Location": f(lambda: t.loc, (), "*time.Location"),
        "Minute": f(lambda: values.GoInt(fields().minute), (), "int"),
        "Month": f(lambda: Month(fields().month), (), "time.Month"),
        "Nanosecond": f(lambda: values.GoInt(t.nsec), (), "int"),
        "Round": f(lambda d: t.round(int(d)), ("time.Duration",), "time.Time"),
        "Second": f(lambda: values.GoInt(fields().second), (), "int"),
        "String": f(t.go_string, (), "string"),
        "Sub": f(lambda u: Duration(t.sub(u)), ("time.Time",), "time.Duration"),
        "Truncate": f(lambda d: t.round(int(d), down=True), ("time.Duration",), "time.Time"),
        "UTC": f(lambda: t.in_location(UTC), (), "time.Time"),
        "Unix": f(lambda: t.sec, (), "int64"),
        "UnixMicro": f(lambda: _int64(t.sec * 10**6 + t.nsec // 1000), (), "int64"),
        "UnixMilli": f(lambda: _int64(t.sec * 1000 + t.nsec // 10**6), (), "int64"),
        "UnixNano": f(t.unix_nano, (), "int64"),
        "Weekday": f(lambda: Weekday(fields().weekday), (), "time.Weekday"),
        "Year": f(lambda: values.GoInt(fields().year), (), "int"),
        "YearDay": f(lambda: values.GoInt(fields().yday), (), "int"),
    }


def _is_dst(t: Time) -> bool:
    zone = t.loc._zone
    if zone is None:
        return False
    clamped = min(max(t.sec, _MIN_DATETIME), _MAX_DATETIME)
    dst = datetime.datetime.fromtimestamp(clamped, zone).dst()
    return bool(dst)


def date(
    year: int,
    month: int,
    day: int,
    clock: tuple[int, int, int, int] = (0, 0, 0, 0),
    loc: Location = UTC,
) -> Time:
    """``time.Date(year, month, day, hour, minute, second, nsec, loc)``, the clock as a tuple: out-of-range
    fields normalise (October 32 is November 1), then the zone applies."""
    hour, minute, second, nsec = clock
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    second, nsec = second + nsec // 10**9, nsec % 10**9
    minute, second = minute + second // 60, second % 60
    hour, minute = hour + minute // 60, minute % 60
    day, hour = day + hour // 24, hour % 24
    local = (
        (_days_from_civil(year, month, 1) + day - 1) * _SECONDS_PER_DAY + hour * 3600 + minute * 60 + second
    )
    _, offset = loc.lookup(local)
    if offset:
        _, offset = loc.lookup(local - offset)
    return Time(local - offset, nsec, loc)


def unix(sec: int, nsec: int = 0) -> Time:
    """``time.Unix(sec, nsec)``, in :data:`LOCAL`."""
    extra, nsec = divmod(nsec, 10**9)
    return Time(sec + extra, nsec, LOCAL)


_MONO_START = _pytime.monotonic_ns()


def now() -> Time:
    """``time.Now()``: the wall clock in :data:`LOCAL`, with a monotonic reading since this process began."""
    ns = _pytime.time_ns()
    return Time(ns // 10**9, ns % 10**9, LOCAL, _pytime.monotonic_ns() - _MONO_START + 1)


def parse(layout: str, value: str, *, default: Location = UTC, local: Location = LOCAL) -> Time:
    """``time.Parse`` (``ParseInLocation(layout, value, loc)`` is ``default=loc, local=loc``).

    A value without a zone is in ``default``; a numeric offset or abbreviation the ``local``
    location uses at that time gives ``local``, any other a fixed zone, as Go's ``parse`` does.
    """
    p = _timelayout.parse(layout, value)
    clock = (p.hour, p.minute, p.second, p.nanosecond)
    if p.utc:
        return date(p.year, p.month, p.day, clock, UTC)
    if p.offset is not None:
        t = date(p.year, p.month, p.day, clock, UTC).add(-p.offset * 10**9)
        name, offset = local.lookup(t.sec)
        if offset == p.offset and (not p.zone_name or name == p.zone_name):
            return t.in_location(local)
        return t.in_location(fixed_zone(p.zone_name, p.offset))
    if p.zone_name:
        t = date(p.year, p.month, p.day, clock, UTC)
        found = local.lookup_name(p.zone_name, t.sec)
        if found is not None:
            return t.add(-found * 10**9).in_location(local)
        offset = 0
        if len(p.zone_name) > 3 and p.zone_name.startswith("GMT"):
            offset = int(p.zone_name[3:]) * 3600
        return t.in_location(fixed_zone(p.zone_name, offset))
    return date(p.year, p.month, p.day, clock, default)
