"""Go's time layout language (``"2006-01-02 15:04:05 -0700 MST"``): formatting and parsing fields.

:mod:`crossfn.gocompat.time` turns a ``time.Time`` into the broken-down :class:`Fields` this
module formats, and turns what :func:`parse` reads back into a time. Keeping the layout
language here, free of locations and instants, keeps ``time.py`` to the time model itself.

The chunking of a layout follows Go's ``nextStdChunk`` exactly, including its quirks: ``Jan``
is a month only when no lower-case letter follows (``Janet`` is text), ``_2006`` is an
underscore and a year, ``1`` alone is a month and ``5`` alone seconds, and a run of ``0`` or
``9`` after ``.`` or ``,`` is a fractional second only when no other digit follows it. Parse
errors carry Go's texts (``parsing time "x" as "2006": cannot parse "x" as "2006"``, ``: month
out of range``, ``: extra text: ...``), quoted as the ``time`` package quotes (:func:`quote`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from crossfn import errors

__all__ = ["Fields", "Parsed", "format", "parse", "quote"]

LONG_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
LONG_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

# Chunk kinds; a fractional second carries its digit count and separator beside the kind.
_LONG_MONTH, _MONTH, _NUM_MONTH, _ZERO_MONTH = "January", "Jan", "1", "01"
_LONG_WEEKDAY, _WEEKDAY = "Monday", "Mon"
_DAY, _UNDER_DAY, _ZERO_DAY = "2", "_2", "02"
_UNDER_YEARDAY, _ZERO_YEARDAY = "__2", "002"
_HOUR, _HOUR12, _ZERO_HOUR12 = "15", "3", "03"
_MINUTE, _ZERO_MINUTE, _SECOND, _ZERO_SECOND = "4", "04", "5", "05"
_LONG_YEAR, _YEAR, _PM, _LOWER_PM, _TZ = "2006", "06", "PM", "pm", "MST"
_ISO_TZ = ("Z070000", "Z07:00:00", "Z0700", "Z07:00", "Z07")
_NUM_TZ = ("-070000", "-07:00:00", "-0700", "-07:00", "-07")
_FRAC0, _FRAC9 = ".0", ".9"

_STD0X = {
    "1": _ZERO_MONTH,
    "2": _ZERO_DAY,
    "3": _ZERO_HOUR12,
    "4": _ZERO_MINUTE,
    "5": _ZERO_SECOND,
    "6": _YEAR,
}


@dataclasses.dataclass(frozen=True)
class _Chunk:
    kind: str
    digits: int = 0  # of a fractional second
    separator: str = "."  # of a fractional second


def _next_chunk(layout: str) -> tuple[str, _Chunk | None, str]:
    """Go's ``nextStdChunk``: the text before the first element, the element, the text after."""
    n = len(layout)
    for i, c in enumerate(layout):
        rest = layout[i:]
        if c == "J" and rest.startswith("Jan"):
            if rest.startswith("January"):
                return layout[:i], _Chunk(_LONG_MONTH), layout[i + 7 :]
            if not _starts_lower(layout[i + 3 :]):
                return layout[:i], _Chunk(_MONTH), layout[i + 3 :]
        elif c == "M" and n >= i + 3:
            if rest.startswith("Mon"):
                if rest.startswith("Monday"):
                    return layout[:i], _Chunk(_LONG_WEEKDAY), layout[i + 6 :]
                if not _starts_lower(layout[i + 3 :]):
                    return layout[:i], _Chunk(_WEEKDAY), layout[i + 3 :]
            if rest.startswith("MST"):
                return layout[:i], _Chunk(_TZ), layout[i + 3 :]
        elif c == "0":
            if n >= i + 2 and "1" <= layout[i + 1] <= "6":
                return layout[:i], _Chunk(_STD0X[layout[i + 1]]), layout[i + 2 :]
            if rest.startswith("002"):
                return layout[:i], _Chunk(_ZERO_YEARDAY), layout[i + 3 :]
        elif c == "1":
            if rest.startswith("15"):
                return layout[:i], _Chunk(_HOUR), layout[i + 2 :]
            return layout[:i], _Chunk(_NUM_MONTH), layout[i + 1 :]
        elif c == "2":
            if rest.startswith("2006"):
                return layout[:i], _Chunk(_LONG_YEAR), layout[i + 4 :]
            return layout[:i], _Chunk(_DAY), layout[i + 1 :]
        elif c == "_":
            if rest.startswith("_2"):
                if rest.startswith("_2006"):
                    return layout[: i + 1], _Chunk(_LONG_YEAR), layout[i + 5 :]
                return layout[:i], _Chunk(_UNDER_DAY), layout[i + 2 :]
            if rest.startswith("__2"):
                return layout[:i], _Chunk(_UNDER_YEARDAY), layout[i + 3 :]
        elif c in "345":
            return layout[:i], _Chunk({"3": _HOUR12, "4": _MINUTE, "5": _SECOND}[c]), layout[i + 1 :]
        elif c == "P" and rest.startswith("PM"):
            return layout[:i], _Chunk(_PM), layout[i + 2 :]
        elif c == "p" and rest.startswith("pm"):
            return layout[:i], _Chunk(_LOWER_PM), layout[i + 2 :]
        elif c in "-Z":
            for name in _NUM_TZ if c == "-" else _ISO_TZ:
                if rest.startswith(name):
                    return layout[:i], _Chunk(name), layout[i + len(name) :]
        elif c in ".," and i + 1 < n and layout[i + 1] in "09":
            ch = layout[i + 1]
            j = i + 1
            while j < n and layout[j] == ch:
                j += 1
            if not (j < n and layout[j].isdigit() and layout[j].isascii()):
                kind = _FRAC0 if ch == "0" else _FRAC9
                return layout[:i], _Chunk(kind, (j - (i + 1)) & 0xFFF, c), layout[j:]
    return layout, None, ""


def _starts_lower(s: str) -> bool:
    return bool(s) and "a" <= s[0] <= "z"


@dataclasses.dataclass(frozen=True)
class Fields:
    """A time broken down in its location: what formatting reads."""

    year: int
    month: int
    day: int
    weekday: int  # 0 is Sunday
    yday: int  # 1..366
    hour: int
    minute: int
    second: int
    nanosecond: int
    zone_name: str
    offset: int  # seconds east of UTC


def format(f: Fields, layout: str) -> str:
    """Go's ``Time.Format`` of the broken-down time ``f``."""
    out: list[str] = []
    while layout:
        prefix, chunk, layout = _next_chunk(layout)
        out.append(prefix)
        if chunk is None:
            break
        out.append(_format_chunk(f, chunk))
    return "".join(out)


def _format_chunk(f: Fields, chunk: _Chunk) -> str:
    kind = chunk.kind
    hour12 = f.hour % 12 or 12
    simple: dict[str, Callable[[], str]] = {
        _YEAR: lambda: _pad(abs(f.year) % 100, 2),
        _LONG_YEAR: lambda: _pad(f.year, 4),
        _MONTH: lambda: LONG_MONTHS[f.month - 1][:3],
        _LONG_MONTH: lambda: LONG_MONTHS[f.month - 1],
        _NUM_MONTH: lambda: str(f.month),
        _ZERO_MONTH: lambda: _pad(f.month, 2),
        _WEEKDAY: lambda: LONG_DAYS[f.weekday][:3],
        _LONG_WEEKDAY: lambda: LONG_DAYS[f.weekday],
        _DAY: lambda: str(f.day),
        _UNDER_DAY: lambda: str(f.day).rjust(2),
        _ZERO_DAY: lambda: _pad(f.day, 2),
        _UNDER_YEARDAY: lambda: str(f.yday).rjust(3),
        _ZERO_YEARDAY: lambda: _pad(f.yday, 3),
        _HOUR: lambda: _pad(f.hour, 2),
        _HOUR12: lambda: str(hour12),
        _ZERO_HOUR12: lambda: _pad(hour12, 2),
        _MINUTE: lambda: str(f.minute),
        _ZERO_MINUTE: lambda: _pad(f.minute, 2),
        _SECOND: lambda: str(f.second),
        _ZERO_SECOND: lambda: _pad(f.second, 2),
        _PM: lambda: "PM" if f.hour >= 12 else "AM",
        _LOWER_PM: lambda: "pm" if f.hour >= 12 else "am",
    }
    if kind in simple:
        return simple[kind]()
    if kind in _ISO_TZ or kind in _NUM_TZ:
        return _format_offset(f.offset, kind)
    if kind == _TZ:
        if f.zone_name:
            return f.zone_name
        zone = _quo(f.offset, 60)
        return ("-" if zone < 0 else "+") + _pad(abs(zone) // 60, 2) + _pad(abs(zone) % 60, 2)
    return _format_fraction(f.nanosecond, chunk)


def _pad(n: int, width: int) -> str:
    """Go's ``appendInt``: the sign, then the digits zero-padded to ``width``."""
    return ("-" if n < 0 else "") + str(abs(n)).rjust(width, "0")


def _format_offset(offset: int, kind: str) -> str:
    if offset == 0 and kind in _ISO_TZ:
        return "Z"
    # Go divides and takes remainders truncating toward zero; the sign comes from whole minutes.
    zone, absolute = _quo(offset, 60), offset
    sign = "+"
    if zone < 0:
        sign, zone, absolute = "-", -zone, -absolute
    text = sign + _pad(zone // 60, 2)
    colon = kind in ("Z07:00", "-07:00", "Z07:00:00", "-07:00:00")
    if colon:
        text += ":"
    if kind not in ("-07", "Z07"):
        text += _pad(zone % 60, 2)
    if kind in ("Z070000", "-070000", "Z07:00:00", "-07:00:00"):
        text += (":" if colon else "") + _pad(absolute - _quo(absolute, 60) * 60, 2)
    return text


def _quo(a: int, b: int) -> int:
    """Go's integer division, truncating toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _format_fraction(nanosecond: int, chunk: _Chunk) -> str:
    trim = chunk.kind == _FRAC9
    if trim and (chunk.digits == 0 or nanosecond == 0):
        return ""
    digits = str(nanosecond).rjust(9, "0")[: chunk.digits]  # at most nine
    text = chunk.separator + digits
    if trim:
        text = text.rstrip("0")
        if text == chunk.separator:
            return ""
    return text


@dataclasses.dataclass
class Parsed:
    """What :func:`parse` read: the date and clock, and the zone the value named, if any.

    ``utc`` means the value said ``Z`` or ``UTC``; ``offset`` is a numeric offset read (None
    when none); ``zone_name`` an abbreviation read (``MST``). The caller resolves them against
    its locations as Go's ``parse`` does.
    """

    year: int = 0
    month: int = 1
    day: int = 1
    hour: int = 0
    minute: int = 0
    second: int = 0
    nanosecond: int = 0
    utc: bool = False
    offset: int | None = None
    zone_name: str = ""


class _BadError(Exception):
    """Go's errBad: the element does not parse; the caller reports it with the layout element."""


def parse(layout: str, value: str) -> Parsed:
    """Read ``value`` by ``layout`` as Go's ``time.parse`` does, up to resolving the zone.

    Raises :class:`~crossfn.errors.GoError` with Go's ``ParseError`` text.
    """
    parsed = _Reader(_latin1(layout), _latin1(value)).run()
    parsed.zone_name = _from_latin1(parsed.zone_name)
    return parsed


class _Reader:
    """One parse: Go's loop over layout chunks, with the state it keeps between them."""

    def __init__(self, layout: str, value: str) -> None:
        self.alayout, self.avalue = layout, value
        self.layout, self.value = layout, value
        self.out = Parsed()
        self.month, self.day, self.yday = -1, -1, -1
        self.am, self.pm = False, False
        self.range_error = ""

    def _error(self, layout_elem: str, value_elem: str, message: str = "") -> errors.GoError:
        value = _quote_bytes(self.avalue)
        if message:
            return errors.GoError(f"parsing time {value}{message}")
        return errors.GoError(
            f"parsing time {value} as {_quote_bytes(self.alayout)}: "
            f"cannot parse {_quote_bytes(value_elem)} as {_quote_bytes(layout_elem)}"
        )

    def run(self) -> Parsed:
        while True:
            prefix, chunk, suffix = _next_chunk(self.layout)
            std = self.layout[len(prefix) : len(self.layout) - len(suffix)]
            try:
                self.value = _skip(self.value, prefix)
            except _BadError:
                raise self._error(prefix, self.value) from None
            if chunk is None:
                if self.value:
                    raise self._error("", self.value, ": extra text: " + _quote_bytes(self.value))
                break
            self.layout = suffix
            hold = self.value
            try:
                self._element(chunk)
            except _BadError:
                if self.range_error:
                    raise self._error(std, self.value, f": {self.range_error} out of range") from None
                raise self._error(std, hold) from None
            if self.range_error:
                raise self._error(std, self.value, f": {self.range_error} out of range")
        return self._finish()

    def _element(self, chunk: _Chunk) -> None:  # noqa: PLR0915 -- one case per layout element, as Go's switch
        kind, out = chunk.kind, self.out
        if kind == _YEAR:
            if len(self.value) < 2:
                raise _BadError
            digits, self.value = self.value[:2], self.value[2:]
            year = _atoi(digits)
            out.year = year + (1900 if year >= 69 else 2000)
        elif kind == _LONG_YEAR:
            if len(self.value) < 4 or not _is_digit(self.value, 0):
                raise _BadError
            digits, self.value = self.value[:4], self.value[4:]
            out.year = _atoi(digits)
        elif kind in (_MONTH, _LONG_MONTH):
            names = [m[:3] for m in LONG_MONTHS] if kind == _MONTH else list(LONG_MONTHS)
            index, self.value = _lookup(names, self.value)
            self.month = index + 1
        elif kind in (_NUM_MONTH, _ZERO_MONTH):
            self.month, self.value = _getnum(self.value, kind == _ZERO_MONTH)
            if not 0 < self.month <= 12:
                self.range_error = "month"
        elif kind in (_WEEKDAY, _LONG_WEEKDAY):
            names = [d[:3] for d in LONG_DAYS] if kind == _WEEKDAY else list(LONG_DAYS)
            _, self.value = _lookup(names, self.value)
        elif kind in (_DAY, _UNDER_DAY, _ZERO_DAY):
            if kind == _UNDER_DAY and self.value[:1] == " ":
                self.value = self.value[1:]
            self.day, self.value = _getnum(self.value, kind == _ZERO_DAY)
        elif kind in (_UNDER_YEARDAY, _ZERO_YEARDAY):
            for _ in range(2):
                if kind == _UNDER_YEARDAY and self.value[:1] == " ":
                    self.value = self.value[1:]
            self.yday, self.value = _getnum3(self.value, kind == _ZERO_YEARDAY)
        elif kind == _HOUR:
            out.hour, self.value = self._getnum_checked(False, 23, "hour")
        elif kind in (_HOUR12, _ZERO_HOUR12):
            out.hour, self.value = self._getnum_checked(kind == _ZERO_HOUR12, 12, "hour")
        elif kind in (_MINUTE, _ZERO_MINUTE):
            out.minute, self.value = self._getnum_checked(kind == _ZERO_MINUTE, 59, "minute")
        elif kind in (_SECOND, _ZERO_SECOND):
            self._second(kind == _ZERO_SECOND)
        elif kind in (_PM, _LOWER_PM):
            if len(self.value) < 2:
                raise _BadError
            mark, self.value = self.value[:2], self.value[2:]
            pm, am = ("PM", "AM") if kind == _PM else ("pm", "am")
            if mark not in (pm, am):
                raise _BadError
            self.pm, self.am = self.pm or mark == pm, self.am or mark == am
        elif kind in _ISO_TZ or kind in _NUM_TZ:
            self._offset(kind)
        elif kind == _TZ:
            self._zone_name()
        elif kind == _FRAC0:
            ndigit = 1 + chunk.digits
            if len(self.value) < ndigit:
                raise _BadError
            out.nanosecond = self._nanoseconds(ndigit)
            self.value = self.value[ndigit:]
        else:  # _FRAC9
            if len(self.value) < 2 or self.value[0] not in ".," or not _is_digit(self.value, 1):
                return
            i = 0
            while i + 1 < len(self.value) and _is_digit(self.value, i + 1):
                i += 1
            out.nanosecond = self._nanoseconds(1 + i)
            self.value = self.value[1 + i :]

    def _getnum_checked(self, fixed: bool, most: int, name: str) -> tuple[int, str]:
        n, rest = _getnum(self.value, fixed)
        if n > most:
            self.range_error = name
        return n, rest

    def _second(self, fixed: bool) -> None:
        self.out.second, self.value = _getnum(self.value, fixed)
        if self.out.second >= 60:
            self.range_error = "second"
            return
        # A fractional second in the value but not in the layout is read anyway.
        if len(self.value) >= 2 and self.value[0] in ".," and _is_digit(self.value, 1):
            _, following, _ = _next_chunk(self.layout)
            if following is not None and following.kind in (_FRAC0, _FRAC9):
                return
            n = 2
            while n < len(self.value) and _is_digit(self.value, n):
                n += 1
            self.out.nanosecond = self._nanoseconds(n)
            self.value = self.value[n:]

    def _nanoseconds(self, nbytes: int) -> int:
        """Go's ``parseNanoseconds``: at most nine digits count, the rest are dropped."""
        value = self.value
        if value[0] not in ".,":
            raise _BadError
        if nbytes > 10:
            value, nbytes = value[:10], 10
        ns: int = _atoi(value[1:nbytes])
        if ns < 0:
            self.range_error = "fractional second"
            return 0
        scale: int = 10 ** (10 - nbytes)
        return ns * scale

    def _offset(self, kind: str) -> None:
        value = self.value
        if kind in _ISO_TZ and value[:1] == "Z":
            self.value = value[1:]
            self.out.utc = True
            return
        if kind in ("Z07:00", "-07:00"):
            if len(value) < 6 or value[3] != ":":
                raise _BadError
            sign, hh, mm, ss, self.value = value[0], value[1:3], value[4:6], "00", value[6:]
        elif kind in ("-07", "Z07"):
            if len(value) < 3:
                raise _BadError
            sign, hh, mm, ss, self.value = value[0], value[1:3], "00", "00", value[3:]
        elif kind in ("Z07:00:00", "-07:00:00"):
            if len(value) < 9 or value[3] != ":" or value[6] != ":":
                raise _BadError
            sign, hh, mm, ss, self.value = value[0], value[1:3], value[4:6], value[7:9], value[9:]
        elif kind in ("Z070000", "-070000"):
            if len(value) < 7:
                raise _BadError
            sign, hh, mm, ss, self.value = value[0], value[1:3], value[3:5], value[5:7], value[7:]
        else:
            if len(value) < 5:
                raise _BadError
            sign, hh, mm, ss, self.value = value[0], value[1:3], value[3:5], "00", value[5:]
        hours = minutes = seconds = 0
        bad = False
        try:
            hours = _getnum(hh, True)[0]
            minutes = _getnum(mm, True)[0]
            seconds = _getnum(ss, True)[0]
        except _BadError:
            bad = True
        # Go's range tests use > rather than >=: people write offsets of 24 hours or 60 minutes.
        if hours > 24:
            self.range_error = "time zone offset hour"
        if minutes > 60:
            self.range_error = "time zone offset minute"
        if seconds > 60:
            self.range_error = "time zone offset second"
        offset = (hours * 60 + minutes) * 60 + seconds
        self.out.offset = -offset if sign == "-" else offset
        if bad or sign not in "+-":
            raise _BadError

    def _zone_name(self) -> None:
        if self.value.startswith("UTC"):
            self.out.utc = True
            self.value = self.value[3:]
            return
        n = _time_zone_length(self.value)
        if not n:
            raise _BadError
        self.out.zone_name, self.value = self.value[:n], self.value[n:]

    def _finish(self) -> Parsed:
        out = self.out
        if self.pm and out.hour < 12:
            out.hour += 12
        elif self.am and out.hour == 12:
            out.hour = 0
        if self.yday >= 0:
            self._from_yday()
        else:
            out.month = self.month if self.month >= 0 else 1
            out.day = self.day if self.day >= 0 else 1
        if out.day < 1 or out.day > days_in(out.month, out.year):
            raise self._error("", self.value, ": day out of range")
        return out

    def _from_yday(self) -> None:
        out, yday = self.out, self.yday
        month = day = 0
        if is_leap(out.year):
            if yday == 31 + 29:
                month, day = 2, 29
            elif yday > 31 + 29:
                yday -= 1
        if yday < 1 or yday > 365:
            raise self._error("", self.value, ": day-of-year out of range")
        if month == 0:
            month = (yday - 1) // 31 + 1
            if _DAYS_BEFORE[month] < yday:
                month += 1
            day = yday - _DAYS_BEFORE[month - 1]
        if self.month >= 0 and self.month != month:
            raise self._error("", self.value, ": day-of-year does not match month")
        if self.day >= 0 and self.day != day:
            raise self._error("", self.value, ": day-of-year does not match day")
        out.month, out.day = month, day


_DAYS_BEFORE = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365)


def is_leap(year: int) -> bool:
    """Whether ``year`` is a Gregorian leap year."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in(month: int, year: int) -> int:
    """The days of ``month`` (1..12) in ``year``."""
    if month == 2 and is_leap(year):
        return 29
    return _DAYS_BEFORE[month] - _DAYS_BEFORE[month - 1]


def _is_digit(s: str, i: int) -> bool:
    return i < len(s) and "0" <= s[i] <= "9"


def _getnum(s: str, fixed: bool) -> tuple[int, str]:
    if not _is_digit(s, 0):
        raise _BadError
    if not _is_digit(s, 1):
        if fixed:
            raise _BadError
        return int(s[0]), s[1:]
    return int(s[:2]), s[2:]


def _getnum3(s: str, fixed: bool) -> tuple[int, str]:
    i = 0
    while i < 3 and _is_digit(s, i):
        i += 1
    if i == 0 or (fixed and i != 3):
        raise _BadError
    return int(s[:i]), s[i:]


def _atoi(s: str) -> int:
    """Go's time-internal ``atoi``: an optional sign and digits, nothing else (``""`` is 0)."""
    negative = s[:1] == "-"
    body = s[1:] if s[:1] in ("-", "+") else s
    if not all("0" <= c <= "9" for c in body) or len(body.lstrip("0")) > 18:
        raise _BadError
    n = int(body or "0")
    return -n if negative else n


def _lookup(names: list[str], value: str) -> tuple[int, str]:
    """Go's ``lookup``: a name at the start of ``value``, compared ignoring ASCII case."""
    for i, name in enumerate(names):
        if (
            len(value) >= len(name)
            and value[: len(name)].lower() == name.lower()
            and value[: len(name)].isascii()
        ):
            return i, value[len(name) :]
    raise _BadError


def _skip(value: str, prefix: str) -> str:
    """Go's ``skip``: ``prefix`` off the front of ``value``, a run of spaces matching any run."""
    while prefix:
        if prefix[0] == " ":
            if value and value[0] != " ":
                raise _BadError
            prefix, value = prefix.lstrip(" "), value.lstrip(" ")
            continue
        if not value or value[0] != prefix[0]:
            raise _BadError
        prefix, value = prefix[1:], value[1:]
    return value


def _time_zone_length(value: str) -> int:
    """Go's ``parseTimeZone``: the length of a zone abbreviation at the start of ``value``, 0 if none."""
    if len(value) < 3:
        return 0
    if value[:4] in ("ChST", "MeST"):
        return 4
    if value[:3] == "GMT":
        return 3 + _signed_offset_length(value[3:]) if len(value) > 3 else 3
    if value[0] in "+-":
        return _signed_offset_length(value)
    upper = 0
    while upper < 6 and upper < len(value) and "A" <= value[upper] <= "Z":
        upper += 1
    if upper == 5 and value[4] == "T":
        return 5
    if upper == 4 and (value[3] == "T" or value[:4] == "WITA"):
        return 4
    return 3 if upper == 3 else 0


def _signed_offset_length(value: str) -> int:
    """Go's ``parseSignedOffset``: a sign and hours up to 23, else 0."""
    if not value or value[0] not in "+-":
        return 0
    digits = 0
    while 1 + digits < len(value) and "0" <= value[1 + digits] <= "9":
        digits += 1
    significant = value[1 : 1 + digits].lstrip("0")
    if not digits or len(significant) > 2 or int(significant or "0") > 23:
        return 0
    return 1 + digits


def quote(s: str) -> str:
    """The ``time`` package's own quoting of a Go string: printable ASCII as is (``"`` and ``\\``
    escaped), every other byte as ``\\xNN``."""
    return _quote_bytes(_latin1(s))


def _quote_bytes(s: str) -> str:
    """:func:`quote` of a byte string held one byte per character."""
    out = ['"']
    for c in s:
        if " " <= c < "\x80":
            out.append("\\" + c if c in '"\\' else c)
        else:
            out.append(f"\\x{ord(c):02x}")
    out.append('"')
    return "".join(out)


def _latin1(s: str) -> str:
    """A Go string as one character per byte, so that parsing slices bytes as Go does."""
    return s.encode("utf-8", "surrogateescape").decode("latin-1") if not s.isascii() else s


def _from_latin1(s: str) -> str:
    return s.encode("latin-1").decode("utf-8", "surrogateescape") if not s.isascii() else s
