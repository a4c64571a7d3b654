"""go-yaml v2's scalar rules that decide how render's output looks: resolution, numbers, key order.

Three facts about a value that ``crossfn.render.output`` needs, each as
go-yaml v2.4 (``sigs.k8s.io/yaml``'s fork) computes it:

* :func:`resolves_to_non_string`: would YAML 1.1 read this string, unquoted,
  as a bool, null, int, float, timestamp or merge key (``resolve.go``)? Then
  it must be quoted.
* :func:`go_float`: a float as Go's ``strconv.FormatFloat(f, 'g', -1, 64)``.
* :func:`sorted_items`: map entries in go-yaml's natural key order
  (``sorter.go``): digit runs compare as numbers, non-letters sort before
  letters.

Pure functions, no I/O; neighbours: ``output`` (the emitter that uses them).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from crossfn.gocompat import strconv

__all__ = ["go_float", "needs_quotes", "resolves_to_non_string", "sorted_items"]


# --- what an unquoted scalar would resolve to (go-yaml v2 resolve.go) --------

_RESOLVE_MAP = frozenset(
    [
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "true",
        "True",
        "TRUE",
        "on",
        "On",
        "ON",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "false",
        "False",
        "FALSE",
        "off",
        "Off",
        "OFF",
        "~",
        "null",
        "Null",
        "NULL",
        ".nan",
        ".NaN",
        ".NAN",
        ".inf",
        ".Inf",
        ".INF",
        "+.inf",
        "+.Inf",
        "+.INF",
        "-.inf",
        "-.Inf",
        "-.INF",
    ]
) | {""}
_HINTS = {"+": "S", "-": "S", ".": "."} | dict.fromkeys("0123456789", "D") | dict.fromkeys("yYnNtTfFoO~", "M")
_GO_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_BASE60_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_DATE = r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
_CLOCK = r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?"
_TIMESTAMPS = (
    re.compile(_DATE + r"[Tt]" + _CLOCK + r"(?:Z|[-+][0-9]{2}:[0-9]{2})"),
    re.compile(_DATE + r" " + _CLOCK),
    re.compile(_DATE),
)


def _is_go_int(plain: str) -> bool:
    """Whether Go's ``ParseInt(s, 0, 64)`` or ``ParseUint(s, 0, 64)`` accepts ``plain``."""
    if not _GO_INT.fullmatch(plain):
        return False
    body = plain.lstrip("+-")
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        value = int(body[2:], {"0x": 16, "0o": 8, "0b": 2}[prefix])
    else:
        value = int(body, 8 if len(body) > 1 and body[0] == "0" else 10)
    if plain[0] == "-":
        value = -value
    if -(2**63) <= value < 2**63:
        return True
    return plain[0] not in "+-" and value < 2**64  # ParseUint takes no sign


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _is_timestamp(s: str) -> bool:
    """Whether go-yaml's ``parseTimestamp`` (Go ``time.Parse`` with its four layouts) accepts ``s``."""
    for pattern in _TIMESTAMPS:
        m = pattern.fullmatch(s)
        if m is None:
            continue
        year, month, day = int(m[1]), int(m[2]), int(m[3])
        if not (1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)):
            return False
        if m.lastindex and m.lastindex >= 6:
            return int(m[4]) < 24 and int(m[5]) < 60 and int(m[6]) < 60
        return True
    return False


def needs_quotes(s: str) -> bool:
    """Whether go-yaml's encoder quotes ``s`` (``encode.go`` ``stringv``): it resolves to a non-string,
    or looks like a YAML 1.1 base-60 float, which other parsers would misread."""
    return resolves_to_non_string(s) or bool(_BASE60_FLOAT.fullmatch(s))


def resolves_to_non_string(s: str) -> bool:
    """Whether go-yaml would read ``s``, written unquoted, as anything but a string."""
    hint = _HINTS.get(s[:1], "N" if not s else "")
    if not hint:
        return False
    if s in _RESOLVE_MAP:
        return True
    if hint == ".":
        return bool(_DOT_FLOAT.fullmatch(s))
    if hint in "DS":
        if hint == "D" and _is_timestamp(s):
            return True
        plain = s.replace("_", "")
        if plain and _is_go_int(plain):
            return True
        if _YAML_FLOAT.fullmatch(plain):
            return not math.isinf(float(plain))
    return False


# --- numbers as Go prints them ---------------------------------------------------


_SPECIAL_FLOATS = {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}


def go_float(f: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 64)``, with go-yaml's spellings of infinities and NaN."""
    text = strconv.format_float(f, "g", -1)
    return _SPECIAL_FLOATS.get(text, text)


# --- natural key order (go-yaml v2 sorter.go keyList.Less) ------------------------


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch).startswith("L")


def _is_digit(ch: str) -> bool:
    return unicodedata.category(ch) == "Nd"


def _key_less(a: str, b: str) -> bool:
    """go-yaml's key order: runs of digits compare as numbers, non-letters before letters."""
    for i in range(min(len(a), len(b))):
        ca, cb = a[i], b[i]
        if ca == cb:
            continue
        al, bl = _is_letter(ca), _is_letter(cb)
        if al and bl:
            return ca < cb
        if al or bl:
            return bl
        an = bn = 0
        if ca == "0" or cb == "0":
            j = i - 1
            while j >= 0 and _is_digit(a[j]):
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(a) and _is_digit(a[ai]):
            an = an * 10 + ord(a[ai]) - 48
            ai += 1
        bi = i
        while bi < len(b) and _is_digit(b[bi]):
            bn = bn * 10 + ord(b[bi]) - 48
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ca < cb
    return len(a) < len(b)


class _Key:
    __slots__ = ("s",)

    def __init__(self, s: str) -> None:
        self.s = s

    def __lt__(self, other: _Key) -> bool:
        return _key_less(self.s, other.s)


_LETTERS = re.compile(r"[A-Za-z]*")


def sorted_items(m: Mapping[str, Any]) -> list[tuple[str, Any]]:
    if all(isinstance(k, str) and _LETTERS.fullmatch(k) for k in m):
        # For ASCII letters alone go-yaml's order is plain string order.
        return sorted(m.items())
    return sorted(m.items(), key=lambda kv: _Key(kv[0]))
