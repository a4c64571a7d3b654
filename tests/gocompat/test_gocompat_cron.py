"""robfig/cron v3's ParseStandard and Next (upstream ops-7): spec_test.go's and parser_test.go's cases, five fields."""

from __future__ import annotations

import datetime

import pytest

from crossfn import errors
from crossfn.gocompat import cron


def _t(text: str) -> datetime.datetime:
    """``2012-07-09 14:45`` (UTC) or an RFC 3339 time with its offset."""
    if "T" in text:
        return datetime.datetime.fromisoformat(text)
    return datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("now", "spec", "want"),
    [
        pytest.param("2012-07-09 14:45", "0/15 * * * *", "2012-07-09 15:00", id="Step"),
        pytest.param("2012-07-09 14:59", "0/15 * * * *", "2012-07-09 15:00", id="NextMinute"),
        pytest.param("2012-07-09 14:59:59", "0/15 * * * *", "2012-07-09 15:00", id="SecondsDropped"),
        pytest.param("2012-07-09 15:45", "20-35/15 * * * *", "2012-07-09 16:20", id="RangeStepWraps"),
        pytest.param("2012-07-09 23:46", "*/15 * * * *", "2012-07-10 00:00", id="WrapDay"),
        pytest.param("2012-07-09 23:45", "20-35/15 * * * *", "2012-07-10 00:20", id="WrapDayRange"),
        pytest.param("2012-07-09 23:35", "0 0 9 Apr-Oct ?", "2012-08-09 00:00", id="MonthRange"),
        pytest.param("2012-07-09 23:35", "0 0 */5 Apr,Aug,Oct Mon", "2012-08-01 00:00", id="DomOrDow"),
        pytest.param("2012-07-09 23:35", "0 0 */5 Oct Mon", "2012-10-01 00:00", id="WrapMonth"),
        pytest.param("2012-07-09 23:35", "0 0 * Feb Mon", "2013-02-04 00:00", id="WrapYear"),
        pytest.param("2012-07-09 23:35", "0 0 * Feb Mon/2", "2013-02-01 00:00", id="DowStep"),
        pytest.param("2012-12-31 23:59:45", "* * * * *", "2013-01-01 00:00", id="NewYear"),
        pytest.param("2012-07-09 23:35", "0 0 29 Feb ?", "2016-02-29 00:00", id="LeapDay"),
        pytest.param("2026-03-01 12:00", "* * * * *", "2026-03-01 12:01", id="EveryMinuteIsAfter"),
        pytest.param("2026-03-01 12:00", "@hourly", "2026-03-01 13:00", id="Hourly"),
        pytest.param("2026-03-01 12:00", "@daily", "2026-03-02 00:00", id="Daily"),
        pytest.param("2026-03-01 12:00", "@weekly", "2026-03-08 00:00", id="WeeklyOnSunday"),
        pytest.param("2026-03-01 12:00", "@monthly", "2026-04-01 00:00", id="Monthly"),
        pytest.param("2026-03-01 12:00", "@annually", "2027-01-01 00:00", id="Annually"),
        pytest.param("2026-03-01 12:00:30.5", "@every 90s", "2026-03-01 12:02:00", id="EveryFromTheSecond"),
        pytest.param("2026-03-01 12:00", "@every 100ms", "2026-03-01 12:00:01", id="EveryAtLeastASecond"),
        pytest.param(
            "2012-03-11T00:00:00-05:00", "TZ=America/New_York 30 2 11 Mar ?", "2013-03-11T02:30:00-04:00",
            id="SpringForwardSkipsAMissingTime",
        ),
        pytest.param(
            "2012-03-11T01:00:00-05:00", "CRON_TZ=America/New_York 0 * * * ?", "2012-03-11T03:00:00-04:00",
            id="SpringForwardHourly",
        ),
        pytest.param(
            "2012-11-04T01:00:00-04:00", "TZ=America/New_York 0 1 * * ?", "2012-11-04T01:00:00-05:00",
            id="FallBackRepeatsAnHour",
        ),
    ],
)  # fmt: skip
def test_next(now: str, spec: str, want: str) -> None:
    got = cron.parse_standard(spec).next(_t(now))
    assert got == _t(want), f"{spec} after {now}"


def test_no_time_within_five_years() -> None:
    assert cron.parse_standard("0 0 30 Feb *").next(_t("2026-01-01 00:00")) is None, "Go's zero time"


def test_next_keeps_the_given_zone() -> None:
    berlin = datetime.timezone(datetime.timedelta(hours=1))
    got = cron.parse_standard("0 2 * * *").next(datetime.datetime(2026, 3, 1, 12, tzinfo=berlin))
    assert got is not None and got.utcoffset() == datetime.timedelta(hours=1) and got.hour == 2


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        pytest.param("", "empty spec string", id="Empty"),
        pytest.param("bad", "expected exactly 5 fields, found 1: [bad]", id="OneField"),
        pytest.param("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]", id="SixFields"),
        pytest.param("61 * * * *", "end of range (61) above maximum (59): 61", id="AboveMaximum"),
        pytest.param("* * 0 * *", "beginning of range (0) below minimum (1): 0", id="BelowMinimum"),
        pytest.param("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1", id="Backwards"),
        pytest.param("1-2-3 * * * *", "too many hyphens: 1-2-3", id="Hyphens"),
        pytest.param("*/2/3 * * * *", "too many slashes: */2/3", id="Slashes"),
        pytest.param("*/0 * * * *", "step of range should be a positive number: */0", id="ZeroStep"),
        pytest.param("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax', id="NotANumber"),
        pytest.param("* * * * foo", 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax', id="BadName"),
        pytest.param("@fortnightly", "unrecognized descriptor: @fortnightly", id="UnknownDescriptor"),
        pytest.param("@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"', id="EveryNoUnit"),
        pytest.param("TZ=Mars/Olympus * * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus", id="BadZone"),
        pytest.param("TZ=/etc/passwd * * * * *", "provided bad location /etc/passwd: time: invalid location name",
                     id="ZonePath"),
        pytest.param("CRON_TZ=../../etc/passwd * * * * *",
                     "provided bad location ../../etc/passwd: time: invalid location name", id="ZoneClimbs"),
        pytest.param("TZ=" + "a" * 300 + " * * * * *", f"provided bad location {'a' * 300}: unknown time zone {'a' * 300}",
                     id="ZoneNameTooLongForAFile"),
    ],
)  # fmt: skip
def test_parse_errors(spec: str, want: str) -> None:
    with pytest.raises(errors.GoError) as exc:
        cron.parse_standard(spec)
    assert str(exc.value) == want


def test_local_zone_is_the_given_times() -> None:
    """``TZ=Local`` is robfig's time.Local: the zone of the time given to Next, as with no TZ= at all."""
    now = datetime.datetime(2026, 3, 1, 12, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    assert cron.parse_standard("TZ=Local 0 2 * * *").next(now) == cron.parse_standard("0 2 * * *").next(now)


def test_names_are_case_insensitive() -> None:
    assert cron.parse_standard("0 0 * JAN SUN") == cron.parse_standard("0 0 * 1 0")
