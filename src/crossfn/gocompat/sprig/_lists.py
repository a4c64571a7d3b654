"""Sprig's list functions (``list.go``): any slice in, ``[]interface {}`` out.

Each accepts any slice through reflection (``[]string`` from ``splitList`` as well as
``[]interface {}``) and, in its plain form, panics on anything else, which ``text/template``
reports as the call's error; the ``must`` form returns that error instead (``Cannot find first on
type string``). ``nil`` makes both panic, as ``reflect.TypeOf(nil).Kind()`` does in Go. A few
return Go's *nil* slice, which prints ``[]`` but is ``null`` in JSON: ``rest``, ``initial`` and
``concat`` of nothing.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

from crossfn import errors
from crossfn.gocompat import gofunc, values
from crossfn.gocompat.sprig import _cast, _profile, _reflect, _strings
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["functions", "sort_alpha"]

F = gofunc.Func
ANY = gofunc.ANY
LIST = "[]interface {}"


def _nil_list() -> values.GoSlice:
    return values.GoSlice(nil=True)


def _require_list(v: Any, message: str) -> list[Any]:
    kind = _reflect.type_kind(v)
    if not _reflect.is_list(v):
        raise errors.GoError(message.format(kind=kind))
    return list(v)


def push(v: Any, item: Any) -> list[Any]:
    """``mustPush``: a new list with ``item`` appended."""
    return [*_require_list(v, "Cannot push on type {kind}"), item]


def prepend(v: Any, item: Any) -> list[Any]:
    """``mustPrepend``: a new list with ``item`` first."""
    return [item, *_require_list(v, "Cannot prepend on type {kind}")]


def chunk(size: int, v: Any) -> values.GoSlice:
    """``mustChunk``: lists of ``size`` elements, the last one shorter; Go's float arithmetic decides
    how many, so a size below 1 panics as a negative ``make`` does (or gives none)."""
    items = _require_list(v, "Cannot chunk type {kind}")
    n = len(items)
    count = _go_int(_go_floor(_go_div(float(n - 1), float(size))) + 1)
    if count < 0:
        raise gofunc.Panic("runtime error: makeslice: len out of range")
    chunks: list[Any] = []
    for i in range(count):
        length = size
        if i == count - 1:
            length = _go_int(math.floor(math.fmod(float(n), float(size)) if size else math.nan))
            if length == 0:
                length = size
        if length < 0:
            raise gofunc.Panic("runtime error: makeslice: len out of range")
        part = []
        for j in range(length):
            index = i * size + j
            if not 0 <= index < n:
                raise gofunc.Panic("reflect: slice index out of range")
            part.append(items[index])
        chunks.append(part)
    return values.GoSlice(chunks, elem=LIST)


def _go_div(a: float, b: float) -> float:
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _go_floor(f: float) -> float:
    return f if math.isnan(f) or math.isinf(f) else float(math.floor(f))


def _go_int(f: float) -> int:
    return _reflect.float_to_int64(f)


def last(v: Any) -> Any:
    """``mustLast``: the last element, nil for an empty list."""
    items = _require_list(v, "Cannot find last on type {kind}")
    return items[-1] if items else None


def first(v: Any) -> Any:
    """``mustFirst``: the first element, nil for an empty list."""
    items = _require_list(v, "Cannot find first on type {kind}")
    return items[0] if items else None


def rest(v: Any) -> list[Any]:
    """``mustRest``: all but the first element; a nil slice for an empty list."""
    items = _require_list(v, "Cannot find rest on type {kind}")
    return items[1:] if items else _nil_list()


def initial(v: Any) -> list[Any]:
    """``mustInitial``: all but the last element; a nil slice for an empty list."""
    items = _require_list(v, "Cannot find initial on type {kind}")
    return items[:-1] if items else _nil_list()


def sort_alpha(v: Any) -> values.GoSlice:
    """Sprig's ``sortAlpha``: a slice's elements as strings, sorted bytewise; anything else as ``[strval]``."""
    if _reflect.is_list(v):
        return values.GoSlice(sorted(_strings.strslice(v), key=values.to_bytes), elem="string")
    return values.GoSlice([_reflect.strval(v)], elem="string")


def reverse(v: Any) -> list[Any]:
    """``mustReverse``: a new list in reverse order."""
    return _require_list(v, "Cannot find reverse on type {kind}")[::-1]


def compact(v: Any) -> list[Any]:
    """``mustCompact``: the elements that are not ``empty``."""
    return [x for x in _require_list(v, "Cannot compact on type {kind}") if not _reflect.empty(x)]


def _in_list(haystack: list[Any], needle: Any) -> bool:
    return any(_reflect.deep_equal(needle, h) for h in haystack)


def uniq(v: Any) -> list[Any]:
    """``mustUniq``: the first of each set of ``reflect.DeepEqual`` elements."""
    out: list[Any] = []
    for x in _require_list(v, "Cannot find uniq on type {kind}"):
        if not _in_list(out, x):
            out.append(x)
    return out


def without(v: Any, *omit: Any) -> list[Any]:
    """``mustWithout``: the elements not ``reflect.DeepEqual`` to any of ``omit``."""
    return [x for x in _require_list(v, "Cannot find without on type {kind}") if not _in_list(list(omit), x)]


def has(needle: Any, haystack: Any) -> bool:
    """``mustHas``: whether a slice holds ``needle``; false for nil."""
    if haystack is None:
        return False
    return _in_list(_require_list(haystack, "Cannot find has on type {kind}"), needle)


def slice_(profile: _profile.Profile, v: Any, *indices: Any) -> Any:
    """``mustSlice``: ``list[start:end]`` of the same slice type; nil for an empty list."""
    items = _require_list(v, "list should be type of slice or array but {kind}")
    if not items:
        return None
    start = int(_cast.to_int(indices[0], profile)) if indices else 0
    end = int(_cast.to_int(indices[1], profile)) if len(indices) >= 2 else len(items)
    if not 0 <= start <= end <= len(items):
        raise gofunc.Panic("reflect.Value.Slice: slice index out of bounds")
    if isinstance(v, values.GoSlice):
        return values.GoSlice(items[start:end], elem=v.elem)
    return items[start:end]


def concat(*lists: Any) -> list[Any]:
    """Sprig's ``concat``: the elements of each slice; anything else panics. None is Go's nil slice."""
    out: list[Any] = []
    for v in lists:
        kind = _reflect.type_kind(v)
        if not _reflect.is_list(v):
            raise gofunc.Panic(f"Cannot concat type {kind} as list")
        out.extend(v)
    return out or _nil_list()


def _panicking(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The plain form of a ``must`` function: its error becomes a panic, as Sprig's wrappers do."""

    @functools.wraps(fn)
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except gofunc.Panic:
            raise
        except errors.GoError as exc:
            raise gofunc.Panic(str(exc)) from exc

    return call


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's list functions."""
    del sources
    sliced = functools.partial(slice_, profile)
    pairs: dict[str, tuple[Callable[..., Any], tuple[str, ...], str, bool]] = {
        "Push": (push, (ANY, ANY), LIST, False),
        "Prepend": (prepend, (ANY, ANY), LIST, False),
        "First": (first, (ANY,), ANY, False),
        "Rest": (rest, (ANY,), LIST, False),
        "Last": (last, (ANY,), ANY, False),
        "Initial": (initial, (ANY,), LIST, False),
        "Reverse": (reverse, (ANY,), LIST, False),
        "Uniq": (uniq, (ANY,), LIST, False),
        "Without": (without, (ANY, ANY), LIST, True),
        "Has": (has, (ANY, ANY), "bool", False),
        "Slice": (sliced, (ANY, ANY), ANY, True),
        "Chunk": (chunk, ("int", ANY), "[][]interface {}", False),
        "Compact": (compact, (ANY,), LIST, False),
    }
    table: dict[str, gofunc.Func] = {
        "list": F(lambda *v: list(v), (ANY,), LIST, variadic=True),
        "tuple": F(lambda *v: list(v), (ANY,), LIST, variadic=True),
        "sortAlpha": F(sort_alpha, (ANY,), "[]string"),
        "concat": F(concat, (ANY,), ANY, variadic=True),
    }
    for name, (fn, params, returns, variadic) in pairs.items():
        lower = name[0].lower() + name[1:]
        table[lower] = F(_panicking(fn), params, returns, variadic=variadic)
        table["must" + name] = F(fn, params, returns, variadic=variadic, returns_error=True)
    table["append"], table["mustAppend"] = table["push"], table["mustPush"]
    return table
