"""The builtin functions of Go's ``text/template`` (``text/template/funcs.go``).

Each builtin is a :class:`crossfn.gocompat.gofunc.Func` with Go's signature.
A ``reflect.Value`` parameter receives what the executor holds
(:mod:`._value`: :data:`~._value.INVALID`, an :class:`~._value.Iface`, or a
plain value), as Go's builtins receive ``reflect.Value``; a ``reflect.Value``
result goes back to the executor as it is. ``and``, ``or`` and (from Go 1.24)
``call`` are evaluated by the executor itself; their entries here give the
signature it checks.

The comparisons follow Go's ``basicKind`` rules: values compare only within a
kind (bool, int, uint, float, complex, string), signed and unsigned integers
compare with each other, and ``eq`` also compares a nil with anything nillable.
Up to Go 1.24 a comparison across kinds fails with ``incompatible types for
comparison``; from Go 1.25 the message names both types.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import fmt, gofunc, strconv, values
from crossfn.gocompat.template._value import (
    INVALID,
    Iface,
    TypedNil,
    elem,
    indirect,
    indirect_interface,
    type_of,
)

__all__ = ["BUILTIN_NAMES", "builtins", "is_true", "truth"]

RV = "reflect.Value"
"""A parameter or result type: the executor's own value, unconverted."""

_BOOL, _COMPLEX, _INT, _FLOAT, _STRING, _UINT = 1, 2, 3, 4, 5, 6


def is_true(v: Any) -> tuple[bool, bool]:
    """Go's ``isTrue``: whether ``v`` is non-zero, and whether it has a truth value at all."""
    if v is INVALID or v is None or isinstance(v, TypedNil):
        return False, True
    if isinstance(v, Iface):
        return v.v is not None, True
    if isinstance(v, (bool, int, float, complex)):
        return v != 0, True
    if isinstance(v, (str, list, tuple, Mapping)):
        return len(v) > 0, True
    if isinstance(v, values.GoNamed):
        return True, True  # a struct (a named number or string is an int or str above)
    return False, False


def truth(v: Any) -> bool:
    """Go's ``truth``: :func:`is_true` of the concrete value."""
    return is_true(indirect_interface(v))[0]


def _basic_kind(v: Any) -> int:
    """Go's ``basicKind``; 0 (invalid) for a value no comparison orders."""
    if isinstance(v, bool):
        return _BOOL
    if isinstance(v, values.Uint8 | values.GoUint64):
        return _UINT
    if isinstance(v, int):
        return _INT
    if isinstance(v, float):
        return _FLOAT
    if isinstance(v, complex):
        return _COMPLEX
    if isinstance(v, str):
        return _STRING
    return 0


def _is_nil(v: Any) -> bool:
    return v is INVALID or v is None or isinstance(v, TypedNil)


def _kind(v: Any) -> str:
    """The reflect kind of a value of no basic kind."""
    if v is INVALID or v is None:
        return "invalid"
    if isinstance(v, Mapping) or (isinstance(v, TypedNil) and v.is_map):
        return "map"
    if isinstance(v, (list, tuple, TypedNil)):
        return "slice"
    if isinstance(v, values.GoNamed):
        return v.go_kind
    return "struct"


def _comparable(v: Any) -> bool:
    """Go's ``Type.Comparable`` for the value model: maps and slices are not."""
    if isinstance(v, (list, tuple, Mapping)):
        return False
    if isinstance(v, values.GoNamed):
        return all(_comparable(f) for f in v.go_fields().values() if not _is_nil(f))
    return True


class _Builtins:
    """The builtins, made per Go release: their error texts changed across releases."""

    def __init__(self, *, typed_comparison_errors: bool) -> None:
        self.typed_comparison_errors = typed_comparison_errors

    def incompatible(self, a: Any, b: Any) -> errors.GoError:
        if self.typed_comparison_errors:
            return errors.GoError(f"incompatible types for comparison: {type_of(a)} and {type_of(b)}")
        return errors.GoError("incompatible types for comparison")

    def eq(self, arg1: Any, *arg2: Any) -> bool:
        arg1 = indirect_interface(arg1)
        if not arg2:
            raise errors.GoError("missing argument for comparison")
        k1 = _basic_kind(arg1)
        for each in arg2:
            arg = indirect_interface(each)
            k2 = _basic_kind(arg)
            if k1 != k2:
                if {k1, k2} == {_INT, _UINT}:
                    hit = int(arg1) == int(arg)
                elif arg1 is not INVALID and arg is not INVALID:
                    raise self.incompatible(arg1, arg)
                else:
                    hit = False
            elif k1:
                hit = arg1 == arg
            else:
                hit = self._eq_other(arg1, arg)
            if hit:
                return True
        return False

    @staticmethod
    def _eq_other(arg1: Any, arg: Any) -> bool:
        """``eq`` on values of no basic kind: nils, maps, lists, structs (Go's ``canCompare``)."""
        k1, k2 = _kind(arg1), _kind(arg)
        if k1 != k2 and "invalid" not in (k1, k2):
            raise errors.GoError(
                fmt.sprintf("non-comparable types %s: %v, %s: %v", arg1, type_of(arg1), type_of(arg), arg)
            )
        if _is_nil(arg1) or _is_nil(arg):
            return _is_nil(arg) == _is_nil(arg1)
        if not _comparable(arg):
            raise errors.GoError(fmt.sprintf("non-comparable type %s: %v", arg, type_of(arg)))
        return values.strict_equal(arg1, arg)

    def ne(self, arg1: Any, arg2: Any) -> bool:
        return not self.eq(arg1, arg2)

    def lt(self, arg1: Any, arg2: Any) -> bool:
        arg1 = indirect_interface(arg1)
        k1 = _basic_kind(arg1)
        if not k1:
            raise errors.GoError("invalid type for comparison")
        arg2 = indirect_interface(arg2)
        k2 = _basic_kind(arg2)
        if not k2:
            raise errors.GoError("invalid type for comparison")
        if k1 != k2:
            if {k1, k2} == {_INT, _UINT}:
                return bool(int(arg1) < int(arg2))
            raise self.incompatible(arg1, arg2)
        if k1 in (_BOOL, _COMPLEX):
            raise errors.GoError("invalid type for comparison")
        if k1 == _STRING:
            return values.to_bytes(arg1) < values.to_bytes(arg2)
        return bool(arg1 < arg2)

    def le(self, arg1: Any, arg2: Any) -> bool:
        return self.lt(arg1, arg2) or self.eq(arg1, arg2)

    def gt(self, arg1: Any, arg2: Any) -> bool:
        return not self.le(arg1, arg2)

    def ge(self, arg1: Any, arg2: Any) -> bool:
        return not self.lt(arg1, arg2)


def _index_arg(index: Any, cap: int) -> int:
    """Go's ``indexArg``: an integer index no greater than ``cap``."""
    if index is INVALID:
        raise errors.GoError("cannot index slice/array with nil")
    if isinstance(index, bool) or not isinstance(index, int):
        raise errors.GoError(f"cannot index slice/array with type {type_of(index)}")
    x = int(index)
    if x < 0 or x > cap:
        raise errors.GoError(f"index out of range: {x}")
    return x


def _index(item: Any, *indexes: Any) -> Any:
    item = indirect_interface(item)
    if item is INVALID:
        raise errors.GoError("index of untyped nil")
    for each in indexes:
        index = indirect_interface(each)
        item, is_nil = indirect(item)
        if is_nil or item is None:
            raise errors.GoError("index of nil pointer")
        if isinstance(item, TypedNil):
            item = {} if item.is_map else []
        if isinstance(item, str):
            raw = values.to_bytes(item)
            x = _index_arg(index, len(raw))
            if x == len(raw):
                raise errors.GoError("reflect: string index out of range")
            item = values.Uint8(raw[x])
        elif isinstance(item, (list, tuple)):
            x = _index_arg(index, len(item))
            if x == len(item):
                raise errors.GoError("reflect: slice index out of range")
            item = elem(item, item[x])
        elif isinstance(item, Mapping):
            item = _map_index(item, index)
        else:
            raise errors.GoError(f"can't index item of type {type_of(item)}")
    return item


def _map_index(m: Mapping[Any, Any], index: Any) -> Any:
    """A map element by key (Go's ``prepareArg`` on the key): its zero value when absent."""
    if isinstance(m, values.AnyKeyMap):
        key = None if index is INVALID else index  # any key fits an interface {} key type
        return elem(m, m.get(key))
    if index is INVALID:
        raise errors.GoError("value is nil; should be of type string")
    if not isinstance(index, str):
        raise errors.GoError(f"value has type {type_of(index)}; should be string")
    if index in m:
        return elem(m, m[index])
    return elem(m, None)


def _slice(item: Any, *indexes: Any) -> Any:
    item = indirect_interface(item)
    if item is INVALID:
        raise errors.GoError("slice of untyped nil")
    if len(indexes) > 3:
        raise errors.GoError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, TypedNil) and not item.is_map:
        item = []
    if isinstance(item, str):
        if len(indexes) == 3:
            raise errors.GoError("cannot 3-index slice a string")
        seq: Any = values.to_bytes(item)
    elif isinstance(item, (list, tuple)):
        seq = item
    else:
        raise errors.GoError(f"can't slice item of type {type_of(item)}")
    idx = [0, len(seq), 0]
    for i, index in enumerate(indexes):
        idx[i] = _index_arg(indirect_interface(index), len(seq))
    if idx[0] > idx[1]:
        raise errors.GoError(f"invalid slice index: {idx[0]} > {idx[1]}")
    if len(indexes) == 3 and idx[1] > idx[2]:
        raise errors.GoError(f"invalid slice index: {idx[1]} > {idx[2]}")
    part = seq[idx[0] : idx[1]]
    if isinstance(item, str):
        return values.from_bytes(part)
    return type(item)(part) if isinstance(item, list) else list(part)


def _length(item: Any) -> values.GoInt:
    item, is_nil = indirect(item)
    if is_nil:
        raise errors.GoError("len of nil pointer")
    if item is INVALID:
        raise errors.GoError("reflect: call of reflect.Value.Type on zero Value")
    if isinstance(item, str):
        return values.GoInt(len(values.to_bytes(item)))
    if isinstance(item, (list, tuple, Mapping)):
        return values.GoInt(len(item))
    if item is None or isinstance(item, TypedNil):
        return values.GoInt(0)
    raise errors.GoError(f"len of type {type_of(item)}")


def _not(arg: Any) -> bool:
    return not truth(arg)


def _eval_args(args: tuple[Any, ...]) -> str:
    """Go's ``evalArgs``: one string as it is, else ``fmt.Sprint`` with nil as ``<no value>``."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    return fmt.sprint_args(*("<no value>" if a is None else a for a in args))


_HTML = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}


def html_escape(s: str) -> str:
    """Go's ``template.HTMLEscapeString``."""
    if not any(c in s for c in _HTML):
        return s
    return "".join(_HTML.get(c, c) for c in s)


_JS = {"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "=": "\\u003D"}


def js_escape(s: str) -> str:
    """Go's ``template.JSEscapeString``: quotes and HTML-special characters escaped, controls as ``\\u00XX``."""
    out = []
    for c in s:
        code = ord(c)
        if c in _JS:
            out.append(_JS[c])
        elif code < 0x20:
            out.append(f"\\u00{code:02X}")
        elif code < 0x80 or 0xDC80 <= code <= 0xDCFF:
            out.append(c)  # an invalid byte decodes as U+FFFD, which is printable: copied as it was
        elif strconv.is_print(code):
            out.append(c)
        else:
            out.append(f"\\u{code:04X}")
    return "".join(out)


def url_query_escape(s: str) -> str:
    """Go's ``url.QueryEscape``: space as ``+``, unreserved bytes as they are, the rest ``%XX``."""
    return urllib.parse.quote_plus(values.to_bytes(s), safe="-_.~")


def _call_old(fn: Any, *args: Any) -> Any:
    """``call`` up to Go 1.23: the template's data holds no functions, so there is never one to call."""
    v = indirect_interface(fn)
    if v is INVALID:
        raise errors.GoError("call of nil")
    raise errors.GoError(f"non-function of type {type_of(v)}")


def call_named(name: str, fn: Any, *args: Any) -> Any:
    """``call`` from Go 1.24, which names the callee in its errors."""
    v = indirect_interface(fn)
    if v is INVALID:
        raise errors.GoError("call of nil")
    raise errors.GoError(f"non-function {name} of type {type_of(v)}")


def _unreachable(*args: Any) -> Any:
    raise errors.GoError("unreachable")  # and, or and call are evaluated by the executor


BUILTIN_NAMES = frozenset(
    {
        "and",
        "call",
        "html",
        "index",
        "slice",
        "js",
        "len",
        "not",
        "or",
        "print",
        "printf",
        "println",
        "urlquery",
    }
    | {"eq", "ge", "gt", "le", "lt", "ne"}
)


def builtins(*, typed_comparison_errors: bool, call_names_callee: bool) -> dict[str, gofunc.Func]:
    """The builtin function map of one Go release."""
    b = _Builtins(typed_comparison_errors=typed_comparison_errors)
    cmp = (RV, RV)
    return {
        "and": gofunc.Func(_unreachable, (RV, RV), returns=RV, variadic=True),
        "or": gofunc.Func(_unreachable, (RV, RV), returns=RV, variadic=True),
        "call": (
            gofunc.Func(_unreachable, (RV, RV), returns=RV, variadic=True)
            if call_names_callee
            else gofunc.Func(_call_old, (RV, RV), returns=RV, variadic=True, returns_error=True)
        ),
        "html": gofunc.Func(
            lambda *a: html_escape(_eval_args(a)), (gofunc.ANY,), returns="string", variadic=True
        ),
        "js": gofunc.Func(
            lambda *a: js_escape(_eval_args(a)), (gofunc.ANY,), returns="string", variadic=True
        ),
        "urlquery": gofunc.Func(
            lambda *a: url_query_escape(_eval_args(a)), (gofunc.ANY,), returns="string", variadic=True
        ),
        "index": gofunc.Func(_index, (RV, RV), returns=RV, variadic=True, returns_error=True),
        "slice": gofunc.Func(_slice, (RV, RV), returns=RV, variadic=True, returns_error=True),
        "len": gofunc.Func(_length, (RV,), returns="int", returns_error=True),
        "not": gofunc.Func(_not, (RV,), returns="bool"),
        "print": gofunc.Func(fmt.sprint_args, (gofunc.ANY,), returns="string", variadic=True),
        "printf": gofunc.Func(fmt.sprintf, ("string", gofunc.ANY), returns="string", variadic=True),
        "println": gofunc.Func(fmt.sprintln, (gofunc.ANY,), returns="string", variadic=True),
        "eq": gofunc.Func(b.eq, cmp, returns="bool", variadic=True, returns_error=True),
        "ne": gofunc.Func(b.ne, cmp, returns="bool", returns_error=True),
        "lt": gofunc.Func(b.lt, cmp, returns="bool", returns_error=True),
        "le": gofunc.Func(b.le, cmp, returns="bool", returns_error=True),
        "gt": gofunc.Func(b.gt, cmp, returns="bool", returns_error=True),
        "ge": gofunc.Func(b.ge, cmp, returns="bool", returns_error=True),
    }
