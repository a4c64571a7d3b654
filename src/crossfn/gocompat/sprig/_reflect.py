"""What Sprig asks Go's ``reflect`` and runtime, answered for the Go value model.

Sprig's functions take ``interface{}`` and look inside with ``reflect``: ``reflect.TypeOf(x).Kind()``
to accept any slice, ``reflect.ValueOf(x).Kind()`` for ``kindOf``, ``reflect.DeepEqual`` for
``has`` and ``uniq``. When Go code meets a value it does not expect it panics, and
``text/template`` reports the panic's text as the call's error; this module gives those texts
(:func:`nil_kind` is what ``reflect.TypeOf(nil).Kind()`` does). Integer arithmetic wraps at
64 bits as Go's does (:func:`int64`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from crossfn.gocompat import fmt, gofunc, values

NIL_DEREFERENCE = "runtime error: invalid memory address or nil pointer dereference"
_U63 = 1 << 63


def int64(n: int) -> int:
    """``n`` wrapped to int64, as Go's integer arithmetic overflows."""
    return (n + _U63) % (1 << 64) - _U63


def float_to_int64(f: float) -> int:
    """Go's ``int64(f)`` on amd64: truncation, and the minimum int64 for NaN or out of range."""
    if math.isnan(f) or not -9.223372036854775808e18 <= f < 9.223372036854775808e18:
        return -_U63
    return int(f)


def quo(a: int, b: int) -> int:
    """Go's int64 ``a / b``: truncated toward zero; a zero divisor panics as Go's runtime does."""
    if b == 0:
        raise gofunc.Panic("runtime error: integer divide by zero")
    q = abs(a) // abs(b)
    return int64(q if (a < 0) == (b < 0) else -q)


def rem(a: int, b: int) -> int:
    """Go's int64 ``a % b``: the sign of the dividend."""
    if b == 0:
        raise gofunc.Panic("runtime error: integer divide by zero")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def kind(v: Any) -> str:
    """``reflect.ValueOf(v).Kind().String()``: ``invalid`` for nil."""
    if v is None:
        return "invalid"
    if isinstance(v, values.GoNamed):
        return v.go_kind
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, values.GoInt):
        return "int"
    if isinstance(v, values.GoUint64):
        return "uint64"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, Mapping):
        return "map"
    if isinstance(v, list | tuple):
        return "slice"
    return "invalid"


def type_kind(v: Any) -> str:
    """``reflect.TypeOf(v).Kind().String()``, which panics on nil."""
    if v is None:
        raise gofunc.Panic(NIL_DEREFERENCE)
    return kind(v)


def is_list(v: Any) -> bool:
    """Whether ``v`` is a Go slice (what ``reflect.Slice, reflect.Array`` cases accept)."""
    return isinstance(v, list | tuple)


def empty(v: Any) -> bool:
    """Sprig's ``empty``: the zero value of its type; structs never, pointers when nil."""
    if v is None:
        return True
    if isinstance(v, values.GoNamed) and not isinstance(v, int):
        return False
    if isinstance(v, str | list | tuple | Mapping):
        return len(v) == 0
    if isinstance(v, bool):
        return not v
    if isinstance(v, int | float):
        return v == 0
    return False


def deep_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` (NaN is unequal to itself, as in Go)."""
    return values.strict_equal(a, b)


def strval(v: Any) -> str:
    """Sprig's ``strval``: a string as is, a ``[]byte`` as its text, a ``fmt.Stringer``'s ``String()``,
    else ``%v``."""
    if isinstance(v, values.GoSlice) and v.elem == "uint8":
        return values.from_bytes(bytes(int(b) for b in v))
    return fmt.sprint(v)


def interface_conversion(v: Any, want: str) -> gofunc.Panic:
    """The panic of a failed type assertion ``v.(want)`` on an ``interface {}``."""
    got = "nil" if v is None else values.type_name(v)
    return gofunc.Panic(f"interface conversion: interface {{}} is {got}, not {want}")
