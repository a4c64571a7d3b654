"""Resources as plain dicts: conversion to and from protobuf Structs, conditions, names.

Crossplane moves every Kubernetes object through ``google.protobuf.Struct``,
which has only doubles for numbers. A whole number therefore arrives as ``3.0``;
:func:`struct_to_dict` gives it back as ``3`` so that function code, YAML output
and JSON encoding see what the user wrote. Integers wider than 2**53 cannot
survive a Struct at all; that is Crossplane's limitation too.

Conversion dominates a function's CPU time once it composes more than a
handful of resources, so it has two implementations with one behaviour:

* ``crossfn.sdk._structpb``, a small C extension built at install time, turns
  a whole dict into the Struct's wire bytes (one upb ``MergeFromString`` then
  fills the message) and a Struct's serialised bytes back into a dict. It is
  about five times faster than the Python path (``benchmarks/function_server.py``).
  It handles trees of exact ``dict``/``list``/``tuple``/``str``/``int``/
  ``float``/``bool``/``None`` and declines anything else.
* The pure-Python path below dispatches on the exact type first
  (``type(v) is str``) and fills the target message in place; it is two to
  four times faster than ``json_format`` and ``Struct.update``. It converts
  whatever the C path declines (mappings and sequences of other types, keys
  that are not ``str``, very deep nesting) and raises the errors; it is the
  only path when the extension was not built or ``CROSSFN_PURE_PYTHON=1`` is
  set. :data:`ACCELERATED` tells which is in use.

Names and signatures match the official SDK's ``crossplane.function.resource``
(``update``, ``update_status``, ``dict_to_struct``, ``struct_to_dict``,
``Condition``, ``get_condition``, ``child_name``), so porting is an import change.

Neighbours: ``request`` reads requests with these helpers, ``response`` writes
responses with them.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.internal import api_implementation

from crossfn import errors
from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1

if TYPE_CHECKING:
    import pydantic

__all__ = [
    "ACCELERATED",
    "MAX_DEPTH",
    "Condition",
    "ConversionError",
    "child_name",
    "dict_to_struct",
    "fill_struct",
    "get_condition",
    "struct_to_dict",
    "update",
    "update_status",
    "value_to_python",
]

_NULL = struct_pb2.NULL_VALUE
_INT_RANGE = 2.0**63

try:
    if os.environ.get("CROSSFN_PURE_PYTHON", "") not in ("", "0"):
        raise ImportError("CROSSFN_PURE_PYTHON is set")
    if api_implementation.Type() != "upb":
        # The C decoder gives keys in upb's iteration order (the reverse of its wire order).
        raise ImportError("protobuf is not the upb implementation")
    from crossfn.sdk import _structpb
except ImportError:
    _structpb = None  # type: ignore[assignment]

ACCELERATED: bool = _structpb is not None
"""Whether the C conversions (``crossfn.sdk._structpb``) are in use."""

MAX_DEPTH = wire.MAX_MESSAGE_DEPTH - 10
"""Protobuf message levels a Struct built by :func:`dict_to_struct` may nest, itself the first.

An object level costs three (the Struct, its map entry, the Value), a list level two (the
ListValue, the Value). The function protocol parses 10,000 object levels and an envelope
(:data:`crossfn.proto.wire.MAX_MESSAGE_DEPTH`); this leaves the envelope ten levels (a resource
sits four deep in a request or response). Deeper would be refused by whoever parses it, and
serialising it much deeper overflows the C stack and kills the process."""


class ConversionError(errors.CrossfnError, json_format.ParseError, TypeError):
    """A value a protobuf Struct cannot hold (bytes, a set, an object).

    A ``json_format.ParseError``, as the official SDK's ``dict_to_struct``
    raises, and a ``TypeError``, as crossfn raised before, so either ``except``
    catches it.
    """


def value_to_python(v: struct_pb2.Value, *, integers: bool = True) -> Any:
    """Convert one ``google.protobuf.Value`` to plain Python.

    With ``integers`` (the default) whole doubles become ``int``. Without it
    every number stays ``float``, as Go's ``structpb`` gives them; code that
    emulates Go's number model (patch-and-transform) needs that.
    """
    try:
        return _to_python(v, integers)
    except RecursionError:
        holder: list[Any] = [None]
        _deep_to_python([(v, holder, 0)], integers)
        return holder[0]


def _to_python(v: struct_pb2.Value, integers: bool) -> Any:
    # The hot loop of struct_to_dict. Maps are walked by key and index:
    # upb's ``items()`` is a Python-level ItemsView and costs a fifth more.
    kind = v.WhichOneof("kind")
    if kind == "string_value":
        return v.string_value
    if kind == "struct_value":
        fields = v.struct_value.fields
        return {k: _to_python(fields[k], integers) for k in fields}
    if kind == "number_value":
        n = v.number_value
        if integers and n.is_integer() and -_INT_RANGE <= n < _INT_RANGE:
            return int(n)
        return n
    if kind == "bool_value":
        return v.bool_value
    if kind == "list_value":
        return [_to_python(x, integers) for x in v.list_value.values]
    return None


def struct_to_dict(s: struct_pb2.Struct, *, integers: bool = True) -> dict[str, Any]:
    """Convert a Struct to a plain dict; whole numbers come back as ``int`` unless ``integers=False``.

    Objects nested deeper than Python's recursion limit (Kubernetes accepts
    10,000 levels) are converted by an iterative walk instead.
    """
    try:
        if _structpb is not None:
            return _structpb.decode(s.SerializeToString(), integers)
        fields = s.fields
        return {k: _to_python(fields[k], integers) for k in fields}
    except RecursionError:
        fields = s.fields
        out: dict[str, Any] = dict.fromkeys(fields)
        _deep_to_python([(fields[k], out, k) for k in fields], integers)
        return out


def _deep_to_python(stack: list[tuple[struct_pb2.Value, Any, Any]], integers: bool) -> None:
    """Convert each ``(value, container, key)`` into ``container[key]`` without recursion: the deep path."""
    while stack:
        v, container, key = stack.pop()
        kind = v.WhichOneof("kind")
        if kind == "struct_value":
            fields = v.struct_value.fields
            obj: dict[str, Any] = dict.fromkeys(fields)
            container[key] = obj
            stack.extend((fields[k], obj, k) for k in fields)
        elif kind == "list_value":
            values = v.list_value.values
            items: list[Any] = [None] * len(values)
            container[key] = items
            stack.extend((x, items, i) for i, x in enumerate(values))
        elif kind == "number_value":
            n = v.number_value
            container[key] = int(n) if integers and n.is_integer() and -_INT_RANGE <= n < _INT_RANGE else n
        elif kind == "string_value":
            container[key] = v.string_value
        elif kind == "bool_value":
            container[key] = v.bool_value
        else:
            container[key] = None


def _encoded(d: Mapping[str, Any]) -> bytes | None:
    """The Struct wire bytes of ``d`` from the C path, or ``None`` where the Python path must convert it."""
    if _structpb is None or type(d) is not dict:
        return None
    try:
        return _structpb.encode(d)
    except _structpb.UnsupportedError:
        return None


_RECURSIVE_DEPTH = 400
"""How deep the recursive fill goes before it hands over to the iterative walk, whatever Python's
recursion limit (the CLI raises it): only the walk counts levels against :data:`MAX_DEPTH`."""


class _TooDeepError(Exception):
    """The recursive fill went past :data:`_RECURSIVE_DEPTH`."""


def _set_value(target: struct_pb2.Value, value: Any, depth: int = 1) -> None:
    """Set ``target`` from any JSON-like value at nesting ``depth``; the slow, general path."""
    t = type(value)
    if t is str:
        target.string_value = value
    elif t is dict:
        _fill(target.struct_value, value, depth + 1)
    elif value is None:
        target.null_value = _NULL
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, int | float):
        target.number_value = value
    elif isinstance(value, Mapping):
        _fill(target.struct_value, value, depth + 1)
    elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        _fill_list(target.list_value, value, depth + 1)
    else:
        raise ConversionError(f"cannot convert {type(value).__name__} to a protobuf Value")


def _fill(target: struct_pb2.Struct, d: Mapping[str, Any], depth: int = 1) -> None:
    """Add the entries of ``d`` (at nesting ``depth``) to ``target``; the hot loop of :func:`dict_to_struct`."""
    if depth > _RECURSIVE_DEPTH:
        raise _TooDeepError
    fields = target.fields
    if not d:
        target.SetInParent()
        return
    for k, v in d.items():
        t = type(v)
        if t is str:
            fields[k].string_value = v
        elif t is dict:
            _fill(fields[k].struct_value, v, depth + 1)
        elif t is int or t is float:
            fields[k].number_value = v
        elif t is bool:
            fields[k].bool_value = v
        elif t is list:
            _fill_list(fields[k].list_value, v, depth + 1)
        else:
            _set_value(fields[k], v, depth)


def _fill_list(target: struct_pb2.ListValue, items: Sequence[Any], depth: int) -> None:
    if depth > _RECURSIVE_DEPTH:
        raise _TooDeepError
    target.SetInParent()
    add = target.values.add
    for v in items:
        t = type(v)
        if t is str:
            add(string_value=v)
        elif t is dict:
            _fill(add().struct_value, v, depth + 1)
        elif t is int or t is float:
            add(number_value=v)
        elif t is bool:
            add(bool_value=v)
        elif t is list:
            _fill_list(add().list_value, v, depth + 1)
        else:
            _set_value(add(), v, depth)


def fill_struct(target: struct_pb2.Struct, d: Mapping[str, Any]) -> None:
    """Replace the top-level keys of ``target`` named in ``d`` with its values, in place.

    Filling in place avoids the copy that ``target.CopyFrom(dict_to_struct(d))``
    makes. Keys of ``target`` absent from ``d`` are kept, as ``dict.update`` does.
    """
    target.SetInParent()
    _drop_keys(target, d)
    data = _encoded(d)
    if data is None:
        _fill_any_depth(target, d)
    else:
        # The keys of d are gone from target, so merging adds entries and replaces none.
        target.MergeFromString(data)


def _drop_keys(target: struct_pb2.Struct, d: Mapping[str, Any]) -> None:
    fields = target.fields
    if fields:
        for k in d:
            if k in fields:
                del fields[k]


def _fill_any_depth(target: struct_pb2.Struct, d: Mapping[str, Any]) -> None:
    """:func:`_fill`, or, for objects nested deeper than :data:`_RECURSIVE_DEPTH` (or Python's recursion
    limit, whichever comes first), the iterative walk.

    Nothing is built twice but the deep ones: the recursive fill is the fast
    path and stops at the limit, then what it filled is dropped and filled again.
    """
    try:
        _fill(target, d)
    except (RecursionError, _TooDeepError):
        _drop_keys(target, d)
        _fill_deep(target, d)


def _fill_deep(target: struct_pb2.Struct, d: Mapping[str, Any]) -> None:
    """Fill ``target`` from ``d`` without recursion: a stack of (message, source, message depth) triples.

    Refuses nesting deeper than :data:`MAX_DEPTH` message levels.
    """
    stack: list[tuple[struct_pb2.Struct | struct_pb2.ListValue, Any, int]] = [(target, d, 1)]
    while stack:
        msg, source, depth = stack.pop()
        values = (
            depth + 2 if isinstance(msg, struct_pb2.Struct) else depth + 1
        )  # a Struct's sit under map entries
        if (values if source else depth) > MAX_DEPTH:
            raise ConversionError(
                f"cannot convert an object nested deeper than {MAX_DEPTH} protobuf message levels "
                "(about 10,000 levels of objects), the most the function protocol carries"
            )
        msg.SetInParent()
        if isinstance(msg, struct_pb2.Struct):
            fields = msg.fields
            for k, v in source.items():
                _put(fields[k], v, stack, values + 1)
        else:
            add = msg.values.add
            for v in source:
                _put(add(), v, stack, values + 1)


def _put(target: struct_pb2.Value, value: Any, stack: list[tuple[Any, Any, int]], depth: int) -> None:
    """Set one value as :func:`_set_value` does, deferring objects and lists to ``stack``."""
    if value is None:
        target.null_value = _NULL
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, int | float):
        target.number_value = value
    elif isinstance(value, Mapping):
        target.struct_value.SetInParent()
        stack.append((target.struct_value, value, depth))
    elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        target.list_value.SetInParent()
        stack.append((target.list_value, value, depth))
    else:
        raise ConversionError(f"cannot convert {type(value).__name__} to a protobuf Value")


def dict_to_struct(d: Mapping[str, Any]) -> struct_pb2.Struct:
    """Convert a plain dict (JSON-like values only) to a Struct.

    Raises :class:`ConversionError` for a value JSON cannot hold (bytes, sets,
    objects) or for nesting deeper than :data:`MAX_DEPTH`, and ``TypeError`` for
    a key that is not a string, as the official SDK.
    """
    s = struct_pb2.Struct()
    data = _encoded(d)
    if data is None:
        _fill_any_depth(s, d)
    else:
        # The C encoder declines nesting past upb's default parse limit, so these bytes always merge.
        s.MergeFromString(data)
    return s


def update(r: fnv1.Resource, source: Mapping[str, Any] | struct_pb2.Struct | pydantic.BaseModel) -> None:
    """Update a composite or composed resource as ``dict.update`` would.

    Top-level keys of ``source`` replace those of ``r.resource``; nested keys are
    not merged. A pydantic model is dumped with ``exclude_unset=True,
    by_alias=True`` so the function owns only the fields it set (desired state
    is server-side-apply intent), and its ``apiVersion``/``kind`` are added back
    because models rarely have them set explicitly. A Struct is merged with
    protobuf ``MergeFrom``, as in the official SDK.
    """
    if isinstance(source, struct_pb2.Struct):
        r.resource.MergeFrom(source)
        return
    if isinstance(source, Mapping):
        fill_struct(r.resource, source)
        return
    dump = getattr(source, "model_dump", None)
    if dump is None:
        raise TypeError(f"cannot update a resource from {type(source).__name__}")
    data: dict[str, Any] = dump(exclude_unset=True, by_alias=True, warnings=False, mode="json")
    for key in ("apiVersion", "kind"):
        value = getattr(source, key, None)
        if value is not None:
            data[key] = value
    fill_struct(r.resource, data)


def update_status(r: fnv1.Resource, status: Mapping[str, Any] | pydantic.BaseModel) -> None:
    """Replace a resource's ``status`` with ``status`` (a dict or a pydantic model, dumped as in :func:`update`)."""
    if not isinstance(status, Mapping):
        status = status.model_dump(exclude_unset=True, by_alias=True, warnings=False, mode="json")
    fill_struct(r.resource, {"status": status})


@dataclasses.dataclass
class Condition:
    """A status condition, as Kubernetes writes it under ``status.conditions``."""

    typ: str
    """Type of the condition, e.g. ``Ready`` (PascalCase)."""

    status: str
    """``True``, ``False`` or ``Unknown``."""

    reason: str | None = None
    """Why the condition has this status, in PascalCase. Crossplane requires one when a function sets it."""

    message: str | None = None
    """A human-readable detail."""

    last_transition_time: datetime.datetime | None = None
    """When the status last changed; read from resources, ignored when a function sets a condition."""


def _as_struct(resource: struct_pb2.Struct | fnv1.Resource | Mapping[str, Any] | None) -> Mapping[str, Any]:
    if resource is None:
        return {}
    if isinstance(resource, fnv1.Resource):
        return struct_to_dict(resource.resource)
    if isinstance(resource, struct_pb2.Struct):
        return struct_to_dict(resource)
    return resource


def get_condition(
    resource: struct_pb2.Struct | fnv1.Resource | Mapping[str, Any] | None,
    typ: str,
) -> Condition:
    """Get the status condition ``typ`` of a resource; ``Unknown`` when it has none.

    Never raises. It accepts ``None`` so that the result of a protobuf map's
    ``.get()`` can be passed directly: bracket access on a missing key would
    silently insert an empty entry (auto-vivification) into the request.
    """
    status = _as_struct(resource).get("status")
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    for c in conditions if isinstance(conditions, list) else []:
        if not isinstance(c, Mapping) or c.get("type") != typ:
            continue
        when = c.get("lastTransitionTime")
        return Condition(
            typ=typ,
            status=str(c.get("status", "Unknown")),
            reason=c.get("reason"),
            message=c.get("message"),
            last_transition_time=_parse_time(when) if isinstance(when, str) else None,
        )
    return Condition(typ=typ, status="Unknown")


def _parse_time(s: str) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(s)
    except ValueError:
        return None


_DNS_LABEL_MAX = 63
_HASH_LEN = 5


def child_name(*parts: str, sep: str = "-") -> str:
    """Build a deterministic, DNS-label-safe name (at most 63 characters) for a child resource.

    The parts are joined with ``sep``, truncated, and a 5-character sha256 suffix
    of the full join is always appended, so short and long names look alike and
    truncated names stay unique. Same result as the official SDK's ``child_name``
    for a separator of at most one character (``sep=""`` included: the prefix is
    then cut at 57 characters, as upstream); a longer one still stays within 63.
    """
    full = sep.join(parts)
    digest = hashlib.sha256(full.encode()).hexdigest()[:_HASH_LEN]
    prefix = full[: _DNS_LABEL_MAX - _HASH_LEN - max(len(sep), 1)].rstrip(sep)
    return f"{prefix}{sep}{digest}"
