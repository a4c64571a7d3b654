"""Sprig's dict functions (``dict.go``), with mergo's merge and copystructure's deep copy.

Go maps have no order; Sprig's ``keys`` and ``values`` return them in Go's random iteration
order, which templates sort (``keys $d | sortAlpha``). Here both follow the keys' byte order, so
a render is repeatable; any order is one Go could have produced (docs/compatibility.md).

``merge`` and ``mergeOverwrite`` are mergo's ``Merge``/``MergeWithOverwrite`` of
``map[string]interface {}`` values, traced from mergo's ``deepMerge``: a missing or empty
destination key takes the source's value (the *same* nested map, not a copy, as
Sprig's issue 188 shows); two nested maps merge in place; a non-empty destination slice is never
merged into; ``mergeOverwrite`` replaces with every non-nil source value, empty ones included,
while ``merge`` skips nil source values. Named values (times, versions) merge as opaque values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import gofunc, values
from crossfn.gocompat.sprig import _profile, _reflect, _semver
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["deep_copy", "functions", "merge"]

F = gofunc.Func
ANY = gofunc.ANY
MAP = "map[string]interface {}"


def _key_order(d: Mapping[str, Any]) -> list[str]:
    return sorted(d, key=values.to_bytes)


def dict_(*args: Any) -> dict[str, Any]:
    """Sprig's ``dict``: keys by ``strval``, a missing last value is ``""``."""
    out: dict[str, Any] = {}
    for i in range(0, len(args), 2):
        out[_reflect.strval(args[i])] = args[i + 1] if i + 1 < len(args) else ""
    return out


def _set_entry(dst: dict[str, Any], key: str, value: Any, src: Mapping[str, Any]) -> None:
    """``reflect.Value.SetMapIndex``: a typed map takes only values of its element type."""
    if isinstance(dst, values.GoMap) and not (isinstance(src, values.GoMap) and src.elem == dst.elem):
        source = "interface {}" if not isinstance(src, values.GoMap) else src.elem
        raise gofunc.Panic(
            f"reflect.Value.SetMapIndex: value of type {source} is not assignable to type {dst.elem}"
        )
    dst[key] = value


def _merge_map(dst: dict[str, Any], src: Mapping[str, Any], overwrite: bool) -> None:
    """mergo's ``deepMerge`` of two maps (dst is modified in place)."""
    for key in list(src):
        s = src[key]
        present = key in dst
        d = dst.get(key)
        if s is None and not isinstance(src, values.GoMap):
            if overwrite:
                _set_entry(dst, key, None, src)
            continue
        if isinstance(s, Mapping) and isinstance(d, dict):
            _merge_map(d, s, overwrite)
        elif (
            not overwrite
            and isinstance(d, values.GoNamed)
            and d.go_kind == "ptr"
            and (isinstance(s, Mapping) or (isinstance(s, values.GoNamed) and s.go_kind == "struct"))
        ):
            raise errors.GoError("src and dst must be of same type")  # mergo's ErrDifferentArgumentsTypes
        elif _reflect.is_list(s):
            if overwrite or not dst:
                replacement = s
            elif not present or d is None:
                replacement = values.GoSlice(elem=s.elem) if isinstance(s, values.GoSlice) else []
            else:
                replacement = d
            _set_entry(dst, key, replacement, src)
        if present and not _reflect.empty(d):
            if _reflect.is_list(s):
                continue
            if isinstance(s, Mapping) and isinstance(d, Mapping):
                continue
        if overwrite or not present or _reflect.empty(d):
            _set_entry(dst, key, s, src)


def merge(dst: dict[str, Any] | None, srcs: tuple[Any, ...], overwrite: bool) -> dict[str, Any]:
    """mergo into ``dst`` (a new map when nil) from each of ``srcs`` in turn; returns ``dst``."""
    target: dict[str, Any] = {} if dst is None else dst
    for src in srcs:
        if src is not None:
            _merge_map(target, src, overwrite)
    return target


def deep_copy(v: Any) -> Any:
    """copystructure's ``Copy``: maps and slices copied all the way down, nil slices stay nil.

    A ``*semver.Version`` comes back zeroed (copystructure skips unexported fields); other named
    values are immutable here and come back as they are. ``nil`` panics as Go's does.
    """
    if v is None:
        raise gofunc.Panic("reflect: call of reflect.Value.Type on zero Value")
    return _copy(v)


def _copy(v: Any) -> Any:
    if isinstance(v, values.GoMap):
        return values.GoMap({k: _copy(x) for k, x in v.items()}, elem=v.elem)
    if isinstance(v, Mapping):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, values.GoSlice):
        return values.GoSlice([_copy(x) for x in v], elem=v.elem, nil=v.nil)
    if isinstance(v, list | tuple):
        return [_copy(x) for x in v]
    if isinstance(v, _semver.Version):
        return _semver.Version.zero(pointer=v.pointer)
    return v


def dig(*ps: Any) -> Any:
    """Sprig's ``dig``: keys, a default, and a map last; the default where a key is missing."""
    if len(ps) < 3:
        raise gofunc.Panic("dig needs at least three arguments")
    current = ps[-1]
    if not isinstance(current, dict) or isinstance(current, values.GoMap):
        raise _reflect.interface_conversion(current, MAP)
    default = ps[-2]
    keys = []
    for k in ps[:-2]:
        if not isinstance(k, str):
            raise _reflect.interface_conversion(k, "string")
        keys.append(k)
    for i, key in enumerate(keys):
        if key not in current:
            return default
        step = current[key]
        if i == len(keys) - 1:
            return step
        if not isinstance(step, dict) or isinstance(step, values.GoMap):
            raise _reflect.interface_conversion(step, MAP)
        current = step
    return default


def _as_map(d: dict[str, Any] | None) -> dict[str, Any]:
    return {} if d is None else d


def _set(d: dict[str, Any] | None, key: str, value: Any) -> dict[str, Any]:
    if d is None:
        raise gofunc.Panic("assignment to entry in nil map")
    d[key] = value
    return d


def _unset(d: dict[str, Any] | None, key: str) -> dict[str, Any]:
    if d is None:
        return {}  # deleting from a nil map does nothing; the nil map prints as map[]
    d.pop(key, None)
    return d


def _merger(overwrite: bool, *, must: bool) -> Any:
    """Sprig's ``merge``/``mergeOverwrite`` (an error is ``""``) and their ``must`` forms (an error is returned)."""

    def call(dst: dict[str, Any] | None, *srcs: Any) -> Any:
        try:
            return merge(dst, srcs, overwrite)
        except gofunc.Panic:
            raise
        except errors.GoError:
            if must:
                raise
            return ""

    return call


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's dict functions."""
    del profile, sources
    map_key = (MAP, "string")
    return {
        "dict": F(dict_, (ANY,), MAP, variadic=True),
        "get": F(lambda d, k: _as_map(d).get(k, ""), map_key, ANY),
        "set": F(_set, (MAP, "string", ANY), MAP),
        "unset": F(_unset, map_key, MAP),
        "hasKey": F(lambda d, k: k in _as_map(d), map_key, "bool"),
        "pluck": F(
            lambda key, *ds: [d[key] for d in ds if d is not None and key in d],
            ("string", MAP),
            "[]interface {}",
            variadic=True,
        ),
        "keys": F(
            lambda *ds: values.GoSlice([k for d in ds if d for k in _key_order(d)], elem="string"),
            (MAP,),
            "[]string",
            variadic=True,
        ),
        "pick": F(
            lambda d, *ks: {k: _as_map(d)[k] for k in ks if k in _as_map(d)},
            (MAP, "string"),
            MAP,
            variadic=True,
        ),
        "omit": F(
            lambda d, *ks: {k: v for k, v in _as_map(d).items() if k not in set(ks)},
            (MAP, "string"),
            MAP,
            variadic=True,
        ),
        "merge": F(_merger(False, must=False), (MAP, MAP), ANY, variadic=True),
        "mergeOverwrite": F(_merger(True, must=False), (MAP, MAP), ANY, variadic=True),
        "mustMerge": F(_merger(False, must=True), (MAP, MAP), ANY, variadic=True, returns_error=True),
        "mustMergeOverwrite": F(_merger(True, must=True), (MAP, MAP), ANY, variadic=True, returns_error=True),
        "values": F(lambda d: [_as_map(d)[k] for k in _key_order(_as_map(d))], (MAP,), "[]interface {}"),
        "deepCopy": F(deep_copy, (ANY,), ANY),
        "mustDeepCopy": F(deep_copy, (ANY,), ANY, returns_error=True),
        "dig": F(dig, (ANY,), ANY, variadic=True, returns_error=True),
    }
