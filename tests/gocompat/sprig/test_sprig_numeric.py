"""Sprig's arithmetic: Sprig's numeric_test.go cases, cast's conversions per version, int64
wrapping, decimal arithmetic, and Go's panics."""

from __future__ import annotations

import math
from typing import Any

import pytest
from sprigcases import G, call, func_map, show

from crossfn.gocompat import gofunc, time, values

CASES = [
    pytest.param("until", (G(5),), "[0 1 2 3 4]", "TestUntil", id="Until"),
    pytest.param("until", (G(-5),), "[0 -1 -2 -3 -4]", "TestUntil: negative", id="UntilNegative"),
    pytest.param("untilStep", (G(0), G(5), G(1)), "[0 1 2 3 4]", "TestUntilStep", id="UntilStep"),
    pytest.param("untilStep", (G(3), G(6), G(1)), "[3 4 5]", "TestUntilStep: offset", id="UntilStepOffset"),
    pytest.param(
        "untilStep", (G(0), G(-10), G(-2)), "[0 -2 -4 -6 -8]", "TestUntilStep: down", id="UntilStepDown"
    ),
    pytest.param(
        "untilStep", (G(3), G(0), G(1)), "[]", "TestUntilStep: wrong direction", id="UntilStepWrong"
    ),
    pytest.param("untilStep", (G(3), G(99), G(0)), "[]", "TestUntilStep: zero step", id="UntilStepZero"),
    pytest.param(
        "untilStep", (G(3), G(99), G(-1)), "[]", "TestUntilStep: negative step up", id="UntilStepNegative"
    ),
    pytest.param(
        "untilStep", (G(3), G(0), G(0)), "[]", "TestUntilStep: zero step down", id="UntilStepZeroDown"
    ),
    pytest.param("biggest", tuple(map(G, (1, 2, 3, 345, 5, 6, 7))), "345", "TestBiggest", id="Biggest"),
    pytest.param("max", (G(345),), "345", "TestBiggest: one", id="MaxOne"),
    pytest.param("maxf", (G(1), G(2), G(3), 345.7, G(5), G(6), G(7)), "345.7", "TestMaxf", id="Maxf"),
    pytest.param("min", tuple(map(G, (1, 2, 3, 345, 5, 6, 7))), "1", "TestMin", id="Min"),
    pytest.param("min", (G(345),), "345", "TestMin: one", id="MinOne"),
    pytest.param("minf", (1.4, G(2), G(3), 345.6, G(5), G(6), G(7)), "1.4", "TestMinf", id="Minf"),
    pytest.param("minf", (G(345),), "345", "TestMinf: one", id="MinfOne"),
    pytest.param("add1", (G(3),), "4", "TestAdd1", id="Add1"),
    pytest.param("add1f", (3.4,), "4.4", "TestAdd1f", id="Add1f"),
    pytest.param("add", (G(1), G(2), G(3)), "6", "TestAdd", id="Add"),
    pytest.param("addf", (1.5, 2.2, G(3)), "6.7", "TestAddf", id="Addf"),
    pytest.param("addf", (0.1, 0.2), "0.3", "decimals, not float64 sums", id="AddfDecimal"),
    pytest.param("div", (G(5), G(4)), "1", "TestDiv", id="Div"),
    pytest.param("div", (G(-7), G(2)), "-3", "Go truncates toward zero", id="DivNegative"),
    pytest.param("mod", (G(-7), G(2)), "-1", "the remainder takes the dividend's sign", id="ModNegative"),
    pytest.param("divf", (G(5), G(4), G(2)), "0.625", "TestDivf", id="Divf"),
    pytest.param("divf", (G(1), G(3)), "0.3333333333333333", "16 decimal places", id="DivfThird"),
    pytest.param("divf", (G(2), G(3)), "0.6666666666666667", "rounded half up", id="DivfTwoThirds"),
    pytest.param("mul", (G(1), "2", G(3), "4"), "24", "TestMul: strings convert", id="Mul"),
    pytest.param("mulf", (1.2, "2.4", G(10), "4"), "115.2", "TestMulf", id="Mulf"),
    pytest.param("sub", (G(14), G(3)), "11", "TestSub", id="Sub"),
    pytest.param("subf", (4.5, G(1), G(3)), "0.5", "TestSubf", id="Subf"),
    pytest.param("ceil", (G(123),), "123", "TestCeil", id="CeilInt"),
    pytest.param("ceil", ("123.01",), "124", "TestCeil: string", id="CeilString"),
    pytest.param("floor", (123.9999,), "123", "TestFloor", id="Floor"),
    pytest.param("floor", ("123.9999",), "123", "TestFloor: string", id="FloorString"),
    pytest.param("round", (123.5555, G(3)), "123.556", "TestRound", id="Round"),
    pytest.param("round", ("123.55555", G(3)), "123.556", "TestRound: string", id="RoundString"),
    pytest.param("round", (123.500001, G(0)), "124", "TestRound: up", id="RoundUp"),
    pytest.param("round", (123.49999999, G(0)), "123", "TestRound: down", id="RoundDown"),
    pytest.param(
        "round", (123.2329999, G(2), 0.3), "123.23", "TestRound: custom threshold", id="RoundThreshold"
    ),
    pytest.param(
        "round", (123.233, G(2), 0.3), "123.24", "TestRound: custom threshold up", id="RoundThresholdUp"
    ),
    pytest.param(
        "round", (-1.5, G(0)), "-2", "a negative fraction is below the threshold", id="RoundNegative"
    ),
    pytest.param("seq", (G(0), G(1), G(3)), "0 1 2 3", "TestSeq", id="SeqStep"),
    pytest.param("seq", (G(0), G(3), G(10)), "0 3 6 9", "TestSeq", id="SeqStep3"),
    pytest.param("seq", (G(3), G(3), G(2)), "", "TestSeq: counting up past", id="SeqEmpty"),
    pytest.param("seq", (G(3), G(-3), G(2)), "3", "TestSeq", id="SeqDown"),
    pytest.param("seq", (), "", "TestSeq: none", id="SeqNone"),
    pytest.param("seq", (G(0), G(4)), "0 1 2 3 4", "TestSeq: two", id="SeqTwo"),
    pytest.param("seq", (G(5),), "1 2 3 4 5", "TestSeq: one", id="SeqOne"),
    pytest.param("seq", (G(-5),), "1 0 -1 -2 -3 -4 -5", "TestSeq: negative", id="SeqNegative"),
    pytest.param("seq", (G(0),), "1 0", "TestSeq: zero", id="SeqZero"),
    pytest.param("seq", (G(0), G(1), G(2), G(3)), "", "TestSeq: four", id="SeqFour"),
    pytest.param("seq", (G(0), G(-4)), "0 -1 -2 -3 -4", "TestSeq: two down", id="SeqTwoDown"),
    pytest.param("toDecimal", ("777",), "511", "TestToDecimal", id="ToDecimal"),
    pytest.param("toDecimal", (G(770),), "504", "TestToDecimal: an int", id="ToDecimalInt"),
    pytest.param("toDecimal", ("8",), "0", "not octal is 0", id="ToDecimalBad"),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), CASES)
def test_numeric(name: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    assert show(call(name, *args)) == want, reason


CONVERSIONS = [
    pytest.param(G(102), 102, 102.0, "an int", id="Int"),
    pytest.param(102, 102, 102.0, "an int64", id="Int64"),
    pytest.param("102", 102, 102.0, "a string", id="String"),
    pytest.param("frankie", 0, 0.0, "not a number is 0", id="Junk"),
    pytest.param(102.1234, 102, 102.1234, "a float truncates", id="Float"),
    pytest.param(True, 1, 1.0, "true is 1", id="Bool"),
    pytest.param(None, 0, 0.0, "nil is 0", id="Nil"),
    pytest.param("0x1F", 31, 0.0, "ParseInt with base 0 reads hex; ParseFloat needs a p exponent", id="Hex"),
    pytest.param("08", 0, 8.0, "08 is not octal, but it is a float", id="LeadingZero"),
    pytest.param("1_000", 1000, 1000.0, "underscores after base 0", id="Underscore"),
    pytest.param(math.nan, -(1 << 63), math.nan, "NaN converts to the minimum int64 on amd64", id="NaN"),
    pytest.param([G(1)], 0, 0.0, "a list is 0", id="List"),
]


@pytest.mark.parametrize(("value", "as_int", "as_float", "reason"), CONVERSIONS)
def test_conversions(value: Any, as_int: int, as_float: float, reason: str) -> None:
    """TestToInt64, TestToInt, TestToFloat64 (cast), through int64, int and float64."""
    assert call("int64", value) == as_int, reason
    assert call("int", value) == as_int and isinstance(call("int", value), values.GoInt), reason
    got = call("float64", value)
    assert (math.isnan(got) and math.isnan(as_float)) or got == as_float, reason


CAST_VERSIONS = [
    pytest.param("12.0", 0, 12, "cast 1.7.0 trims a zero fraction", id="ZeroFraction"),
    pytest.param("12.00", 0, 12, "any number of zeros", id="ZeroFractions"),
    pytest.param("12.5", 0, 0, "not another fraction", id="Fraction"),
    pytest.param(time.Month(3), 0, 3, "cast 1.7.0 converts time.Month", id="Month"),
    pytest.param(time.Duration(5), 0, 0, "but not time.Duration, in neither", id="Duration"),
]


@pytest.mark.parametrize(("value", "v323", "v330", "reason"), CAST_VERSIONS)
def test_cast_per_version(value: Any, v323: int, v330: int, reason: str) -> None:
    assert call("int64", value, version="v3.2.3") == v323, reason
    assert call("int64", value, version="v3.3.0") == v330, reason


def test_int64_wraps() -> None:
    """Go's int64 arithmetic overflows silently."""
    biggest = (1 << 63) - 1
    assert call("add", biggest, G(1)) == -(1 << 63)
    assert call("mul", biggest, G(2)) == -2
    assert call("div", -(1 << 63), G(-1)) == -(1 << 63)
    assert call("mod", -(1 << 63), G(-1)) == 0


PANICS = [
    pytest.param(
        "div", (G(1), G(0)), "runtime error: integer divide by zero", "division by zero", id="DivZero"
    ),
    pytest.param(
        "mod", (G(1), "0"), "runtime error: integer divide by zero", "a zero remainder divisor", id="ModZero"
    ),
    pytest.param("divf", (G(1), G(0)), "decimal division by 0", "decimal division by zero", id="DivfZero"),
    pytest.param(
        "addf", (math.inf,), "Cannot create a Decimal from +Inf", "decimal has no infinity", id="AddfInf"
    ),
    pytest.param("mulf", (math.nan, G(1)), "Cannot create a Decimal from NaN", "nor NaN", id="MulfNaN"),
    pytest.param("randInt", (G(5), G(5)), "invalid argument to Intn", "an empty range", id="RandIntEmpty"),
]


@pytest.mark.parametrize(("name", "args", "message", "reason"), PANICS)
def test_panics(name: str, args: tuple[Any, ...], message: str, reason: str) -> None:
    with pytest.raises(gofunc.Panic) as raised:
        call(name, *args)
    assert str(raised.value) == message, reason


def test_rand_int() -> None:
    """TestRandomInt: within [min, max), repeatable with a seed."""
    for low, high in ((10, 11), (10, 13), (0, 1), (5, 50)):
        got = func_map(seed=4)["randInt"](G(low), G(high))
        assert low <= got < high
        assert isinstance(got, values.GoInt)
    assert func_map(seed=4)["randInt"](G(0), G(1000)) == func_map(seed=4)["randInt"](G(0), G(1000))


def test_float_extremes() -> None:
    """Go's math.Max/Min: NaN wins over numbers, infinity over NaN, and -0 and +0 are told apart."""
    assert math.isnan(call("maxf", G(1), math.nan))
    assert call("maxf", math.nan, math.inf) == math.inf
    assert math.copysign(1, call("maxf", -0.0, 0.0)) == 1
    assert math.copysign(1, call("minf", 0.0, -0.0)) == -1
