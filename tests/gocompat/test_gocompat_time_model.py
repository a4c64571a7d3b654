"""Go's time.Time in Python: Format and Parse with Go's layouts and error texts (Go's format_test.go
cases), Duration.String and Round, Date's normalisation, and the methods templates call."""

from __future__ import annotations

import pytest

from crossfn import errors
from crossfn.gocompat import fmt, json
from crossfn.gocompat import time as gotime

LA = gotime.load_location("America/Los_Angeles")
FEB_2009 = gotime.unix(0, 1233810057012345600).in_location(LA)
"""Go's TestFormat time: Thu Feb  4 21:00:57.012345600 PST 2009."""

FORMATS = [
    pytest.param("Mon Jan _2 15:04:05 2006", "Wed Feb  4 21:00:57 2009", id="ANSIC"),
    pytest.param("Mon Jan _2 15:04:05 MST 2006", "Wed Feb  4 21:00:57 PST 2009", id="UnixDate"),
    pytest.param("Mon Jan 02 15:04:05 -0700 2006", "Wed Feb 04 21:00:57 -0800 2009", id="RubyDate"),
    pytest.param("02 Jan 06 15:04 MST", "04 Feb 09 21:00 PST", id="RFC822"),
    pytest.param("Monday, 02-Jan-06 15:04:05 MST", "Wednesday, 04-Feb-09 21:00:57 PST", id="RFC850"),
    pytest.param("Mon, 02 Jan 2006 15:04:05 MST", "Wed, 04 Feb 2009 21:00:57 PST", id="RFC1123"),
    pytest.param("Mon, 02 Jan 2006 15:04:05 -0700", "Wed, 04 Feb 2009 21:00:57 -0800", id="RFC1123Z"),
    pytest.param("2006-01-02T15:04:05Z07:00", "2009-02-04T21:00:57-08:00", id="RFC3339"),
    pytest.param(
        "2006-01-02T15:04:05.999999999Z07:00", "2009-02-04T21:00:57.0123456-08:00", id="RFC3339Nano"
    ),
    pytest.param("3:04PM", "9:00PM", id="Kitchen"),
    pytest.param("3pm", "9pm", id="LowerPM"),
    pytest.param("3PM", "9PM", id="UpperPM"),
    pytest.param("06 01 02", "09 02 04", id="TwoDigitYear"),
    pytest.param("Hi Janet, the Month is January", "Hi Janet, the Month is February", id="Janet"),
    pytest.param("Jan _2 15:04:05", "Feb  4 21:00:57", id="Stamp"),
    pytest.param("Jan _2 15:04:05.000", "Feb  4 21:00:57.012", id="StampMilli"),
    pytest.param("Jan _2 15:04:05.000000", "Feb  4 21:00:57.012345", id="StampMicro"),
    pytest.param("Jan _2 15:04:05.000000000", "Feb  4 21:00:57.012345600", id="StampNano"),
    pytest.param("Jan  2 002 __2 2", "Feb  4 035  35 4", id="YearDay"),
    pytest.param("15:04:05,000", "21:00:57,012", id="CommaFraction"),
    pytest.param(
        "2006-01-02 15:04:05.999999999 -0700 MST", "2009-02-04 21:00:57.0123456 -0800 PST", id="String"
    ),
]


@pytest.mark.parametrize(("layout", "want"), FORMATS)
def test_format(layout: str, want: str) -> None:
    """Go's TestFormat, in America/Los_Angeles."""
    assert FEB_2009.format(layout) == want


@pytest.mark.parametrize(
    ("year", "want"),
    [
        pytest.param(-100001, "-100001.01.01", id="-100001"),
        pytest.param(-1, "-0001.01.01", id="-1"),
        pytest.param(0, "0000.01.01", id="0"),
        pytest.param(99, "0099.01.01", id="99"),
        pytest.param(10001, "10001.01.01", id="10001"),
    ],
)
def test_format_years(year: int, want: str) -> None:
    """Go's TestFormatShortYear: the sign, then at least four digits, outside datetime's range too."""
    assert gotime.date(year, 1, 1).format("2006.01.02") == want


def test_format_edges() -> None:
    """Single digits, noon and midnight, and an offset without a zone name."""
    assert gotime.date(2001, 2, 3, (4, 5, 6, 700000000)).format("3:4:5") == "4:5:6"
    assert gotime.date(0, 1, 1, (12, 0, 0, 0)).format("3:04PM") == "12:00PM"
    assert gotime.date(0, 1, 1).format("03:04PM") == "12:00AM"
    ruby = gotime.parse("Mon Jan 02 15:04:05 -0700 2006", "Thu Feb 02 16:10:03 -0500 2006")
    assert ruby.format("Mon Jan _2 15:04:05 MST 2006") == "Thu Feb  2 16:10:03 -0500 2006"
    lmt = gotime.fixed_zone("LMT", -(34 * 60 + 8))
    assert gotime.date(1871, 1, 1, (5, 33, 2, 0), lmt).format("2006-01-02T15:04:05-07:00:00") == (
        "1871-01-01T05:33:02-00:34:08"
    )


PARSES = [
    pytest.param("Mon Jan _2 15:04:05 2006", "Thu Feb  4 21:00:57 2010", 0, 0, id="ANSIC"),
    pytest.param("Mon Jan _2 15:04:05 MST 2006", "Thu Feb  4 21:00:57 PST 2010", 0, None, id="UnixDate"),
    pytest.param(
        "Mon Jan 02 15:04:05 -0700 2006", "Thu Feb 04 21:00:57 -0800 2010", 0, -28800, id="RubyDate"
    ),
    pytest.param("2006-01-02T15:04:05Z07:00", "2010-02-04T21:00:57-08:00", 0, -28800, id="RFC3339"),
    pytest.param("2006-01-02 15:04:05-07", "2010-02-04 21:00:57-08", 0, -28800, id="ShortOffset"),
    pytest.param(
        "Mon Jan _2 15:04:05 2006", "Thu Feb  4 21:00:57.01 2010", 10000000, 0, id="OptionalFraction"
    ),
    pytest.param(
        "2006-01-02T15:04:05Z07:00", "2010-02-04T21:00:57.012345678-08:00", 12345678, -28800, id="Nano"
    ),
    pytest.param("Mon Jan _2 15:04:05 2006", "Thu      Feb     4     21:00:57     2010", 0, 0, id="Spaces"),
    pytest.param("Mon Jan _2 15:04:05 2006", "THU FEB 4 21:00:57 2010", 0, 0, id="UpperCase"),
    pytest.param(
        "Mon Jan _2 15:04:05,000 2006", "Thu Feb  4 21:00:57.012 2010", 12000000, 0, id="CommaLayout"
    ),
    pytest.param("2006.01.02.15.04.05.0", "2010.02.04.21.00.57.0", 0, 0, id="Zero1"),
    pytest.param("Mon Jan _2 15:04:05 MST 2006", "Fri Feb  5 05:00:57 GMT-8 2010", 0, -28800, id="GMTOffset"),
    pytest.param(
        "2006-01-02 15:04:05.9999 -0700 MST",
        "2010-02-04 21:00:57.012345678 -0800 PST",
        12345678,
        -28800,
        id="Nines",
    ),
    pytest.param("Jan _2 15:04:05.999", "Feb  4 21:00:57.012300000", 12300000, 0, id="NinesLong"),
    pytest.param("2006-002 15:04:05", "2010-035 21:00:57", 0, 0, id="YearDay"),
    pytest.param("200600204 15:04:05", "201003504 21:00:57", 0, 0, id="YearDayDay"),
]


@pytest.mark.parametrize(("layout", "value", "nsec", "offset"), PARSES)
def test_parse(layout: str, value: str, nsec: int, offset: int | None) -> None:
    """Go's TestParse: each reads Thu Feb 4 21:00:57 2010 (in its zone), with the fraction given."""
    t = gotime.parse(layout, value)
    f = t.fields()
    assert (f.month, f.day, f.hour, f.minute, f.second, f.nanosecond) == (2, 4, 21, 0, 57, nsec)
    if "2010" in value or "10" in value:
        assert f.year in (2010, 0)
    if offset is not None:
        assert f.offset == offset


PARSE_ERRORS = [
    pytest.param(
        "Mon Jan _2 15:04:05 2006",
        "Feb  4 21:00:60 2010",
        'parsing time "Feb  4 21:00:60 2010" as "Mon Jan _2 15:04:05 2006": cannot parse "Feb  4 21:00:60 2010" as "Mon"',
        id="Weekday",
    ),
    pytest.param(
        "Mon Jan _2 15:04:05 2006",
        "Thu Feb  4 21:00:57 @2010",
        'parsing time "Thu Feb  4 21:00:57 @2010" as "Mon Jan _2 15:04:05 2006": cannot parse "@2010" as "2006"',
        id="Year",
    ),
    pytest.param(
        "Mon Jan _2 15:04:05 2006",
        "Thu Feb  4 21:00:60 2010",
        'parsing time "Thu Feb  4 21:00:60 2010": second out of range',
        id="Second",
    ),
    pytest.param(
        "Mon Jan _2 15:04:05 2006",
        "Thu Feb  4 21:61:57 2010",
        'parsing time "Thu Feb  4 21:61:57 2010": minute out of range',
        id="Minute",
    ),
    pytest.param(
        "Mon Jan _2 15:04:05 2006",
        "Thu Feb  4 24:00:60 2010",
        'parsing time "Thu Feb  4 24:00:60 2010": hour out of range',
        id="Hour",
    ),
    pytest.param(
        "Mon Jan _2 15:04:05.000 2006",
        "Thu Feb  4 23:00:59x01 2010",
        'parsing time "Thu Feb  4 23:00:59x01 2010" as "Mon Jan _2 15:04:05.000 2006": cannot parse "x01 2010" as ".000"',
        id="FractionSeparator",
    ),
    pytest.param(
        "Jan _2 15:04:05.000000000",
        "Dec  7 11:22:01.000000",
        'parsing time "Dec  7 11:22:01.000000" as "Jan _2 15:04:05.000000000": cannot parse ".000000" as ".000000000"',
        id="StampNanoShort",
    ),
    pytest.param(
        "Jan _2 15:04:05.000000000",
        "Dec  7 11:22:01.0000000000",
        'parsing time "Dec  7 11:22:01.0000000000": extra text: "0"',
        id="StampNanoLong",
    ),
    pytest.param(
        "2006-01-02T15:04:05Z07:00",
        "2006-01-02T15:04:05Z07:00",
        'parsing time "2006-01-02T15:04:05Z07:00": extra text: "07:00"',
        id="ExtraText",
    ),
    pytest.param(
        "2006-01-02T15:04:05Z07:00",
        "2006-01-02T15:04_abc",
        'parsing time "2006-01-02T15:04_abc" as "2006-01-02T15:04:05Z07:00": cannot parse "_abc" as ":"',
        id="Separator",
    ),
    pytest.param(
        "2006-01-02T15:04:05Z07:00",
        "2006-01-02T15:04:05_abc",
        'parsing time "2006-01-02T15:04:05_abc" as "2006-01-02T15:04:05Z07:00": cannot parse "_abc" as "Z07:00"',
        id="Zone",
    ),
    pytest.param(
        "2006-01-02T15:04:05Z07:00",
        "2010-02-04T21:00:67.012345678-08:00",
        'parsing time "2010-02-04T21:00:67.012345678-08:00": second out of range',
        id="SecondFraction",
    ),
    pytest.param(
        "_2 Jan 06 15:04 MST",
        "4 --- 00 00:00 GMT",
        'parsing time "4 --- 00 00:00 GMT" as "_2 Jan 06 15:04 MST": cannot parse "--- 00 00:00 GMT" as "Jan"',
        id="Month",
    ),
    pytest.param(
        "Jan _2 002 2006",
        "Feb  4 034 2006",
        'parsing time "Feb  4 034 2006": day-of-year does not match day',
        id="YearDayDay",
    ),
    pytest.param(
        "Jan _2 002 2006",
        "Feb  4 004 2006",
        'parsing time "Feb  4 004 2006": day-of-year does not match month',
        id="YearDayMonth",
    ),
    pytest.param(
        "Mon Jan _2 15:04:05 2006",
        "Thu Feb 29 21:00:57 2010",
        'parsing time "Thu Feb 29 21:00:57 2010": day out of range',
        id="Day",
    ),
    pytest.param("01-02", "13-01", 'parsing time "13-01": month out of range', id="MonthRange"),
    pytest.param(
        "01 MST", "0 MST", 'parsing time "0 MST" as "01 MST": cannot parse "0 MST" as "01"', id="Std0x"
    ),
    pytest.param(
        "2006",
        "é",
        'parsing time "\\xc3\\xa9" as "2006": cannot parse "\\xc3\\xa9" as "2006"',
        id="QuotesBytes",
    ),
]


@pytest.mark.parametrize(("layout", "value", "message"), PARSE_ERRORS)
def test_parse_errors(layout: str, value: str, message: str) -> None:
    """Go's TestParseErrors, with the whole text."""
    with pytest.raises(errors.GoError) as raised:
        gotime.parse(layout, value)
    assert str(raised.value) == message


def test_parse_zones() -> None:
    """A numeric zero offset and the local zone; an unknown abbreviation is a fixed zone with no offset."""
    utc = gotime.parse("2006-01-02 -0700", "2020-01-02 +0000", default=gotime.LOCAL, local=gotime.LOCAL)
    assert utc.loc is gotime.LOCAL
    odd = gotime.parse("2006-01-02 MST", "2020-01-02 XYZ")
    assert odd.format("MST -0700") == "XYZ +0000"
    assert gotime.parse("2006-01-02 MST", "2020-01-02 UTC").loc is gotime.UTC
    for layout, value, offset in (
        ("2006-01-02T15:04:05-070000", "1871-01-01T05:33:02-003408", -(34 * 60 + 8)),
        ("2006-01-02T15:04:05Z07:00:00", "1871-01-01T05:33:02+00:34:08", 34 * 60 + 8),
        ("2006-01-02T15:04:05Z07", "1871-01-01T05:33:02-02", -2 * 60 * 60),
    ):
        assert gotime.parse(layout, value).fields().offset == offset


def test_format_and_parse_round_trip() -> None:
    """Go's TestFormatAndParse on a range of instants."""
    layout = "Mon MST 2006-01-02T15:04:05Z07:00"
    for sec in range(-(10**10), 10**10, 7_777_777_777):
        t = gotime.unix(sec)
        back = gotime.parse(layout, t.format(layout))
        assert (back.sec, back.nsec) == (t.sec, t.nsec)


DURATIONS = [
    pytest.param(0, "0s", id="Zero"),
    pytest.param(1, "1ns", id="Nanosecond"),
    pytest.param(1100, "1.1µs", id="Microseconds"),
    pytest.param(2_200_000, "2.2ms", id="Milliseconds"),
    pytest.param(3_300_000_000, "3.3s", id="Seconds"),
    pytest.param(4 * 60 * 10**9 + 5 * 10**9, "4m5s", id="Minutes"),
    pytest.param(3600 * 10**9, "1h0m0s", id="Hour"),
    pytest.param(-(1 << 63), "-2562047h47m16.854775808s", id="Min"),
    pytest.param((1 << 63) - 1, "2562047h47m16.854775807s", id="Max"),
]


@pytest.mark.parametrize(("ns", "want"), DURATIONS)
def test_duration_string(ns: int, want: str) -> None:
    """Go's durationTests."""
    assert gotime.format_duration(ns) == want
    assert fmt.sprint(gotime.Duration(ns)) == want


def test_parse_duration_exact() -> None:
    """ParseDuration in nanoseconds, fractions through float64 as Go computes them."""
    assert gotime.parse_duration_ns("1.5h") == 5400 * 10**9
    assert gotime.parse_duration_ns("-1m30s") == -90 * 10**9
    assert gotime.parse_duration_ns("9223372036854775807ns") == (1 << 63) - 1
    assert gotime.parse_duration_ns("-9223372036854775808ns") == -(1 << 63)
    assert gotime.parse_duration_ns("0.3333333333333333333h") == 1200000000000
    with pytest.raises(errors.GoError) as raised:
        gotime.parse_duration_ns("1µx")
    assert str(raised.value) == 'time: unknown unit "\\xc2\\xb5x" in duration "1\\xc2\\xb5x"'


def test_round_duration() -> None:
    """Duration.Round: halves away from zero."""
    assert gotime.round_duration(1500 * 10**6, 10**9) == 2 * 10**9
    assert gotime.round_duration(-1500 * 10**6, 10**9) == -2 * 10**9
    assert gotime.round_duration(1499 * 10**6, 10**9) == 10**9
    assert gotime.round_duration(7, 0) == 7


def test_date_normalises() -> None:
    """time.Date: October 32 is November 1, minute 61 the next hour; a zone's offset applies."""
    assert gotime.date(2020, 10, 32).format("2006-01-02") == "2020-11-01"
    assert gotime.date(2020, 13, 1, (24, 61, 0, 0)).format("2006-01-02 15:04") == "2021-01-02 01:01"
    new_york = gotime.load_location("America/New_York")
    summer = gotime.date(2021, 7, 1, (12, 0, 0, 0), new_york)
    assert summer.format("15:04 MST -0700") == "12:00 EDT -0400"
    assert summer.in_location(gotime.UTC).format("15:04") == "16:00"


def test_time_methods() -> None:
    """The methods templates call, with Go's result types."""
    t = gotime.date(2024, 2, 29, (13, 14, 15, 16), gotime.UTC)
    m = t.go_methods()
    assert (m["Year"](), m["YearDay"](), m["Hour"](), m["Nanosecond"]()) == (2024, 60, 13, 16)
    assert fmt.sprint(m["Month"]()) == "February" and m["Month"]() == 2
    assert fmt.sprint(m["Weekday"]()) == "Thursday"
    assert m["AddDate"](0, 0, 1).format("2006-01-02") == "2024-03-01"
    assert m["AddDate"](1, 0, 0).format("2006-01-02") == "2025-03-01"
    assert fmt.sprint(m["Sub"](gotime.date(2024, 2, 29))) == "13h14m15.000000016s"
    assert m["Truncate"](gotime.Duration(3600 * 10**9)).format("15:04:05") == "13:00:00"
    assert m["Round"](gotime.Duration(3600 * 10**9)).format("15:04:05") == "13:00:00"
    assert m["Unix"]() == t.sec
    assert m["IsZero"]() is False
    assert gotime.Time(-62135596800).go_methods()["IsZero"]() is True
    assert fmt.sprint(m["Location"]()) == "UTC"
    assert m["Before"](m["Add"](gotime.Duration(1))) is True


def test_time_printing() -> None:
    """%v is String(), with the monotonic reading; JSON is RFC 3339 and fails outside years 0..9999."""
    t = gotime.Time(0, 5, gotime.LOCAL, 1_500_000_000)
    assert fmt.sprint(t) == "1970-01-01 00:00:00.000000005 +0000 UTC m=+1.500000000"
    assert fmt.sprintf("%T", t) == "time.Time"
    assert json.marshal({"t": t}) == '{"t":"1970-01-01T00:00:00.000000005Z"}'
    with pytest.raises(errors.GoError) as raised:
        json.marshal(gotime.date(10000, 1, 1))
    assert str(raised.value) == "Time.MarshalJSON: year outside of range [0,9999]"


def test_load_location() -> None:
    """UTC, Local and IANA names; anything else is Go's error."""
    assert gotime.load_location("") is gotime.UTC
    assert gotime.load_location("Local") is gotime.LOCAL
    assert gotime.load_location("Europe/Berlin") is gotime.load_location("Europe/Berlin")
    with pytest.raises(errors.GoError) as raised:
        gotime.load_location("foobar")
    assert str(raised.value) == "unknown time zone foobar"
    with pytest.raises(errors.GoError) as invalid:
        gotime.load_location("../etc/passwd")
    assert str(invalid.value) == "time: invalid location name"
