"""Sprig's arithmetic (``numeric.go`` and the math entries of ``functions.go``).

Integer functions convert each argument with ``cast.ToInt64`` (:mod:`._cast`) and compute in int64,
wrapping on overflow and panicking on a zero divisor as Go does. The ``f`` functions (``addf``,
``mulf``...) go through shopspring/decimal: each operand is the *shortest* decimal that reads back
as its float64 (``0.1`` is exactly 0.1), sums and products are exact, a quotient is rounded half
away from zero at 16 decimal places, and the result is the float64 nearest to the decimal; so
``addf 0.1 0.2`` is 0.3, not 0.30000000000000004.
"""

from __future__ import annotations

import decimal
import fractions
import math
from collections.abc import Callable
from typing import Any

from crossfn import errors
from crossfn.gocompat import fmt, gofunc, strconv, values
from crossfn.gocompat.sprig import _cast, _profile, _reflect
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["functions", "until_step"]

F = gofunc.Func
ANY = gofunc.ANY
_DIVISION_PRECISION = 16


def _decimal(f: float) -> fractions.Fraction:
    """``decimal.NewFromFloat``: the shortest decimal that reads back as ``f``."""
    if math.isnan(f) or math.isinf(f):
        raise gofunc.Panic(f"Cannot create a Decimal from {fmt.sprint(f)}")
    return fractions.Fraction(decimal.Decimal(repr(f)))


def _div(a: fractions.Fraction, b: fractions.Fraction) -> fractions.Fraction:
    """``Decimal.Div``: the quotient at 16 decimal places, halves away from zero."""
    if b == 0:
        raise gofunc.Panic("decimal division by 0")
    scaled = a / b * 10**_DIVISION_PRECISION
    q = math.trunc(scaled)
    if abs(scaled - q) * 2 >= 1:
        q += 1 if scaled > 0 else -1
    return fractions.Fraction(q, 10**_DIVISION_PRECISION)


_OPS: dict[str, Callable[[fractions.Fraction, fractions.Fraction], fractions.Fraction]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": _div,
}


def _decimal_op(profile: _profile.Profile, op: str, first: Any, rest: tuple[Any, ...]) -> float:
    """Sprig's ``execDecimalOp``: fold ``rest`` into ``first`` with ``op`` in decimals, then a float64."""
    total = _decimal(_cast.to_float64(first, profile))
    for x in rest:
        total = _OPS[op](total, _decimal(_cast.to_float64(x, profile)))
    try:
        return float(total)
    except OverflowError:
        return math.inf if total > 0 else -math.inf


def _go_max(x: float, y: float) -> float:
    """Go's ``math.Max``: +Inf wins over NaN, NaN over the rest, +0 over -0."""
    if (math.isinf(x) and x > 0) or (math.isinf(y) and y > 0):
        return math.inf
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == 0 and x == y:
        return y if math.copysign(1.0, x) < 0 else x
    return x if x > y else y


def _go_min(x: float, y: float) -> float:
    """Go's ``math.Min``: -Inf wins over NaN, NaN over the rest, -0 over +0."""
    if (math.isinf(x) and x < 0) or (math.isinf(y) and y < 0):
        return -math.inf
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == 0 and x == y:
        return x if math.copysign(1.0, x) < 0 else y
    return x if x < y else y


def _go_pow10(y: float) -> float:
    """Go's ``math.Pow(10, y)`` for an integral ``y``: repeated squaring on the mantissa, as Go computes it."""
    if y == 0:
        return 1.0
    if math.isinf(y):
        return math.inf if y > 0 else 0.0
    a1, ae = 1.0, 0
    x1, xe = math.frexp(10.0)
    i = int(abs(y))
    while i:
        if i & 1:
            a1 *= x1
            ae += xe
        x1 *= x1
        xe <<= 1
        if x1 < 0.5:
            x1 += x1
            xe -= 1
        i >>= 1
    if y < 0:
        a1, ae = 1 / a1, -ae
    try:
        return math.ldexp(a1, ae)
    except OverflowError:
        return math.inf


def _round(profile: _profile.Profile, a: Any, places: int, *round_on: float) -> float:
    """Sprig's ``round``: ``places`` decimals, rounding up from ``round_on`` (0.5) of the next digit."""
    threshold = round_on[0] if round_on else 0.5
    power = _go_pow10(float(places))
    digit = power * _cast.to_float64(a, profile)
    fraction = math.modf(digit)[0] if math.isfinite(digit) else math.nan  # Go's Modf(±Inf) has a NaN fraction
    rounded = _ceil(digit) if fraction >= threshold else _floor(digit)
    if power == 0:  # Go divides by zero into an infinity, or NaN for 0/0
        return math.nan if rounded == 0 or math.isnan(rounded) else math.copysign(math.inf, rounded)
    return rounded / power


def _ceil(f: float) -> float:
    return f if not math.isfinite(f) else float(math.ceil(f))


def _floor(f: float) -> float:
    return f if not math.isfinite(f) else float(math.floor(f))


def until_step(start: int, stop: int, step: int) -> values.GoSlice:
    """Sprig's ``untilStep``: ``start`` up to (or down to) ``stop`` by ``step``; empty when ``step`` points away."""
    if stop < start:
        items = range(start, stop, step) if step < 0 else range(0)
    else:
        items = range(start, stop, step) if step > 0 else range(0)
    return values.GoSlice([values.GoInt(i) for i in items], elem="int")


def _join(items: values.GoSlice) -> str:
    return " ".join(str(int(i)) for i in items)


def _seq(*params: int) -> str:
    """Sprig's ``seq``: like the Unix command, 1, 2 or 3 arguments; the numbers space-separated."""
    if len(params) == 1:
        start, end = 1, params[0]
        step = -1 if end < start else 1
        return _join(until_step(start, end + step, step))
    if len(params) == 2:
        start, end = params
        step = -1 if end < start else 1
        return _join(until_step(start, end + step, step))
    if len(params) == 3:
        start, step, end = params
        increment = 1
        if end < start:
            increment = -1
            if step > 0:
                return ""
        return _join(until_step(start, end + increment, step))
    return ""


def _to_decimal(v: Any) -> int:
    """Sprig's ``toDecimal``: ``%v`` of the value read as octal, 0 when it is not."""
    try:
        return strconv.parse_int_base(fmt.sprint(v), 8)
    except errors.GoError:
        return 0


def _rand_int(sources: Sources) -> Callable[[int, int], values.GoInt]:
    def rand_int(low: int, high: int) -> values.GoInt:
        span = _reflect.int64(high - low)
        if span <= 0:
            raise gofunc.Panic("invalid argument to Intn")
        return values.GoInt(_reflect.int64(sources.rand.randrange(span) + low))

    return rand_int


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's numeric functions."""

    def i64(v: Any) -> int:
        return _cast.to_int64(v, profile)

    def f64(v: Any) -> float:
        return _cast.to_float64(v, profile)

    def fold(op: Callable[[int, int], int], first: Any, rest: tuple[Any, ...]) -> int:
        total = i64(first)
        for x in rest:
            total = _reflect.int64(op(total, i64(x)))
        return total

    def extreme_f(pick: Callable[[float, float], float]) -> Callable[..., float]:
        def call(a: Any, *rest: Any) -> float:
            total = f64(a)
            for x in rest:
                total = pick(total, f64(x))
            return total

        return call

    def decimal_op(op: str, *, seed: Any = None) -> Callable[..., float]:
        if seed is not None:
            return lambda *xs: _decimal_op(profile, op, seed, xs)
        return lambda a, *xs: _decimal_op(profile, op, a, xs)

    v1 = (ANY, ANY)
    return {
        "int64": F(i64, (ANY,), "int64"),
        "int": F(lambda v: _cast.to_int(v, profile), (ANY,), "int"),
        "float64": F(f64, (ANY,), "float64"),
        "seq": F(_seq, ("int",), "string", variadic=True),
        "toDecimal": F(_to_decimal, (ANY,), "int64"),
        "until": F(lambda n: until_step(0, n, -1 if n < 0 else 1), ("int",), "[]int"),
        "untilStep": F(until_step, ("int", "int", "int"), "[]int"),
        "add1": F(lambda i: _reflect.int64(i64(i) + 1), (ANY,), "int64"),
        "add": F(lambda *xs: fold(lambda a, b: a + b, 0, xs), (ANY,), "int64", variadic=True),
        "sub": F(lambda a, b: _reflect.int64(i64(a) - i64(b)), v1, "int64"),
        "div": F(lambda a, b: _reflect.quo(i64(a), i64(b)), v1, "int64"),
        "mod": F(lambda a, b: _reflect.rem(i64(a), i64(b)), v1, "int64"),
        "mul": F(lambda a, *xs: fold(lambda x, y: x * y, a, xs), v1, "int64", variadic=True),
        "randInt": F(_rand_int(sources), ("int", "int"), "int"),
        "add1f": F(lambda i: _decimal_op(profile, "add", i, (values.GoInt(1),)), (ANY,), "float64"),
        "addf": F(decimal_op("add", seed=0.0), (ANY,), "float64", variadic=True),
        "subf": F(decimal_op("sub"), v1, "float64", variadic=True),
        "divf": F(decimal_op("div"), v1, "float64", variadic=True),
        "mulf": F(decimal_op("mul"), v1, "float64", variadic=True),
        "biggest": F(lambda a, *xs: fold(max, a, xs), v1, "int64", variadic=True),
        "max": F(lambda a, *xs: fold(max, a, xs), v1, "int64", variadic=True),
        "min": F(lambda a, *xs: fold(min, a, xs), v1, "int64", variadic=True),
        "maxf": F(extreme_f(_go_max), v1, "float64", variadic=True),
        "minf": F(extreme_f(_go_min), v1, "float64", variadic=True),
        "ceil": F(lambda a: _ceil(f64(a)), (ANY,), "float64"),
        "floor": F(lambda a: _floor(f64(a)), (ANY,), "float64"),
        "round": F(
            lambda a, p, *r: _round(profile, a, p, *r), (ANY, "int", "float64"), "float64", variadic=True
        ),
    }
