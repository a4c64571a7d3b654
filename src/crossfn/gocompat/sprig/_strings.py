"""Sprig's string functions (``strings.go`` and the string entries of ``functions.go``).

Go strings are bytes: ``substr``, ``trunc`` and ``abbrev`` count bytes and may split a character
(the result carries the invalid bytes as :mod:`crossfn.gocompat.values` does), and ``substr``
panics as Go's slicing does when the indexes do not fit (``runtime error: slice bounds out of
range [:5] with length 3``). Argument order follows Sprig's, which puts the string last so that
it can be piped (``"foo" | repeat 3``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from crossfn import errors
from crossfn.gocompat import base32, base64, fmt, gofunc, strconv, strings, values
from crossfn.gocompat.sprig import _goutils, _profile, _reflect, _xstrings
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["functions", "split", "strslice", "substring", "trunc"]

F = gofunc.Func
ANY = gofunc.ANY


def _b(s: str) -> bytes:
    return values.to_bytes(s)


def _s(b: bytes) -> str:
    return values.from_bytes(b)


def substring(start: int, end: int, s: str) -> str:
    """Sprig's ``substr``: bytes ``start`` to ``end``; a negative start means from 0, a negative or
    too large end means to the end. Other misfits panic as Go's slicing does."""
    data = _b(s)
    n = len(data)
    if start < 0:
        if end < 0:
            raise gofunc.Panic(f"runtime error: slice bounds out of range [:{end}]")
        if end > n:
            raise gofunc.Panic(f"runtime error: slice bounds out of range [:{end}] with length {n}")
        return _s(data[:end])
    if end < 0 or end > n:
        if start > n:
            raise gofunc.Panic(f"runtime error: slice bounds out of range [{start}:{n}]")
        return _s(data[start:])
    if start > end:
        raise gofunc.Panic(f"runtime error: slice bounds out of range [{start}:{end}]")
    return _s(data[start:end])


def trunc(c: int, s: str) -> str:
    """Sprig's ``trunc``: the first ``c`` bytes, or the last ``-c`` when ``c`` is negative."""
    data = _b(s)
    if c < 0 and len(data) + c > 0:
        return _s(data[len(data) + c :])
    if c >= 0 and len(data) > c:
        return _s(data[:c])
    return s


def _trim(s: str, cutset: str) -> str:
    """Go's ``strings.Trim``: runes in ``cutset`` removed from both ends; an invalid byte is
    RuneError, removed when the cutset holds RuneError or an invalid byte."""
    if not s or not cutset:
        return s
    cut = {"\ufffd" if "\ud800" <= c <= "\udfff" else c for c in cutset}

    def inside(c: str) -> bool:
        return ("\ufffd" if "\ud800" <= c <= "\udfff" else c) in cut

    start, end = 0, len(s)
    while start < end and inside(s[start]):
        start += 1
    while end > start and inside(s[end - 1]):
        end -= 1
    return s[start:end]


def _trim_prefix(prefix: str, s: str) -> str:
    data, head = _b(s), _b(prefix)
    return _s(data[len(head) :]) if data.startswith(head) else s


def _trim_suffix(suffix: str, s: str) -> str:
    data, tail = _b(s), _b(suffix)
    return _s(data[: len(data) - len(tail)]) if tail and data.endswith(tail) else s


def replace(old: str, new: str, src: str) -> str:
    """Go's ``strings.Replace(src, old, new, -1)``; an empty ``old`` inserts ``new`` around every rune."""
    if old == "":
        return src.replace("", new)
    return _s(_b(src).replace(_b(old), _b(new)))


def _split_parts(orig: str, sep: str, n: int) -> list[str] | None:
    if sep == "":
        return strings.split_n(orig, sep, n)
    if n == 0:
        return None
    parts = _b(orig).split(_b(sep), n - 1 if n > 0 else -1)
    return [_s(p) for p in parts]


def split(sep: str, orig: str) -> values.GoMap:
    """Sprig's ``split``: the parts by key ``_0``, ``_1``... as a ``map[string]string``."""
    parts = _split_parts(orig, sep, -1) or []
    return values.GoMap({f"_{i}": part for i, part in enumerate(parts)}, elem="string")


def splitn(sep: str, n: int, orig: str) -> values.GoMap:
    """Sprig's ``splitn``: ``strings.SplitN`` into a ``map[string]string``."""
    parts = _split_parts(orig, sep, n) or []
    return values.GoMap({f"_{i}": part for i, part in enumerate(parts)}, elem="string")


def split_list(sep: str, orig: str) -> values.GoSlice:
    """Sprig's ``splitList``: ``strings.Split`` as a ``[]string``."""
    return values.GoSlice(_split_parts(orig, sep, -1) or [], elem="string")


def strslice(v: Any) -> values.GoSlice:
    """Sprig's ``strslice`` (``toStrings``): a ``[]string`` as is; each non-nil element of another
    slice as ``strval``; nil as ``[]``; anything else as a one-element list."""
    if isinstance(v, values.GoSlice) and v.elem == "string":
        return v
    if _reflect.is_list(v):
        return values.GoSlice([_reflect.strval(x) for x in v if x is not None], elem="string")
    if v is None:
        return values.GoSlice(elem="string")
    return values.GoSlice([_reflect.strval(v)], elem="string")


def quote(*args: Any) -> str:
    """Sprig's ``quote``: each non-nil argument as Go's ``%q`` of its ``strval``, space-separated."""
    return " ".join(strconv.quote(_reflect.strval(a)) for a in args if a is not None)


def squote(*args: Any) -> str:
    """Sprig's ``squote``: each non-nil argument as ``'%v'``, space-separated."""
    return " ".join(f"'{fmt.sprint(a)}'" for a in args if a is not None)


def cat(*args: Any) -> str:
    """Sprig's ``cat``: the non-nil arguments as ``%v``, space-separated."""
    return " ".join(fmt.sprintf("%v", a) for a in args if a is not None)


def indent(spaces: int, v: str) -> str:
    """Sprig's ``indent``: ``spaces`` spaces before every line."""
    pad = strings.repeat(" ", spaces)
    return pad + v.replace("\n", "\n" + pad)


def atoi(a: str) -> values.GoInt:
    """``strconv.Atoi`` with its error dropped: a syntax error is 0, an overflow the nearest int64."""
    try:
        return values.GoInt(strconv.parse_int_base(a, 10))
    except errors.GoError as exc:
        if str(exc).endswith("value out of range"):
            return values.GoInt(-(1 << 63) if a.startswith("-") else (1 << 63) - 1)
        return values.GoInt(0)


def b64dec(v: str) -> str:
    """Sprig's ``b64dec``: the decoded string, or the decoder's error text in its place."""
    try:
        return _s(base64.std_decode(v))
    except errors.GoError as exc:
        return str(exc)


def b32dec(v: str) -> str:
    """Sprig's ``b32dec``: the decoded string, or the decoder's error text in its place."""
    try:
        return _s(base32.std_decode(v))
    except errors.GoError as exc:
        return str(exc)


def _abbrev(width: int, s: str) -> str:
    if width < 4:
        return s
    try:
        return _goutils.abbreviate_full(s, 0, width)
    except errors.GoError:
        return ""


def _abbrevboth(left: int, right: int, s: str) -> str:
    if right < 4 or (left > 0 and right < 7):
        return s
    try:
        return _goutils.abbreviate_full(s, left, right)
    except errors.GoError:
        return ""


def _random(
    rng: random.Random, letters: bool, numbers: bool, start: int = 0, end: int = 0
) -> Callable[[int], str]:
    def generate(count: int) -> str:
        try:
            return _goutils.crypto_random(rng, count, start=start, end=end, letters=letters, numbers=numbers)
        except errors.GoError:
            return ""  # Sprig drops goutils' error: a negative count is ""

    return generate


def _plural(one: str, many: str, count: int) -> str:
    return one if count == 1 else many


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's string functions for ``profile``."""
    s1, s2, s3 = ("string",), ("string", "string"), ("string", "string", "string")
    rng = sources.rand
    camel = _xstrings.to_pascal_case_150 if profile.pascal_camelcase else _xstrings.to_camel_case_133
    return {
        "hello": F(lambda: "Hello!", (), "string"),
        "abbrev": F(_abbrev, ("int", "string"), "string"),
        "abbrevboth": F(_abbrevboth, ("int", "int", "string"), "string"),
        "trunc": F(trunc, ("int", "string"), "string"),
        "trim": F(strings.trim_space, s1, "string"),
        "upper": F(strings.to_upper, s1, "string"),
        "lower": F(strings.to_lower, s1, "string"),
        "title": F(strings.title, s1, "string"),
        "untitle": F(_goutils.uncapitalize, s1, "string"),
        "substr": F(substring, ("int", "int", "string"), "string"),
        "repeat": F(lambda count, s: strings.repeat(s, count), ("int", "string"), "string"),
        "trimall": F(lambda a, b: _trim(b, a), s2, "string"),
        "trimAll": F(lambda a, b: _trim(b, a), s2, "string"),
        "trimSuffix": F(_trim_suffix, s2, "string"),
        "trimPrefix": F(_trim_prefix, s2, "string"),
        "nospace": F(_goutils.delete_white_space, s1, "string"),
        "initials": F(_goutils.initials, s1, "string"),
        "randAlphaNum": F(_random(rng, True, True), ("int",), "string"),
        "randAlpha": F(_random(rng, True, False), ("int",), "string"),
        "randAscii": F(_random(rng, False, False, 32, 127), ("int",), "string"),
        "randNumeric": F(_random(rng, False, True), ("int",), "string"),
        "swapcase": F(_goutils.swap_case, s1, "string"),
        "shuffle": F(lambda s: _xstrings.shuffle(s, rng), s1, "string"),
        "snakecase": F(lambda s: _xstrings.camel_case_to_lower_case(s, "_"), s1, "string"),
        "camelcase": F(camel, s1, "string"),
        "kebabcase": F(lambda s: _xstrings.camel_case_to_lower_case(s, "-"), s1, "string"),
        "wrap": F(lambda n, s: _goutils.wrap_custom(s, n, "", False), ("int", "string"), "string"),
        "wrapWith": F(
            lambda n, sep, s: _goutils.wrap_custom(s, n, sep, True), ("int", "string", "string"), "string"
        ),
        "contains": F(lambda sub, s: _b(sub) in _b(s), s2, "bool"),
        "hasPrefix": F(lambda pre, s: _b(s).startswith(_b(pre)), s2, "bool"),
        "hasSuffix": F(lambda suf, s: _b(s).endswith(_b(suf)), s2, "bool"),
        "quote": F(quote, (ANY,), "string", variadic=True),
        "squote": F(squote, (ANY,), "string", variadic=True),
        "cat": F(cat, (ANY,), "string", variadic=True),
        "indent": F(indent, ("int", "string"), "string"),
        "nindent": F(lambda n, v: "\n" + indent(n, v), ("int", "string"), "string"),
        "replace": F(replace, s3, "string"),
        "plural": F(_plural, ("string", "string", "int"), "string"),
        "toString": F(_reflect.strval, (ANY,), "string"),
        "atoi": F(atoi, s1, "int"),
        "split": F(split, s2, "map[string]string"),
        "splitList": F(split_list, s2, "[]string"),
        "splitn": F(splitn, ("string", "int", "string"), "map[string]string"),
        "toStrings": F(strslice, (ANY,), "[]string"),
        "join": F(lambda sep, v: _s(_b(sep).join(_b(x) for x in strslice(v))), ("string", ANY), "string"),
        "b64enc": F(lambda v: base64.std_encode(_b(v)), s1, "string"),
        "b64dec": F(b64dec, s1, "string"),
        "b32enc": F(lambda v: base32.std_encode(_b(v)), s1, "string"),
        "b32dec": F(b32dec, s1, "string"),
    }
