"""Field paths into JSON-like objects, with crossplane-runtime's ``fieldpath`` semantics.

Crossplane addresses fields of Kubernetes objects with paths such as
``spec.containers[0].name`` or ``metadata.annotations['crossplane.io/x']``.
This module parses them, reads, writes and merges through them, and expands
``[*]`` wildcards, behaving like Go's ``crossplane-runtime/pkg/fieldpath``
(upstream pt-3), error texts included, because those texts
reach users in function results.

Objects are plain JSON data: ``dict``, ``list``, ``str``, ``bool``, ``None``,
``int`` (Go int64) and ``float`` (Go float64). Go keeps the two number types
apart, so this module never treats ``1`` and ``1.0`` (or ``True`` and ``1``) as
equal where Go would not. Every write first normalises the value through the
equivalent of a Go JSON round trip (:func:`json_round_trip`).

Errors: :class:`crossfn.errors.FieldNotFoundError` when a path leads to
nothing (callers may treat that as optional), :class:`crossfn.errors.FieldPathError`
for everything else. Nothing else escapes, whatever the input.
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
import math
from collections.abc import Sequence
from typing import Any

from crossfn import errors
from crossfn.gocompat import values

__all__ = [
    "MAX_INDEX",
    "MergeOptions",
    "Segment",
    "expand_wildcards",
    "format_segments",
    "get_bool",
    "get_integer",
    "get_string",
    "get_value",
    "json_round_trip",
    "merge_value",
    "parse",
    "set_value",
]

Segment = str | int
"""A field name (``str``) or an array index (``int``)."""

MAX_INDEX = 1024
"""The largest index a write may use; crossplane-runtime caps it so a path cannot allocate gigabytes."""

_WILDCARD = "*"
_QUOTES = "'\""
_MAX_UINT32 = 2**32 - 1


@dataclasses.dataclass(frozen=True)
class MergeOptions:
    """How :func:`merge_value` combines a new value with the one already there (xpv1.MergeOptions)."""

    keep_map_values: bool = False
    """Keep values already present (MergeObjects*) instead of overwriting them (ForceMergeObjects*)."""
    append_slice: bool = False
    """Append lists instead of replacing them (*AppendArrays)."""


# --- parsing ----------------------------------------------------------------------------------


def _byte_pos(path: str, i: int) -> int:
    """Go reports byte offsets; Python indexes code points."""
    return len(path[:i].encode("utf-8", "surrogatepass"))


def _parse_error(path: str, what: str, char: str, i: int) -> errors.FieldPathError:
    return errors.FieldPathError(
        f"cannot parse path {errors.quote(path)}: {what} '{char}' at position {_byte_pos(path, i)}"
    )


def _field_or_index(text: str) -> Segment:
    # Go tries strconv.ParseUint(text, 10, 32) on the text *before* quote trimming,
    # so ['0'] is the field "0" while [0] and [01] are index 0 and 1.
    if text.isascii() and text.isdigit() and int(text) <= _MAX_UINT32:
        return int(text)
    return text.strip(_QUOTES)


@functools.lru_cache(maxsize=4096)
def parse(path: str) -> tuple[Segment, ...]:
    """Parse a field path into segments, as ``fieldpath.Parse`` does; ``""`` gives no segments.

    Results are memoised: compositions repeat the same few paths thousands of times.
    """
    segments: list[Segment] = []
    n = len(path)
    start = i = 0
    while i < n:
        c = path[i]
        if c == "]":
            raise _parse_error(path, "unexpected", "]", i)
        if c not in ".[":
            i += 1
            continue
        if i > start:
            segments.append(path[start:i].strip(_QUOTES))
        i = _after_period(path, i) if c == "." else _bracket(path, i, segments)
        start = i
    if n > start:
        segments.append(path[start:].strip(_QUOTES))
    return tuple(segments)


def _after_period(path: str, i: int) -> int:
    """Check the period at ``i`` and return where the next field starts."""
    if i in (0, len(path) - 1):
        raise _parse_error(path, "unexpected", ".", i)
    nxt = path[i + 1]
    if nxt in ".[":
        raise _parse_error(path, "unexpected", nxt, i + 1)
    return i + 1


def _bracket(path: str, i: int, segments: list[Segment]) -> int:
    """Lex ``[...]`` starting at ``i``; append its segment and return where lexing resumes."""
    close = path.find("]", i)
    if close < 0:
        raise _parse_error(path, "unterminated", "[", i)
    if close == i + 1:
        raise _parse_error(path, "unexpected", "]", i + 1)
    inner_open = path.find("[", i + 1, close)
    if inner_open >= 0:
        raise _parse_error(path, "unexpected", "[", inner_open)
    segments.append(_field_or_index(path[i + 1 : close]))
    j = close + 1
    if j < len(path) and path[j] == ".":
        return _after_period(path, j)
    return j


def format_segments(segments: Sequence[Segment]) -> str:
    """Print segments as Go's ``Segments.String`` does, the form error messages use."""
    out: list[str] = []
    for s in segments:
        if isinstance(s, int) or s == _WILDCARD or "." in s:
            out.append(f"[{s}]")
        else:
            out.append(f".{s}")
    text = "".join(out)
    return text[1:] if text.startswith(".") else text


# --- reading ----------------------------------------------------------------------------------


def _walk(obj: Any, segments: Sequence[Segment], nil_is_missing: bool = True) -> Any:
    """Read ``segments`` from ``obj`` (Go ``getValueFromInterface``); no segments read null.

    A null on the way is "not found" (crossplane-runtime v1.15.1 on); with
    ``nil_is_missing=False`` it is ``not an object``, as earlier versions said.
    """
    if not segments:
        return None
    it = obj
    for i, seg in enumerate(segments):
        if isinstance(seg, int):
            if not isinstance(it, list):
                raise errors.FieldPathError(f"{format_segments(segments[:i])}: not an array")
            if seg >= len(it):
                raise errors.FieldNotFoundError(f"{format_segments(segments[: i + 1])}: no such element")
            it = it[seg]
            continue
        if isinstance(it, dict):
            if seg not in it:
                raise errors.FieldNotFoundError(f"{format_segments(segments[: i + 1])}: no such field")
            it = it[seg]
            continue
        if it is None and nil_is_missing:
            raise errors.FieldNotFoundError(f"{format_segments(segments[:i])}: expected map, got nil")
        raise errors.FieldPathError(f"{format_segments(segments[:i])}: not an object")
    return it


def get_value(obj: Any, path: str, *, nil_is_missing: bool = True) -> Any:
    """Return the value at ``path``; a present ``null`` is returned as ``None`` without error.

    ``nil_is_missing=False`` reads a null on the way as crossplane-runtime before v1.15.1 did
    (``<path>: not an object``, not a not-found error).
    """
    return _walk(obj, parse(path), nil_is_missing)


def get_string(obj: Any, path: str, *, nil_is_missing: bool = True) -> str:
    """Return the string at ``path``; the type error names the raw path, as Go does."""
    v = get_value(obj, path, nil_is_missing=nil_is_missing)
    if not isinstance(v, str):
        raise errors.FieldPathError(f"{path}: not a string")
    return v


def get_bool(obj: Any, path: str, *, nil_is_missing: bool = True) -> bool:
    """Return the bool at ``path``."""
    v = get_value(obj, path, nil_is_missing=nil_is_missing)
    if not isinstance(v, bool):
        raise errors.FieldPathError(f"{path}: not a bool")
    return v


def get_integer(obj: Any, path: str, *, nil_is_missing: bool = True) -> int:
    """Return the Go int64 at ``path``: a ``float`` fails even when whole, as in Go."""
    v = get_value(obj, path, nil_is_missing=nil_is_missing)
    if not isinstance(v, int) or isinstance(v, bool):
        raise errors.FieldPathError(f"{path}: not a (int64) number")
    return v


# --- the JSON round trip ----------------------------------------------------------------------


def _fix_string(s: str) -> str:
    # Invalid UTF-8 arrives as lone surrogates (surrogateescape); Go writes U+FFFD per bad byte.
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in s)
    return s


def json_round_trip(value: Any) -> Any:
    """Return ``value`` as Go sees it after ``json.Marshal`` and an integer-preserving decode.

    Whole floats Go prints without exponent (|x| < 1e21) and that fit int64 become
    ``int``; other floats stay ``float``; invalid UTF-8 becomes U+FFFD; NaN and
    infinities fail as Go's encoder does. The input is not modified.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _fix_string(value)
    if isinstance(value, int):
        if -(2**63) <= value < 2**63:
            return value
        return float(value)
    if isinstance(value, float):
        return _round_trip_float(value)
    if isinstance(value, dict):
        return {
            _fix_string(k) if isinstance(k, str) else _bad_key(k): json_round_trip(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [json_round_trip(v) for v in value]
    raise errors.FieldPathError(
        f"cannot marshal value to JSON: json: unsupported type: {values.type_name(value)}"
    )


def _bad_key(k: object) -> str:
    raise errors.FieldPathError(
        f"cannot marshal value to JSON: json: unsupported type: map[{values.type_name(k)}]"
    )


def _round_trip_float(f: float) -> int | float:
    if math.isnan(f):
        raise errors.FieldPathError("cannot marshal value to JSON: json: unsupported value: NaN")
    if math.isinf(f):
        sign = "+" if f > 0 else "-"
        raise errors.FieldPathError(f"cannot marshal value to JSON: json: unsupported value: {sign}Inf")
    if not f.is_integer() or abs(f) >= 1e21:
        return f  # Go writes a fraction or an exponent: the decoder keeps a float64.
    # Go writes the shortest decimal digits padded with zeros (3.236032273592521e16 is
    # written 32360322735925210), and the decoder parses that literal as an int64.
    n = int(f) if abs(f) < 2**53 else int(decimal.Decimal(repr(f)))
    return n if -(2**63) <= n < 2**63 else f


# --- writing ----------------------------------------------------------------------------------


def set_value(obj: dict[str, Any], path: str, value: Any) -> None:
    """Write ``value`` at ``path`` in ``obj``, creating containers and growing lists on the way.

    The value is normalised with :func:`json_round_trip` first. A null *field* on
    the way is not replaced (Go fails with ``is not an object``); a null list
    element is.
    """
    _set(obj, parse(path), json_round_trip(value))


def _set(obj: dict[str, Any], segments: Sequence[Segment], v: Any) -> None:
    for seg in segments:
        if isinstance(seg, int) and seg > MAX_INDEX:
            raise errors.FieldPathError(f"index {seg} is greater than max allowed index {MAX_INDEX}")
    it: Any = obj
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if isinstance(seg, int):
            if not isinstance(it, list):
                raise errors.FieldPathError(f"{format_segments(segments[:i])} is not an array")
            if i == last:
                it[seg] = v
                return
            if it[seg] is None:
                it[seg] = _empty_for(segments[i + 1])
            else:
                _grow(it[seg], segments[i + 1])
            it = it[seg]
            continue
        if not isinstance(it, dict):
            raise errors.FieldPathError(f"{format_segments(segments[:i])} is not an object")
        if i == last:
            it[seg] = v
            return
        if seg not in it:
            it[seg] = _empty_for(segments[i + 1])
        else:
            _grow(it[seg], segments[i + 1])
        it = it[seg]


def _empty_for(nxt: Segment) -> Any:
    if isinstance(nxt, int):
        return [None] * (nxt + 1)
    return {}


def _grow(container: Any, nxt: Segment) -> None:
    """Pad a list with nulls so index ``nxt`` exists (in place, like Go's re-slice)."""
    if isinstance(nxt, int) and isinstance(container, list) and nxt >= len(container):
        container.extend([None] * (nxt - len(container) + 1))


# --- merging ----------------------------------------------------------------------------------


def merge_value(obj: dict[str, Any], path: str, value: Any, options: MergeOptions | None) -> None:
    """Write ``value`` at ``path``, merged with what is there per ``options`` (``Paved.MergeValue``).

    ``options=None`` is Replace. Under a merge policy a read error other than
    not-found is raised, so the same conflict reads ``: not an object`` (merge) or
    `` is not an object`` (Replace), as in Go.
    """
    segments = parse(path)
    dst: Any = None
    if options is not None:
        try:
            dst = _walk(obj, segments)
        except errors.FieldNotFoundError:
            dst = None
    merged = value if options is None else _merge(dst, value, options)
    _set(obj, segments, json_round_trip(merged))


def _go_empty(v: Any) -> bool:
    """Go's ``isEmptyValue`` for JSON data: "", 0, false, nil, empty map or slice."""
    if v is None or v is False:
        return True
    if isinstance(v, bool):
        return False
    if isinstance(v, str | list | dict):
        return len(v) == 0
    if isinstance(v, int | float):
        return v == 0
    return False


def _merge(dst: Any, src: Any, opts: MergeOptions) -> Any:
    """Go ``fieldpath.merge``: mergo on ``{"arg": dst}`` and ``{"arg": src}``, after top-level dedup."""
    if dst is None or src is None:
        return src
    if opts.append_slice and isinstance(dst, list) and isinstance(src, list):
        src = [s for s in src if not any(values.strict_equal(s, d) for d in dst)]
        if not src:
            # Go's dedup leaves a nil slice; mergo then keeps a non-empty dst, and
            # an empty dst merged with nil comes out as null.
            return dst if dst else None
    wrapper: dict[str, Any] = {"arg": dst}
    _merge_key(wrapper, "arg", src, opts)
    return wrapper.get("arg")


def _merge_key(d: dict[str, Any], key: str, s: Any, opts: MergeOptions) -> None:
    """Apply mergo's rule for one key of ``d`` given the source value ``s`` (upstream pt-3.6 table)."""
    keep = opts.keep_map_values
    present = key in d
    cur = d.get(key)
    if s is None:
        if not keep:
            d[key] = None
        return
    if isinstance(s, dict) and isinstance(cur, dict):
        merged = dict(cur)
        for k, v in s.items():
            _merge_key(merged, k, v, opts)
        d[key] = merged
        return
    if isinstance(s, list) and opts.append_slice:
        if cur is None:
            d[key] = s
            return
        if not isinstance(cur, list):
            raise errors.FieldPathError(
                "failed to merge values: cannot append two slices with different type "
                f"([]interface {{}}, {values.type_name(cur)})"
            )
        d[key] = cur + s
        return
    if not keep or not present or _go_empty(cur):
        d[key] = s


# --- wildcards --------------------------------------------------------------------------------


def expand_wildcards(obj: Any, path: str, *, nil_is_missing: bool = True) -> list[str]:
    """Expand every ``*`` segment of ``path`` over the lists and objects in ``obj``.

    Only paths whose every prefix and leaf already exist are returned, each
    printed as :func:`format_segments` does. Go recurses forever on an object
    with a field literally named ``*``; we raise a :class:`FieldPathError` instead
    (a documented divergence). ``nil_is_missing=False``: a null where a wildcard
    or a field is read fails, as in crossplane-runtime before v1.15.0/v1.15.1.
    """
    segments = parse(path)
    try:
        expanded = _expand(obj, segments, nil_is_missing)
    except errors.FieldPathError as exc:
        cls = type(exc)
        raise cls(
            f"cannot expand wildcards for segments: {errors.quote(format_segments(segments))}: {exc}"
        ) from exc
    return [format_segments(s) for s in expanded]


def _expand(data: Any, segments: tuple[Segment, ...], nil_is_missing: bool) -> list[tuple[Segment, ...]]:
    it = data
    for i, seg in enumerate(segments):
        if seg == _WILDCARD:
            return _expand_at(data, segments, i, it, nil_is_missing)
        try:
            it = _walk(data, segments[: i + 1], nil_is_missing)
        except errors.FieldNotFoundError:
            return []
    return [segments]


def _expand_at(
    data: Any, segments: tuple[Segment, ...], i: int, it: Any, nil_is_missing: bool
) -> list[tuple[Segment, ...]]:
    prefix = errors.quote(format_segments(segments[:i]))
    keys: Sequence[Segment]
    if isinstance(it, list):
        keys = range(len(it))
    elif isinstance(it, dict):
        if _WILDCARD in it:
            raise errors.FieldPathError(
                f'{prefix}: cannot expand a wildcard over an object with a field named "*"'
            )
        keys = list(it)
    elif it is None and nil_is_missing:
        raise errors.FieldNotFoundError(f"wildcard field {prefix} is not found in the path")
    else:
        raise errors.FieldPathError(f"{prefix}: unexpected wildcard usage")
    out: list[tuple[Segment, ...]] = []
    for k in keys:
        expanded = (*segments[:i], k, *segments[i + 1 :])
        try:
            out.extend(_expand(data, expanded, nil_is_missing))
        except errors.FieldPathError as exc:
            cls = type(exc)
            raise cls(f"{errors.quote(format_segments(expanded))}: cannot expand wildcards: {exc}") from exc
    return out
