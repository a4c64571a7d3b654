"""Go's ``strconv`` package: number formatting and parsing, and quoting.

These are the primitives under :mod:`crossfn.gocompat.fmt` and
:mod:`crossfn.gocompat.json`, and what function-patch-and-transform's
``convert`` transform calls directly. Texts, including error texts such as
``strconv.ParseInt: parsing "x": invalid syntax``, are Go's.

Float formatting starts from the shortest decimal digits that round-trip, which
Python's ``repr`` computes with the same guarantee as Go's ``strconv`` (both are
correctly rounded), and lays them out by Go's rules.
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata

from crossfn import errors

__all__ = [
    "can_backquote",
    "format_float",
    "format_int",
    "is_print",
    "parse_bool",
    "parse_float",
    "parse_int",
    "parse_int_base",
    "parse_uint",
    "quote",
    "quote_rune",
    "shortest_digits",
    "unquote",
    "unquote_char",
]

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_INT64_DIGITS = 19
_MAX_RUNE = 0x10FFFF
_U64 = (1 << 64) - 1


def shortest_digits(f: float) -> tuple[str, int]:
    """The shortest round-trip digits of ``abs(f)`` and the decimal point position.

    ``("15", 2)`` means 0.15 × 10², that is 15; zero is ``("0", 1)``. ``f`` must
    be finite.
    """
    mantissa, _, exponent = repr(abs(f)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + (int(exponent) if exponent else 0)
    if not digits:
        return "0", 1
    # Leading zeros removed from "0.00123" move the decimal point left.
    point -= len(whole + frac) - len((whole + frac).lstrip("0"))
    digits = digits.rstrip("0") or "0"
    return digits, point


def format_float(f: float, verb: str, prec: int) -> str:
    """Go's ``strconv.FormatFloat(f, verb, prec, 64)``, verbs b e E f g G x X (prec -1 = shortest)."""
    if verb == "b":
        return _format_b(f)
    if verb in "xX":
        return _format_x(f, prec, verb)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, f) < 0 else ""
    if prec >= 0:
        return sign + _fixed_precision(abs(f), verb, prec)
    digits, point = shortest_digits(f)
    if digits == "0":
        point = 1
    lower = verb.lower()
    if lower == "g":
        exp = point - 1
        # Shortest %g switches to exponent form from exponent 6 whatever the
        # number of digits: 1234567 prints as 1.234567e+06.
        if exp < -4 or exp >= 6:
            return sign + _layout_e(digits, point, len(digits) - 1, "e" if verb == "g" else "E")
        return sign + _layout_f(digits, point, max(len(digits) - point, 0))
    if lower == "e":
        return sign + _layout_e(digits, point, len(digits) - 1, verb)
    return sign + _layout_f(digits, point, max(len(digits) - point, 0))


def _fixed_precision(f: float, verb: str, prec: int) -> str:
    """Correctly rounded fixed-precision formatting; Python and Go agree digit for digit."""
    if verb in "gG":
        return format(f, f".{max(prec, 1)}{verb}")
    return format(f, f".{prec}{verb}")


def _layout_e(digits: str, point: int, prec: int, letter: str) -> str:
    head = digits[0]
    tail = digits[1 : prec + 1].ljust(prec, "0")
    exp = point - 1 if digits != "0" else 0
    mantissa = head + ("." + tail if prec > 0 else "")
    return f"{mantissa}{letter}{'-' if exp < 0 else '+'}{abs(exp):02d}"


def _layout_f(digits: str, point: int, prec: int) -> str:
    if point <= 0:
        whole = "0"
        frac = "0" * (-point) + digits
    elif point >= len(digits):
        whole = digits + "0" * (point - len(digits))
        frac = ""
    else:
        whole, frac = digits[:point], digits[point:]
    frac = frac[:prec].ljust(prec, "0")
    return whole + ("." + frac if prec > 0 else "")


def _float_bits(v: float) -> tuple[bool, int, int]:
    """Sign, mantissa and binary exponent with value = mantissa × 2^(exp-52)."""
    bits = struct.unpack("<Q", struct.pack("<d", v))[0]
    neg = bits >> 63 == 1
    exp = (bits >> 52) & 0x7FF
    mant = bits & ((1 << 52) - 1)
    if exp == 0:
        exp = 1
    else:
        mant |= 1 << 52
    return neg, mant, exp - 1023


def _format_b(v: float) -> str:
    """Go's ``%b`` for a float: decimal mantissa, ``p``, binary exponent (``4503599627370496p-49``)."""
    if math.isnan(v) or math.isinf(v):
        return format_float(v, "g", -1)
    neg, mant, exp = _float_bits(v)
    exp -= 52
    return f"{'-' if neg else ''}{mant}p{'-' if exp < 0 else '+'}{abs(exp)}"


def _format_x(v: float, prec: int, verb: str) -> str:
    """Go's ``%x`` for a float: ``-0x1.8p+01``, rounding the mantissa to ``prec`` hex digits."""
    if math.isnan(v) or math.isinf(v):
        return format_float(v, "g", -1)
    neg, mant, exp = _float_bits(v)
    if mant == 0:
        exp = 0
    mant <<= 8  # leading 1 at bit 60
    while mant != 0 and mant & (1 << 60) == 0:
        mant = (mant << 1) & _U64
        exp -= 1
    if 0 <= prec < 15:
        shift = prec * 4
        extra = (mant << shift) & ((1 << 60) - 1)
        mant >>= 60 - shift
        if extra | (mant & 1) > 1 << 59:
            mant += 1
        mant <<= 60 - shift
        if mant & (1 << 61):
            mant >>= 1
            exp += 1
    digits = "0123456789abcdef" if verb == "x" else "0123456789ABCDEF"
    out = ("-" if neg else "") + "0" + verb + str((mant >> 60) & 1)
    mant = (mant << 4) & _U64
    if prec < 0 and mant != 0:
        out += "."
        while mant != 0:
            out += digits[(mant >> 60) & 15]
            mant = (mant << 4) & _U64
    elif prec > 0:
        out += "."
        for _ in range(prec):
            out += digits[(mant >> 60) & 15]
            mant = (mant << 4) & _U64
    out += "p" if verb == "x" else "P"
    out += "-" if exp < 0 else "+"
    return out + f"{abs(exp):02d}"


_INT_SYNTAX = re.compile(r"[+-]?[0-9]+")


def parse_int(s: str) -> int:
    """Go's ``strconv.ParseInt(s, 10, 64)``."""
    if not _INT_SYNTAX.fullmatch(s):
        raise errors.GoError(f"strconv.ParseInt: parsing {quote(s)}: invalid syntax")
    # Past 19 significant digits no int64 fits: say so before int() (whose digit limit,
    # and quadratic time, would otherwise meet a 5,000-digit string).
    digits = s.lstrip("+-").lstrip("0")
    if len(digits) > _INT64_DIGITS:
        raise errors.GoError(f"strconv.ParseInt: parsing {quote(s)}: value out of range")
    n = -int(digits or "0") if s.startswith("-") else int(digits or "0")
    if not _INT64_MIN <= n <= _INT64_MAX:
        raise errors.GoError(f"strconv.ParseInt: parsing {quote(s)}: value out of range")
    return n


def parse_int_base(s: str, base: int, bit_size: int = 64) -> int:
    """Go's ``strconv.ParseInt(s, base, bitSize)``; base 0 reads ``0x``, ``0o``, ``0b`` and ``0`` prefixes
    and ``_`` separators, as ``cast.ToInt`` relies on (``"08"`` is invalid octal)."""
    if not s:
        raise _num_error("ParseInt", s, "invalid syntax")
    negative = s[0] == "-"
    body = s[1:] if s[0] in "+-" else s
    try:
        magnitude = _parse_uint(body, base, bit_size)
    except _NumRangeError:
        magnitude = 1 << 64
    except errors.GoError as exc:
        raise _num_error("ParseInt", s, str(exc).rsplit(": ", 1)[-1]) from None
    cutoff = 1 << (bit_size - 1)
    if (not negative and magnitude >= cutoff) or (negative and magnitude > cutoff):
        raise _num_error("ParseInt", s, "value out of range")
    return -magnitude if negative else magnitude


def parse_uint(s: str, base: int, bit_size: int = 64) -> int:
    """Go's ``strconv.ParseUint(s, base, bitSize)``."""
    try:
        return _parse_uint(s, base, bit_size)
    except _NumRangeError:
        raise _num_error("ParseUint", s, "value out of range") from None


class _NumRangeError(Exception):
    """ParseUint's ErrRange, which ParseInt turns into its own out-of-range error."""


def _num_error(func: str, s: str, reason: str) -> errors.GoError:
    return errors.GoError(f"strconv.{func}: parsing {quote(s)}: {reason}")


def _parse_uint(s: str, base: int, bit_size: int) -> int:
    if not s:
        raise _num_error("ParseUint", s, "invalid syntax")
    original, base0 = s, base == 0
    if base0:
        base = 10
        if s[0] == "0":
            prefix = s[1:2].lower()
            if len(s) >= 3 and prefix in ("b", "o", "x"):
                base, s = {"b": 2, "o": 8, "x": 16}[prefix], s[2:]
            else:
                base, s = 8, s[1:]
    elif not 2 <= base <= 36:
        raise _num_error("ParseUint", original, f"invalid base {base}")
    limit = (1 << bit_size) - 1
    n, underscores = 0, False
    for c in s:
        if c == "_" and base0:
            underscores = True
            continue
        d = _DIGIT_VALUES.get(c.lower(), 99)
        if d >= base:
            raise _num_error("ParseUint", original, "invalid syntax")
        n = n * base + d
        if n > limit:
            raise _NumRangeError
    if underscores and not _underscore_ok(original):
        raise _num_error("ParseUint", original, "invalid syntax")
    return n


_DIGIT_VALUES = {c: i for i, c in enumerate("0123456789abcdefghijklmnopqrstuvwxyz")}


def _underscore_ok(s: str) -> bool:
    """Go's ``underscoreOK``: each ``_`` sits between digits (a base prefix counts as one)."""
    if s[:1] in ("+", "-"):
        s = s[1:]
    saw, i, hexadecimal = "^", 0, False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i, saw, hexadecimal = 2, "0", s[1].lower() == "x"
    for c in s[i:]:
        if (c.isdigit() and c.isascii()) or (hexadecimal and c.lower() in "abcdef"):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def format_int(n: int, base: int) -> str:
    """Go's ``strconv.FormatInt(n, base)``, lower-case digits."""
    if base == 10:
        return str(n)
    digits, magnitude = [], abs(n)
    while True:
        magnitude, d = divmod(magnitude, base)
        digits.append("0123456789abcdefghijklmnopqrstuvwxyz"[d])
        if not magnitude:
            break
    return ("-" if n < 0 else "") + "".join(reversed(digits))


def parse_bool(s: str) -> bool:
    """Go's ``strconv.ParseBool``."""
    if s in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if s in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise errors.GoError(f"strconv.ParseBool: parsing {quote(s)}: invalid syntax")


_DEC_FLOAT = re.compile(
    r"[+-]?(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9](?:_?[0-9])*)?"
)
_HEX_FLOAT = re.compile(
    r"[+-]?0[xX](?:(?:_?[0-9a-fA-F])+(?:\.(?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?)?|\.[0-9a-fA-F](?:_?[0-9a-fA-F])*)"
    r"[pP][+-]?[0-9](?:_?[0-9])*"
)
_SPECIAL = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)


def parse_float(s: str) -> float:
    """Go's ``strconv.ParseFloat(s, 64)``: decimal, hex with ``p`` exponent, inf, NaN, ``_`` separators."""
    if _SPECIAL.fullmatch(s):
        if s.lower().lstrip("+-") == "nan":
            return math.nan if s[0] not in "+-" else _bad_float(s)
        return -math.inf if s.startswith("-") else math.inf
    hexadecimal = _HEX_FLOAT.fullmatch(s) is not None
    if not hexadecimal and _DEC_FLOAT.fullmatch(s) is None:
        return _bad_float(s)
    text = s.replace("_", "")
    try:
        value = float.fromhex(text) if hexadecimal else float(text)
    except OverflowError:
        value = math.inf
    if math.isinf(value):
        raise errors.GoError(f"strconv.ParseFloat: parsing {quote(s)}: value out of range")
    return value


def _bad_float(s: str) -> float:
    raise errors.GoError(f"strconv.ParseFloat: parsing {quote(s)}: invalid syntax")


def is_print(r: int) -> bool:
    """Go's ``strconv.IsPrint``: letters, marks, numbers, punctuation, symbols and ASCII space."""
    if r == 0x20:
        return True
    if r > _MAX_RUNE or 0xD800 <= r <= 0xDFFF:
        return False
    return unicodedata.category(chr(r))[0] in "LMNPS"


def quote(s: str, *, ascii_only: bool = False) -> str:
    """Go's ``strconv.Quote`` (``QuoteToASCII`` with ``ascii_only``); invalid bytes become ``\\xNN``."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'  # printable ASCII but the quote and backslash: each rune stands for itself
    out = ['"']
    for ch in s:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
            continue
        out.append(_escaped_rune(code, '"', ascii_only))
    out.append('"')
    return "".join(out)


def quote_rune(r: int, *, ascii_only: bool = False) -> str:
    """Go's ``strconv.QuoteRune`` (``QuoteRuneToASCII`` with ``ascii_only``)."""
    if r > _MAX_RUNE or r < 0 or 0xD800 <= r <= 0xDFFF:
        r = 0xFFFD
    return "'" + _escaped_rune(r, "'", ascii_only) + "'"


_SIMPLE_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x0B: "\\v"}


def _escaped_rune(r: int, quote_char: str, ascii_only: bool) -> str:
    if 0xD800 <= r <= 0xDFFF:
        r = 0xFFFD
    ch = chr(r)
    if ch in (quote_char, "\\"):
        return "\\" + ch
    if ascii_only:
        if r < 0x80 and is_print(r):
            return ch
    elif is_print(r):
        return ch
    if r in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[r]
    if r < 0x20 or r == 0x7F:
        return f"\\x{r:02x}"
    if r < 0x10000:
        return f"\\u{r:04x}"
    return f"\\U{r:08x}"


def can_backquote(s: str) -> bool:
    """Go's ``strconv.CanBackquote``: one line, no backquote, no control characters but tab."""
    for ch in s:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF or ch == "`" or code == 0xFEFF:
            return False
        if (code < 0x20 and ch != "\t") or code == 0x7F:
            return False
    return True


_SIMPLE_UNESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}


def unquote_char(s: str, quote_char: str) -> tuple[str, str]:
    """Go's ``strconv.UnquoteChar``: the first character (or escape) of ``s`` and the rest.

    A ``\\xNN`` or octal escape is one byte, which may not be UTF-8 on its own:
    it comes back as a lone surrogate (the ``surrogateescape`` convention of
    :mod:`crossfn.gocompat.values`) when it is 0x80 or more. ``invalid syntax``
    (Go's ``strconv.ErrSyntax``) for a bad escape.
    """
    if not s:
        raise errors.GoError("invalid syntax")
    c = s[0]
    if c == quote_char and quote_char in "'\"":
        raise errors.GoError("invalid syntax")
    if c != "\\":
        return c, s[1:]
    if len(s) <= 1:
        raise errors.GoError("invalid syntax")
    e, rest = s[1], s[2:]
    if e in _SIMPLE_UNESCAPES:
        return chr(_SIMPLE_UNESCAPES[e]), rest
    if e in "xuU":
        n = {"x": 2, "u": 4, "U": 8}[e]
        digits = rest[:n]
        if len(digits) < n or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise errors.GoError("invalid syntax")
        v = int(digits, 16)
        if e == "x":
            return _byte_char(v), rest[n:]
        if v > _MAX_RUNE or 0xD800 <= v <= 0xDFFF:
            raise errors.GoError("invalid syntax")
        return chr(v), rest[n:]
    if "0" <= e <= "7":
        digits = s[1:4]
        if len(digits) < 3 or any(not "0" <= d <= "7" for d in digits):
            raise errors.GoError("invalid syntax")
        v = int(digits, 8)
        if v > 255:
            raise errors.GoError("invalid syntax")
        return _byte_char(v), s[4:]
    if e in "'\"":
        if e != quote_char:
            raise errors.GoError("invalid syntax")
        return e, rest
    raise errors.GoError("invalid syntax")


def _byte_char(v: int) -> str:
    return chr(v) if v < 0x80 else chr(0xDC00 + v)


def unquote(s: str) -> str:
    """Go's ``strconv.Unquote`` for a double-quoted or backquoted string literal.

    A raw (backquoted) string loses its carriage returns, as Go's does; a
    quoted one may not hold a newline. ``invalid syntax`` otherwise.
    """
    if len(s) < 2 or s[0] != s[-1] or s[0] not in "\"`'":
        raise errors.GoError("invalid syntax")
    quote_char, body = s[0], s[1:-1]
    if quote_char == "`":
        if "`" in body:
            raise errors.GoError("invalid syntax")
        return body.replace("\r", "")
    if "\n" in body:
        raise errors.GoError("invalid syntax")
    if "\\" not in body and quote_char not in body:
        if quote_char == "'" and len(body) != 1:
            raise errors.GoError("invalid syntax")
        return body
    out = []
    while body:
        ch, body = unquote_char(body, quote_char)
        out.append(ch)
        if quote_char == "'" and body:
            raise errors.GoError("invalid syntax")
    return "".join(out)
