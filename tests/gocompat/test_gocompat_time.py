"""Go's time.ParseDuration: values and Go's error texts."""

from __future__ import annotations

import pytest

from crossfn import errors
from crossfn.gocompat import time as gotime

VALUES = [
    pytest.param("1m", 60.0, "one minute, Crossplane's poll interval default", id="Minute"),
    pytest.param("1m30s", 90.0, "units add up in order", id="Compound"),
    pytest.param("1.5h", 5400.0, "a fraction scales its unit", id="Fraction"),
    pytest.param("300ms", 0.3, "milliseconds", id="Milliseconds"),
    pytest.param(".5s", 0.5, "a number may start with its point", id="LeadingPoint"),
    pytest.param("2.s", 2.0, "a number may end with its point", id="TrailingPoint"),
    pytest.param("-2s", -2.0, "a leading minus negates", id="Negative"),
    pytest.param("+3s", 3.0, "a leading plus is allowed", id="Plus"),
    pytest.param("0", 0.0, "a bare zero needs no unit", id="Zero"),
    pytest.param("10µs", 1e-5, "the micro sign", id="MicroSign"),
    pytest.param("10μs", 1e-5, "the Greek mu", id="GreekMu"),
    pytest.param(
        "2562047h", 2562047 * 3600.0, "the whole hours an int64 of nanoseconds holds", id="LargestHours"
    ),
]


@pytest.mark.parametrize(("text", "seconds", "reason"), VALUES)
def test_parse_duration(text: str, seconds: float, reason: str) -> None:
    assert gotime.parse_duration(text) == pytest.approx(seconds), reason


ERRORS = [
    pytest.param("", 'time: invalid duration ""', "empty is not a duration", id="Empty"),
    pytest.param("1", 'time: missing unit in duration "1"', "a number needs a unit", id="MissingUnit"),
    pytest.param("1d", 'time: unknown unit "d" in duration "1d"', "days are not a Go unit", id="UnknownUnit"),
    pytest.param("m", 'time: invalid duration "m"', "a unit needs a number", id="NoNumber"),
    pytest.param(".s", 'time: invalid duration ".s"', "a lone point is no number", id="LonePoint"),
    pytest.param("-", 'time: invalid duration "-"', "a sign alone", id="SignOnly"),
    pytest.param(
        "2562048h", 'time: invalid duration "2562048h"', "beyond an int64 of nanoseconds", id="Overflow"
    ),
    pytest.param(
        "-2562048h", 'time: invalid duration "-2562048h"', "beyond it below zero too", id="NegativeOverflow"
    ),
    pytest.param(
        "9" * 400 + "s",
        f'time: invalid duration "{"9" * 400}s"',
        "too long for a float, not only an int64",
        id="Huge",
    ),
]


@pytest.mark.parametrize(("text", "message", "reason"), ERRORS)
def test_parse_duration_errors(text: str, message: str, reason: str) -> None:
    with pytest.raises(errors.GoError) as got:
        gotime.parse_duration(text)
    assert str(got.value) == message, reason
