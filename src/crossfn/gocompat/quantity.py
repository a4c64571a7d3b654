"""Kubernetes resource quantities (``k8s.io/apimachinery`` ``resource.Quantity``).

function-patch-and-transform's ``convert`` with ``format: quantity`` parses a
string such as ``1.5Gi`` or ``250m`` with ``resource.ParseQuantity`` and returns
``AsApproximateFloat64()`` (upstream pt-6.9). This module
follows that code path exactly, because the float is approximate and users
see its last digits:

* parsing accepts what Kubernetes accepts, including its oddities: ``1.``,
  ``.5``, a bare sign (zero), leading zeros;
* the value is kept as Kubernetes keeps it: an int64 with a decimal exponent
  when that is exact and small, otherwise an arbitrary-precision decimal that
  is rounded *up* to a multiple of 1n, and binary-SI values above 2^63-1 are
  capped;
* the float is the unscaled integer (rounded to float64) times Go's
  ``math.Pow10`` of the exponent, which is a product of two table entries and
  so not always the correctly rounded power of ten.

``str(quantity)`` is Kubernetes' ``String()``: the canonical form (``1.5`` is
``1500m``, ``1.5Gi`` is ``1536Mi``), or the parsed text itself when Kubernetes
judged it canonical already (so ``+1Ki`` stays ``+1Ki``).

Work is bounded as Kubernetes bounds it: exponents outside ±(2^31-1) are
refused, a sub-nano amount becomes 1n without computing 10^exponent, and
thousands of digits cost one pass over the text (see ``_round_up_to_nano``).

Errors carry Kubernetes' texts; the format error quotes a regular expression
that describes the grammar (it is not used to parse).
"""

from __future__ import annotations

import dataclasses

from crossfn import errors

__all__ = ["Quantity", "parse"]

_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
_NUMERIC_ERROR = "unable to parse numeric part of quantity"
_SUFFIX_ERROR = "unable to parse quantity's suffix"

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_CHARS = "eEinumkKMGTP"
_DIGITS = "0123456789"
_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)
_INT32_MAX = (1 << 31) - 1
_INT32_DIGITS = 10
_NANO = -9
_MAX_DIGITS = 400
_MULTIPLIER_DIGITS = 20
_HUGE: int = 10**_MAX_DIGITS
_MAX_INT64_FACTORS = 18

# Go's math.Pow10 tables: 10^n is built from two exactly written entries.
_POW10 = [float(f"1e{i}") for i in range(32)]
_POW10_POS32 = [float(f"1e{32 * i}") for i in range(10)]
_POW10_NEG32 = [float(f"1e-{32 * i}") for i in range(11)]


@dataclasses.dataclass(frozen=True)
class Quantity:
    """A parsed quantity: ``unscaled × 10^exponent``, as Kubernetes stores it."""

    unscaled: int
    exponent: int
    format: str = "DecimalSI"
    """``DecimalSI``, ``BinarySI`` or ``DecimalExponent``: the suffix family it was written with."""
    decimal: bool = False
    """Whether Kubernetes holds it as an arbitrary-precision decimal (inf.Dec) rather than an int64."""
    text: str | None = None
    """The parsed text, kept when Kubernetes judged it canonical already (it then prints it back)."""

    def __str__(self) -> str:
        """Kubernetes' ``String()``: the canonical form, e.g. ``1.5`` prints as ``1500m``."""
        if self.text is not None:
            return self.text
        if self.unscaled == 0:
            return "0"
        fmt = self.format
        rounded = 0
        if fmt == "BinarySI":
            if _compare(self, -1024) > 0 and _compare(self, 1024) < 0:
                fmt = "DecimalSI"
            else:
                rounded, exact = _round_up_to_integer(self)
                if not exact:
                    fmt = "DecimalSI"
        if fmt == "BinarySI":
            number, times = _remove_factors(rounded, 1024)
            return f"{number}{_BINARY_NAMES.get(times * 10, '')}"
        number, exp = _remove_factors(self.unscaled, 10)
        exp += self.exponent
        number, exp = number * 10 ** (exp % 3), exp - exp % 3
        if fmt == "DecimalExponent":
            return f"{number}e{exp}" if exp else str(number)
        # An exponent past E (1e21 and up) has no DecimalSI suffix; Kubernetes
        # then prints the mantissa alone, and so does this.
        return f"{number}{_DECIMAL_NAMES.get(exp, '')}"

    def approximate_float(self) -> float:
        """Kubernetes' ``AsApproximateFloat64``."""
        try:
            base = float(self.unscaled)
        except OverflowError:
            base = float("inf") if self.unscaled > 0 else float("-inf")
        if self.exponent == 0:
            return base
        return base * _go_pow10(self.exponent)


_DECIMAL_NAMES = {v: k for k, v in _DECIMAL_SUFFIXES.items()}
_BINARY_NAMES = {v: k for k, v in _BINARY_SUFFIXES.items()}


def _compare(q: Quantity, n: int) -> int:
    """Compare the exact value of ``q`` with the integer ``n`` (-1, 0 or 1)."""
    if q.exponent >= 0:
        left, right = q.unscaled * 10**q.exponent, n
    else:
        left, right = q.unscaled, n * 10**-q.exponent
    return int(left > right) - int(left < right)


def _round_up_to_integer(q: Quantity) -> tuple[int, bool]:
    """The value rounded away from zero to an integer, and whether that was exact."""
    if q.exponent >= 0:
        return q.unscaled * 10**q.exponent, True
    divisor = 10**-q.exponent
    whole, rest = divmod(abs(q.unscaled), divisor)
    if rest:
        whole += 1
    return (whole if q.unscaled > 0 else -whole), rest == 0


def _remove_factors(n: int, base: int) -> tuple[int, int]:
    """``n`` without its factors of ``base``, and how many there were (sign kept)."""
    times, magnitude = 0, abs(n)
    while magnitude >= base and magnitude % base == 0:
        magnitude //= base
        times += 1
    return (magnitude if n >= 0 else -magnitude), times


def _go_pow10(n: int) -> float:
    if 0 <= n <= 308:
        return _POW10_POS32[n // 32] * _POW10[n % 32]
    if -323 <= n <= 0:
        return _POW10_NEG32[-n // 32] / _POW10[-n % 32]
    return float("inf") if n > 0 else 0.0


def _int32(n: int) -> int:
    return ((n + (1 << 31)) % (1 << 32)) - (1 << 31)


def parse(s: str) -> Quantity:
    """Kubernetes' ``resource.ParseQuantity``; raise :class:`errors.GoError` with its texts."""
    if not s:
        raise errors.GoError(_FORMAT_ERROR)
    if s == "0":
        return Quantity(0, 0, text=s)
    positive, value, num, denom, suffix = _split(s)
    base, exponent, fmt = _interpret(suffix)
    binary = fmt == "BinarySI"
    if binary:
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        else:
            mantissa, precision = 1, -1
        scale = 0
    else:
        mantissa, scale = 1, exponent
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    if precision >= 0:
        scale = _int32(scale - len(denom))
        if scale >= _NANO:
            digits = num + denom
            shifted = int(digits)
            result = shifted * mantissa
            if shifted <= _INT64_MAX and _INT64_MIN <= result <= _INT64_MAX:
                # Kubernetes keeps the text when it is already canonical.
                if binary:
                    canonical = exponent % 10 == 0 and shifted & 7 != 0
                else:
                    canonical = scale % 3 == 0 and not digits.endswith("000") and digits[0] != "0"
                return Quantity(result if positive else -result, scale, fmt, text=s if canonical else None)
    return _parse_decimal(value, base, exponent, fmt)


def _parse_decimal(value: str, base: int, exponent: int, fmt: str) -> Quantity:
    """The arbitrary-precision path (inf.Dec): round up to 1n, cap binary values.

    Works on the digit string, so that neither a sub-nano exponent
    (``1e-999999999`` is ``1n``, as Kubernetes now answers without building
    10^999999990) nor thousands of digits cost more than a pass over the text.
    """
    negative, digits, scale = _dec(value)
    if base == 10:
        scale = _int32(scale - exponent)
    if not digits:
        return Quantity(0, -scale, fmt, decimal=True)
    multiplier = 1 << exponent if base == 2 else 1
    unscaled = _round_up_to_nano(digits, scale, multiplier)
    scale = -_NANO
    # Every non-zero amount now has scale 9. Binary-SI amounts are capped at 2^63-1.
    if fmt == "BinarySI" and unscaled > _INT64_MAX * 10**-_NANO:
        unscaled, scale = _INT64_MAX, 0
    if fmt == "BinarySI" and 0 < unscaled < 10**scale:
        fmt = "DecimalSI"  # below one, binary suffixes would only round
    return Quantity(-unscaled if negative else unscaled, -scale, fmt, decimal=True)


def _round_up_to_nano(digits: str, scale: int, multiplier: int) -> int:
    """``ceil(int(digits) * multiplier / 10**(scale - 9))`` without building huge numbers.

    ``digits`` is non-empty with no leading zeros; ``multiplier`` is below
    10^19. Digits too far right to reach 1n are only checked for being
    non-zero (they round up). An amount of more than 400 digits of nanos is
    held as 10^400 nanos: every float of it is infinite, so its exact digits
    matter to nothing crossfn computes, and the work stays bounded.
    """
    shift = scale + _NANO
    if len(digits) - shift > _MAX_DIGITS:
        return _HUGE
    if shift <= 0:
        exact: int = int(digits) * multiplier * 10**-shift
        return exact
    keep = len(digits) - shift + _MULTIPLIER_DIGITS
    if keep <= 0:
        return 1  # below 1n, and not zero: Kubernetes gives 1n
    sticky = keep < len(digits) and digits[keep:].strip("0") != ""
    shift -= max(len(digits) - keep, 0)
    whole, rest = divmod(int(digits[:keep]) * multiplier, 10**shift)
    rounded: int = whole + int(bool(rest) or sticky)
    return rounded


def _dec(value: str) -> tuple[bool, str, int]:
    """inf.Dec's SetString: optional sign, digits with at most one point.

    Returns the sign, the significant digits (no leading zeros; empty for
    zero) and the scale (digits after the point).
    """
    sign, body = (value[0], value[1:]) if value[:1] in ("+", "-") else ("", value)
    whole, point, frac = body.partition(".")
    digits = whole + frac
    if not digits or not digits.isdigit() or not digits.isascii():
        raise errors.GoError(_NUMERIC_ERROR)
    return sign == "-", digits.lstrip("0"), len(frac) if point else 0


def _split(s: str) -> tuple[bool, str, str, str, str]:
    """Kubernetes' parseQuantityString: sign, the number text, numerator, denominator, suffix."""
    positive, pos, end = True, 0, len(s)
    if s[0] in "+-":
        positive = s[0] == "+"
        pos = 1
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    num = s[start:pos] or "0"
    if pos >= end:
        return positive, s, num, "", ""
    denom = ""
    if s[pos] == ".":
        pos += 1
        start = pos
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        denom = s[start:pos]
        if pos >= end:
            return positive, s, num, denom, ""
    value = s[:pos]
    suffix_start = pos
    while pos < end and s[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and s[pos] in "+-":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise errors.GoError(_FORMAT_ERROR)
    return positive, value, num, denom, s[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    """Base, exponent and format of a suffix."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], "DecimalSI"
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[:1] in ("+", "-") else digits
        # Exponents outside ±(2^31-1) are refused, as Kubernetes now does, rather
        # than wrapped into an unrelated int32 (and a huge computation).
        if body and body.isdigit() and body.isascii() and len(body.lstrip("0")) <= _INT32_DIGITS:
            parsed = int(digits)
            if -_INT32_MAX <= parsed <= _INT32_MAX:
                return 10, parsed, "DecimalExponent"
    raise errors.GoError(_SUFFIX_ERROR)
