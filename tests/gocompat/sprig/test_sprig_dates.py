"""Sprig's date functions: Sprig's date_test.go cases, on a fixed clock."""

from __future__ import annotations

from typing import Any

import pytest
from sprigcases import NOW, G, call, func_map, show

from crossfn import errors
from crossfn.gocompat import time as gotime

JUNE_2019 = gotime.parse("02 Jan 06 15:04:05 MST", "13 Jun 19 20:39:39 GMT")
"""TestUnixEpoch's and TestDateInZone's time."""

CASES = [
    pytest.param(
        "date",
        ("02/01/2006", call("toDate", "2006-01-02", "2017-12-31")),
        "31/12/2017",
        "TestToDate",
        id="ToDate",
    ),
    pytest.param("unixEpoch", (JUNE_2019,), "1560458379", "TestUnixEpoch", id="UnixEpoch"),
    pytest.param(
        "date_in_zone",
        ("02 Jan 06 15:04 -0700", JUNE_2019, "UTC"),
        "13 Jun 19 20:39 +0000",
        "TestDateInZone: a time",
        id="InZoneTime",
    ),
    pytest.param(
        "dateInZone",
        ("02 Jan 06 15:04 -0700", 1560458379, "UTC"),
        "13 Jun 19 20:39 +0000",
        "TestDateInZone: an int64",
        id="InZoneInt64",
    ),
    pytest.param(
        "dateInZone",
        ("02 Jan 06 15:04 -0700", G(1560458379), "UTC"),
        "13 Jun 19 20:39 +0000",
        "TestDateInZone: an int",
        id="InZoneInt",
    ),
    pytest.param(
        "dateInZone",
        ("02 Jan 06 15:04 -0700", JUNE_2019, "foobar"),
        "13 Jun 19 20:39 +0000",
        "TestDateInZone: a bad zone is UTC",
        id="InZoneBad",
    ),
    pytest.param(
        "dateInZone",
        ("02 Jan 06 15:04 -0700", "", "UTC"),
        "14 Nov 23 22:13 +0000",
        "TestDateInZone: not a time is now",
        id="InZoneNow",
    ),
    pytest.param(
        "dateInZone", ("15:04 MST", JUNE_2019, "Asia/Tokyo"), "05:39 JST", "a real zone", id="InZoneTokyo"
    ),
    pytest.param(
        "date",
        ("2006-01-02 15:04 MST", 0),
        "1970-01-01 00:00 UTC",
        "Local is UTC, as in the function's container",
        id="DateLocal",
    ),
    pytest.param(
        "htmlDate",
        (G(0),),
        "1970-01-01",
        "TestHtmlDate (skipped upstream: it depends on the machine's zone)",
        id="HtmlDate",
    ),
    pytest.param(
        "htmlDateInZone", (G(86399), "Asia/Tokyo"), "1970-01-02", "htmlDateInZone", id="HtmlDateInZone"
    ),
    pytest.param("duration", ("61",), "1m1s", "TestDuration", id="Duration"),
    pytest.param("duration", ("3600",), "1h0m0s", "TestDuration: an hour", id="DurationHour"),
    pytest.param("duration", ("93784",), "26h3m4s", "TestDuration: no days", id="DurationDay"),
    pytest.param("duration", (95,), "1m35s", "an int64 of seconds", id="DurationInt64"),
    pytest.param("duration", (G(95),), "0s", "an int is neither string nor int64", id="DurationInt"),
    pytest.param("duration", ("x",), "0s", "a bad string is 0", id="DurationBad"),
    pytest.param("durationRound", ("2h5s",), "2h", "TestDurationRound", id="Round"),
    pytest.param("durationRound", ("24h5s",), "1d", "TestDurationRound: a day", id="RoundDay"),
    pytest.param("durationRound", ("2400h5s",), "3mo", "TestDurationRound: months", id="RoundMonths"),
    pytest.param("durationRound", ("-8761h",), "1y", "the sign is dropped", id="RoundYear"),
    pytest.param("durationRound", (3 * 10**9,), "3s", "an int64 of nanoseconds", id="RoundInt64"),
    pytest.param("durationRound", (NOW.add(-90 * 10**9),), "1m", "a time: how long ago", id="RoundTime"),
    pytest.param("durationRound", ("1s",), "0s", "exactly a unit is not more than it", id="RoundExact"),
    pytest.param("ago", (NOW.add(-125 * 10**9),), "2m5s", "TestAgo", id="Ago"),
    pytest.param(
        "ago", (NOW.add(-(2 * 3600 + 34 * 60 + 17) * 10**9),), "2h34m17s", "TestAgo: hours", id="AgoHours"
    ),
    pytest.param("ago", (NOW.add(5 * 10**9),), "-5s", "TestAgo: the future", id="AgoFuture"),
    pytest.param(
        "now",
        (),
        "2023-11-14 22:13:20.123456789 +0000 UTC m=+0.001000000",
        "now prints with its monotonic reading",
        id="Now",
    ),
    pytest.param(
        "dateModify",
        ("-1.5h", JUNE_2019),
        "2019-06-13 19:09:39 +0000 GMT",
        "dateModify: the parsed GMT zone stays",
        id="Modify",
    ),
    pytest.param(
        "date_modify",
        ("bad", JUNE_2019),
        "2019-06-13 20:39:39 +0000 GMT",
        "a bad duration leaves the time",
        id="ModifyBad",
    ),
    pytest.param(
        "toDate",
        ("2006-01-02", "bad"),
        "0001-01-01 00:00:00 +0000 UTC",
        "a bad date is the zero time",
        id="ToDateBad",
    ),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), CASES)
def test_dates(name: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    assert show(call(name, *args)) == want, reason


ERRORS = [
    pytest.param("mustDateModify", ("bad", JUNE_2019), 'time: invalid duration "bad"', id="Modify"),
    pytest.param(
        "must_date_modify", ("1x", JUNE_2019), 'time: unknown unit "x" in duration "1x"', id="ModifyUnit"
    ),
    pytest.param(
        "mustToDate",
        ("2006-01-02", "2017-13-01"),
        'parsing time "2017-13-01": month out of range',
        id="ToDate",
    ),
]


@pytest.mark.parametrize(("name", "args", "message"), ERRORS)
def test_errors(name: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(errors.GoError) as raised:
        call(name, *args)
    assert str(raised.value) == message


def test_now_is_injected() -> None:
    """now, ago and date of a non-time read the injected clock."""
    later = gotime.unix(2_000_000_000)
    funcs = func_map(now=later)
    assert funcs["now"]() == later
    assert funcs["date"]("2006", "not a time") == "2033"
    assert funcs["ago"](gotime.unix(1_999_999_000)) == "16m40s"
