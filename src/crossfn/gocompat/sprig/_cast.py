"""spf13/cast's ``ToInt64``, ``ToInt`` and ``ToFloat64`` as Sprig calls them: errors become 0.

Sprig's arithmetic (``add``, ``max``, ``int``, ``float64``, ``slice`` indexes...) converts every
argument with these, so ``add "3" 4`` is 7, ``add "08" 1`` is 1 (``08`` is not octal, the parse
fails, the failure is 0) and ``add 1.9 1`` is 2 (a float truncates). A string is parsed with
``strconv.ParseInt(s, 0, 0)``: ``0x1F``, ``0o17``, ``0b101``, ``017`` and ``1_000`` are numbers.
cast 1.7.0 (Sprig v3.3.0's) first trims a zero fraction (``"12.0"`` is 12) and converts
``time.Month`` and ``time.Weekday``; 1.3.1 (v3.2.3's) gives 0 for both.
"""

from __future__ import annotations

from typing import Any

from crossfn import errors
from crossfn.gocompat import strconv, values
from crossfn.gocompat import time as gotime
from crossfn.gocompat.sprig import _profile, _reflect


def to_int64(v: Any, profile: _profile.Profile) -> int:
    """``cast.ToInt64``; what does not convert is 0."""
    if isinstance(v, gotime.Month | gotime.Weekday):
        return int(v) if profile.cast_trims_zero_decimal else 0
    if isinstance(v, values.GoNamed) or v is None:
        return 0
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return _reflect.int64(int(v))  # a uint64 wraps, as Go's conversion does
    if isinstance(v, float):
        return _reflect.float_to_int64(v)
    if isinstance(v, str):
        text = _trim_zero_decimal(v) if profile.cast_trims_zero_decimal else v
        try:
            return strconv.parse_int_base(text, 0)
        except errors.GoError:
            return 0
    return 0


def to_int(v: Any, profile: _profile.Profile) -> values.GoInt:
    """``cast.ToInt``: :func:`to_int64` as a Go ``int`` (64 bits where functions run)."""
    return values.GoInt(to_int64(v, profile))


def to_float64(v: Any, profile: _profile.Profile) -> float:
    """``cast.ToFloat64``; what does not convert is 0."""
    if isinstance(v, gotime.Month | gotime.Weekday):
        return float(v) if profile.cast_trims_zero_decimal else 0.0
    if isinstance(v, values.GoNamed) or v is None:
        return 0.0
    if isinstance(v, bool | int | float):
        return float(v)
    if isinstance(v, str):
        try:
            return strconv.parse_float(v)
        except errors.GoError:
            return 0.0
    return 0.0


def _trim_zero_decimal(s: str) -> str:
    """cast's ``trimZeroDecimal``: ``"12.00"`` is ``"12"``; any other fraction stays."""
    found_zero = False
    for i in range(len(s), 0, -1):
        c = s[i - 1]
        if c == ".":
            if found_zero:
                return s[: i - 1]
        elif c == "0":
            found_zero = True
        else:
            return s
    return s
