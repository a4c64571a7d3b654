"""What go-yaml v2 makes of a scalar's text (``resolve.go``): the one rule the YAML loader and emitter share.

Kubernetes reads YAML with ``sigs.k8s.io/yaml``, whose fork of go-yaml v2
resolves an unquoted scalar by its first character:

* a fixed table: ``y``/``Y``/``yes``/``Yes``/``YES``/``on``/... and ``true``/...
  are booleans, ``n``/``N``/``no``/``off``/... and ``false``/... too;
  ``""``/``~``/``null``/``Null``/``NULL`` are null; ``.inf``/``.nan`` in three
  spellings each are floats (``<<``, the merge key, is found by the decoder,
  not here);
* a leading ``.`` is a float if Go's ``strconv.ParseFloat`` takes the text
  (``.5``; not ``.5e400``, which overflows);
* a leading digit or sign: a timestamp if Go's ``time.Parse`` takes one of
  four layouts, else an integer if Go's ``ParseInt(s, 0, 64)`` or
  ``ParseUint(s, 0, 64)`` takes the text with every ``_`` removed (so ``0x1F``,
  ``0o17``, ``0b101``, ``017`` octal, ``1_000``), else a float if it looks
  like one (``[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?``) and
  ``ParseFloat`` takes it: ``08`` is 8.0, ``+.5`` is 0.5, ``1e3`` is 1000.0;
* anything else is a string: ``22:00`` (no base-60 numbers), ``0x``,
  ``1e400``, a hex number past 64 bits.

An explicit standard tag (``!!int 08``) resolves the same way and must agree
with the tag (an int is accepted as a float), else go-yaml's
``yaml: cannot decode !!float `08` as a !!int``.
"""

from __future__ import annotations

import math
import re
from typing import Any

from crossfn import errors
from crossfn.gocompat import strconv

__all__ = ["BOOL", "FLOAT", "INT", "NULL", "STR", "TIMESTAMP", "is_base60_float", "is_string", "resolve"]

NULL, BOOL, STR, INT, FLOAT, TIMESTAMP = "!!null", "!!bool", "!!str", "!!int", "!!float", "!!timestamp"
_RESOLVABLE = frozenset({"", STR, BOOL, INT, FLOAT, NULL, TIMESTAMP})

_MAP: dict[str, tuple[str, Any]] = {
    **dict.fromkeys(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"], (BOOL, True)),
    **dict.fromkeys(
        ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"], (BOOL, False)
    ),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], (NULL, None)),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], (FLOAT, math.nan)),
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], (FLOAT, math.inf)),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], (FLOAT, -math.inf)),
}
_HINTS = {"+": "S", "-": "S", ".": "."} | dict.fromkeys("0123456789", "D") | dict.fromkeys("yYnNtTfFoO~", "M")

_GO_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_YAML_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_BASE60_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_DATE = r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
_CLOCK = r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?"
_TIMESTAMPS = (
    re.compile(_DATE + r"[Tt]" + _CLOCK + r"(?:Z|[-+][0-9]{2}:[0-9]{2})"),
    re.compile(_DATE + r" " + _CLOCK),
    re.compile(_DATE),
)
_INT64 = 1 << 63
_UINT64 = 1 << 64


def resolve(text: str, tag: str = "") -> tuple[str, Any]:
    """``(tag, value)`` as go-yaml v2's ``resolve(tag, text)``: ``tag`` is ``""`` for a plain scalar.

    Integers are Python ints in the int64 or uint64 range, floats are floats,
    a timestamp's value is its text (Kubernetes keeps it a string), a tag go-yaml
    does not resolve (``!custom``, ``!!binary``) gives the text unchanged.
    """
    if tag not in _RESOLVABLE:
        return tag, text
    rtag, value = _resolve(text) if tag != STR else (STR, text)
    if tag in ("", rtag, STR):
        return rtag, value
    if tag == FLOAT and rtag == INT and isinstance(value, int) and -_INT64 <= value < _INT64:
        return FLOAT, float(value)
    raise errors.GoError(f"yaml: cannot decode {rtag} `{text}` as a {tag}")


def is_string(text: str) -> bool:
    """Whether go-yaml reads ``text``, unquoted, as a string: ``resolve(text)[0] == STR``, quicker."""
    hint = _HINTS.get(text[:1])
    if hint is None:
        return bool(text)
    if hint == "M":
        return text not in _MAP
    return _resolve(text)[0] == STR


def _resolve(text: str) -> tuple[str, Any]:
    hint = _HINTS.get(text[:1], "M" if not text else "")
    if not hint:
        return STR, text
    found = _MAP.get(text)
    if found is not None:
        return found
    if hint == ".":
        try:
            return FLOAT, strconv.parse_float(text)
        except errors.GoError:
            return STR, text
    if hint in "DS":
        if hint == "D" and _is_timestamp(text):
            return TIMESTAMP, text
        plain = text.replace("_", "")
        number = _go_int(plain)
        if number is not None:
            return INT, number
        if _YAML_FLOAT.fullmatch(plain):
            try:
                return FLOAT, strconv.parse_float(plain)
            except errors.GoError:
                pass  # out of range: a string
    return STR, text


def _go_int(plain: str) -> int | None:
    """Go's ``ParseInt(plain, 0, 64)``, else ``ParseUint(plain, 0, 64)`` (no sign), else ``None``."""
    if not _GO_INT.fullmatch(plain) or len(plain.lstrip("+-0")) > 66:  # past 64 binary digits and a prefix
        return None
    body = plain.lstrip("+-")
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        value = int(body[2:], {"0x": 16, "0o": 8, "0b": 2}[prefix])
    else:
        value = int(body, 8 if len(body) > 1 and body[0] == "0" else 10)
    if plain[0] == "-":
        value = -value
    if -_INT64 <= value < _INT64 or (plain[0] not in "+-" and value < _UINT64):
        return value
    return None


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


def is_base60_float(s: str) -> bool:
    """go-yaml's ``isBase60Float``: YAML 1.1's ``1:30``, which go-yaml reads as a string but quotes on output."""
    return bool(s) and (s[0] in "+-" or s[0].isdigit()) and ":" in s and bool(_BASE60_FLOAT.fullmatch(s))
