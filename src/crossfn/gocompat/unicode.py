"""Go's ``unicode`` package for one rune: its class predicates and its simple case mappings.

Go code classifies runes with ``unicode.IsUpper``, ``IsLetter``, ``IsSpace``... and maps them
with ``unicode.ToUpper``/``ToLower``/``ToTitle``; Sprig's ``snakecase``, ``swapcase``,
``title`` and ``untitle`` are built on them. Python's ``str`` methods differ in ways that show:

* ``str.isupper()`` asks whether a *string* has cased characters and no lower-case ones; Go's
  ``IsUpper`` asks whether the rune's general category is ``Lu``. Here every predicate reads the
  category (``unicodedata.category``);
* ``str.isspace()`` counts the separators U+001C..U+001F; Go's ``IsSpace`` is the Unicode
  ``White_Space`` property (:data:`_SPACE`);
* ``str.upper()`` applies the *full* case mapping (``ß`` becomes ``SS``); Go maps each rune with
  the *simple* one. A rune whose full mapping is several characters keeps its simple mapping
  from the tables below, or itself when it has none (the tables list every such rune; checked
  against UnicodeData 14.0, Python 3.11's ``unicodedata``).

A lone surrogate (an invalid UTF-8 byte carried by :mod:`crossfn.gocompat.values`) is
``utf8.RuneError`` to Go: U+FFFD, which every predicate here answers for.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

__all__ = [
    "is_digit",
    "is_letter",
    "is_lower",
    "is_number",
    "is_punct",
    "is_space",
    "is_title",
    "is_upper",
    "to_lower",
    "to_title",
    "to_upper",
]

# Runes whose full uppercase mapping is several characters but whose simple mapping is another
# single rune: Greek letters with ypogegrammeni map to their titlecase forms. Every other such
# rune (ß, ŉ, ǰ, ﬁ, ...) has no simple uppercase mapping and maps to itself.
_SIMPLE_UPPER: dict[str, str] = {
    **{chr(c): chr(c + 8) for start in (0x1F80, 0x1F90, 0x1FA0) for c in range(start, start + 8)},
    "\u1fb3": "\u1fbc",
    "\u1fc3": "\u1fcc",
    "\u1ff3": "\u1ffc",
}

# The one rune whose full lowercase mapping is several characters: U+0130 LATIN CAPITAL LETTER I
# WITH DOT ABOVE, simple lowercase U+0069.
_SIMPLE_LOWER: dict[str, str] = {"\u0130": "i"}

# Go's White_Space runes (unicode.IsSpace).
_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def _category(c: str) -> str:
    return "So" if "\ud800" <= c <= "\udfff" else unicodedata.category(c)


def is_upper(c: str) -> bool:
    """``unicode.IsUpper``: category Lu."""
    return _category(c) == "Lu"


def is_lower(c: str) -> bool:
    """``unicode.IsLower``: category Ll."""
    return _category(c) == "Ll"


def is_title(c: str) -> bool:
    """``unicode.IsTitle``: category Lt."""
    return _category(c) == "Lt"


def is_letter(c: str) -> bool:
    """``unicode.IsLetter``: category L."""
    return _category(c)[0] == "L"


def is_digit(c: str) -> bool:
    """``unicode.IsDigit``: category Nd."""
    return _category(c) == "Nd"


def is_number(c: str) -> bool:
    """``unicode.IsNumber``: category N."""
    return _category(c)[0] == "N"


def is_punct(c: str) -> bool:
    """``unicode.IsPunct``: category P."""
    return _category(c)[0] == "P"


def is_space(c: str) -> bool:
    """``unicode.IsSpace``: the White_Space property."""
    return c in _SPACE


def to_upper(c: str) -> str:
    """``unicode.ToUpper`` of one rune (a lone surrogate is U+FFFD)."""
    return _map(c, str.upper, _SIMPLE_UPPER)


def to_lower(c: str) -> str:
    """``unicode.ToLower`` of one rune (a lone surrogate is U+FFFD)."""
    return _map(c, str.lower, _SIMPLE_LOWER)


def to_title(c: str) -> str:
    """``unicode.ToTitle`` of one rune (a lone surrogate is U+FFFD).

    No rune has a single-rune simple titlecase mapping that differs from a multi-rune full one,
    so a multi-rune full mapping means the rune maps to itself.
    """
    return _map(c, str.title, {})


def _map(c: str, full: Callable[[str], str], simple: dict[str, str]) -> str:
    if "\ud800" <= c <= "\udfff":
        return "\ufffd"
    mapped = full(c)
    if len(mapped) == 1:
        return mapped
    return simple.get(c, c)
