"""Go's ``strings.ToUpper`` and ``strings.ToLower``: per-rune simple case mapping.

Go maps each code point on its own with Unicode's *simple* case mapping
(UnicodeData.txt), so ``ToUpper("straße")`` is ``"STRAßE"`` and
``ToLower("ΣΑΣ")`` is ``"σασ"`` (upstream pt-9 item 16).
Python's ``str.upper``/``str.lower`` apply the *full* mapping (SpecialCasing:
``ß`` becomes ``SS``) and context rules (final sigma). Mapping one character at a
time removes the context rules; where the full mapping of a single character is
longer than one character, the simple mapping is taken from the tables below,
which list every such character (checked against UnicodeData 14.0, the version
of Python 3.11's ``unicodedata``). Go 1.21+ uses Unicode 15.0, which adds no case
pairs among these characters.

Invalid UTF-8 bytes (carried as lone surrogates, :mod:`crossfn.gocompat.values`)
become U+FFFD, as Go's ``strings.Map`` writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

__all__ = ["to_lower", "to_upper"]

# Characters whose full uppercase mapping is several characters, but whose
# simple mapping is another single character: Greek letters with ypogegrammeni
# map to their titlecase forms. Every other such character (ß, ŉ, ǰ, ﬁ, ...)
# has no simple uppercase mapping and is kept.
_SIMPLE_UPPER: dict[str, str] = {
    **{chr(c): chr(c + 8) for start in (0x1F80, 0x1F90, 0x1FA0) for c in range(start, start + 8)},
    "\u1fb3": "\u1fbc",
    "\u1fc3": "\u1fcc",
    "\u1ff3": "\u1ffc",
}

# The one character whose full lowercase mapping is several characters:
# U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE, simple lowercase U+0069.
_SIMPLE_LOWER: dict[str, str] = {"\u0130": "i"}


def to_upper(s: str) -> str:
    """Go's ``strings.ToUpper``."""
    if s.isascii():
        return s.upper()
    return "".join(_map_rune(c, str.upper, _SIMPLE_UPPER) for c in s)


def to_lower(s: str) -> str:
    """Go's ``strings.ToLower``."""
    if s.isascii():
        return s.lower()
    return "".join(_map_rune(c, str.lower, _SIMPLE_LOWER) for c in s)


def _map_rune(c: str, full: Callable[[str], str], simple: Mapping[str, str]) -> str:
    """One rune mapped as Go maps it: a surrogate is U+FFFD; Python's mapping when it is one rune, else Go's ``simple`` one."""
    if "\ud800" <= c <= "\udfff":
        return "\ufffd"
    mapped = full(c)
    if len(mapped) == 1:
        return mapped
    return simple.get(c, c)
