"""Go's ``strings`` package where Python's ``str`` methods give other results.

Case mapping (``ToUpper``, ``ToLower``, ``Title``) is per rune, with simple mappings;
``TrimSpace`` trims Go's White_Space, not ``str.isspace``'s; ``Split`` with an empty separator
splits into runes where ``str.split`` raises; ``Repeat`` panics as Go does on a negative count.

Go maps each code point on its own with Unicode's *simple* case mapping
(UnicodeData.txt), so ``ToUpper("straße")`` is ``"STRAßE"`` and
``ToLower("ΣΑΣ")`` is ``"σασ"`` (upstream pt-9 item 16).
Python's ``str.upper``/``str.lower`` apply the *full* mapping (SpecialCasing:
``ß`` becomes ``SS``) and context rules (final sigma). Mapping one rune at a
time with :mod:`crossfn.gocompat.unicode` removes both.

Invalid UTF-8 bytes (carried as lone surrogates, :mod:`crossfn.gocompat.values`)
become U+FFFD, as Go's ``strings.Map`` writes them.
"""

from __future__ import annotations

from crossfn.gocompat import gofunc, unicode, values

__all__ = ["repeat", "split", "split_n", "title", "to_lower", "to_upper", "trim_space"]

_INT64_MAX = (1 << 63) - 1


def to_upper(s: str) -> str:
    """Go's ``strings.ToUpper``."""
    if s.isascii():
        return s.upper()
    return "".join(unicode.to_upper(c) for c in s)


def to_lower(s: str) -> str:
    """Go's ``strings.ToLower``."""
    if s.isascii():
        return s.lower()
    return "".join(unicode.to_lower(c) for c in s)


def title(s: str) -> str:
    """Go's ``strings.Title`` (deprecated upstream, still Sprig's ``title``): title-case the first
    rune of each word; a word starts after a separator (not an ASCII letter, digit or ``_``, and
    not a Unicode letter or digit unless it is a space)."""
    out: list[str] = []
    prev = " "
    for c in s:
        out.append(unicode.to_title(c) if _is_separator(prev) else _rune(c))
        prev = c
    return "".join(out)


def _is_separator(c: str) -> bool:
    if c.isascii():
        return not (c.isalnum() or c == "_")
    if unicode.is_letter(c) or unicode.is_digit(c):
        return False
    return unicode.is_space(c)


def _rune(c: str) -> str:
    """A rune as ``strings.Map`` writes it back: an invalid byte becomes U+FFFD."""
    return "\ufffd" if "\ud800" <= c <= "\udfff" else c


def trim_space(s: str) -> str:
    """Go's ``strings.TrimSpace``: leading and trailing White_Space runes removed."""
    start, end = 0, len(s)
    while start < end and unicode.is_space(s[start]):
        start += 1
    while end > start and unicode.is_space(s[end - 1]):
        end -= 1
    return s[start:end]


def split(s: str, sep: str) -> list[str]:
    """Go's ``strings.Split``: an empty ``sep`` splits after each rune (each invalid byte alone)."""
    return split_n(s, sep, -1) or []


def split_n(s: str, sep: str, n: int) -> list[str] | None:
    """Go's ``strings.SplitN``: at most ``n`` parts (all when negative); None, Go's nil, when 0."""
    if n == 0:
        return None
    if sep == "":
        runes = list(s)
        if n < 0 or n >= len(runes):
            return runes
        return [*runes[: n - 1], "".join(runes[n - 1 :])]
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def repeat(s: str, count: int) -> str:
    """Go's ``strings.Repeat``; a negative count or an int64 overflow panics with Go's text."""
    if count < 0:
        raise gofunc.Panic("strings: negative Repeat count")
    size = len(values.to_bytes(s))
    if count and size > _INT64_MAX // count:
        raise gofunc.Panic("strings: Repeat output length overflow")
    return s * count
