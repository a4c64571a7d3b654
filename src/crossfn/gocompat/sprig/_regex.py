"""Sprig's regular-expression functions, on Go's RE2 syntax through :mod:`crossfn.gocompat.regexp`.

Each comes in two forms. The plain one compiles with ``regexp.MustCompile``, so a bad pattern
panics with the pattern quoted (``regexp: Compile(`a(`): error parsing regexp: missing closing ):
`a(```), except ``regexMatch``, which answers false; the ``must`` one returns the compile error.
Matching follows Go: successive matches skip an empty one right after the previous match, and
``$1``, ``${name}`` and ``$$`` expand as Go's ``Regexp.Expand`` does (``$1W`` names group ``1W``).
"""

from __future__ import annotations

from crossfn import errors
from crossfn.gocompat import gofunc, regexp, strconv, values
from crossfn.gocompat.sprig import _profile
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["functions"]

F = gofunc.Func


def _must_compile(expr: str) -> regexp.Regexp:
    """``regexp.MustCompile``: a bad pattern panics with the pattern quoted as Go quotes it."""
    try:
        return regexp.compile(expr)
    except errors.GoError as exc:
        shown = f"`{expr}`" if strconv.can_backquote(expr) else strconv.quote(expr)
        raise gofunc.Panic(f"regexp: Compile({shown}): {exc}") from None


def _strings(found: list[str] | None) -> values.GoSlice:
    """A ``[]string`` result; Go's nil when there is none."""
    return values.GoSlice(found or [], elem="string", nil=found is None)


def _match(expr: str, s: str) -> bool:
    try:
        return regexp.compile(expr).match_string(s)
    except errors.GoError:
        return False


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's regex functions."""
    del profile, sources
    compile_ = regexp.compile
    s2, s3, find_all = ("string", "string"), ("string", "string", "string"), ("string", "string", "int")
    return {
        "regexMatch": F(_match, s2, "bool"),
        "mustRegexMatch": F(lambda r, s: compile_(r).match_string(s), s2, "bool", returns_error=True),
        "regexFindAll": F(
            lambda r, s, n: _strings(_must_compile(r).find_all_string(s, n)), find_all, "[]string"
        ),
        "mustRegexFindAll": F(
            lambda r, s, n: _strings(compile_(r).find_all_string(s, n)),
            find_all,
            "[]string",
            returns_error=True,
        ),
        "regexFind": F(lambda r, s: _must_compile(r).find_string(s), s2, "string"),
        "mustRegexFind": F(lambda r, s: compile_(r).find_string(s), s2, "string", returns_error=True),
        "regexReplaceAll": F(lambda r, s, t: _must_compile(r).replace_all_string(s, t), s3, "string"),
        "mustRegexReplaceAll": F(
            lambda r, s, t: compile_(r).replace_all_string(s, t), s3, "string", returns_error=True
        ),
        "regexReplaceAllLiteral": F(
            lambda r, s, t: _must_compile(r).replace_all_string(s, t, literal=True), s3, "string"
        ),
        "mustRegexReplaceAllLiteral": F(
            lambda r, s, t: compile_(r).replace_all_string(s, t, literal=True),
            s3,
            "string",
            returns_error=True,
        ),
        "regexSplit": F(lambda r, s, n: _strings(_must_compile(r).split(s, n)), find_all, "[]string"),
        "mustRegexSplit": F(
            lambda r, s, n: _strings(compile_(r).split(s, n)), find_all, "[]string", returns_error=True
        ),
        "regexQuoteMeta": F(regexp.quote_meta, ("string",), "string"),
    }
