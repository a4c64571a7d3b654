"""Resources as plain dicts, and their conversion to and from protobuf Structs.

Crossplane moves every Kubernetes object through ``google.protobuf.Struct``,
which has only doubles for numbers. A whole number therefore arrives as ``3.0``;
:func:`struct_to_dict` gives it back as ``3`` so that function code, YAML output
and JSON encoding see what the user wrote. Integers wider than 2**53 cannot
survive a Struct at all; that is Crossplane's limitation too.

Neighbours: ``request`` reads requests with these helpers, ``response`` writes
responses with them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import struct_pb2

__all__ = [
    "dict_to_struct",
    "struct_to_dict",
    "value_to_python",
]

_NULL = struct_pb2.NULL_VALUE


def value_to_python(v: struct_pb2.Value, *, integers: bool = True) -> Any:
    """Convert one ``google.protobuf.Value`` to plain Python.

    With ``integers`` (the default) whole doubles become ``int``. Without it
    every number stays ``float``, as Go's ``structpb`` gives them; code that
    emulates Go's number model (patch-and-transform) needs that.
    """
    kind = v.WhichOneof("kind")
    if kind == "string_value":
        return v.string_value
    if kind == "number_value":
        n = v.number_value
        if integers and n.is_integer() and -(2**63) <= n < 2**63:
            return int(n)
        return n
    if kind == "bool_value":
        return v.bool_value
    if kind == "struct_value":
        return struct_to_dict(v.struct_value, integers=integers)
    if kind == "list_value":
        return [value_to_python(x, integers=integers) for x in v.list_value.values]
    return None


def struct_to_dict(s: struct_pb2.Struct, *, integers: bool = True) -> dict[str, Any]:
    """Convert a Struct to a plain dict; whole numbers come back as ``int`` unless ``integers=False``."""
    return {k: value_to_python(v, integers=integers) for k, v in s.fields.items()}


def _set_value(target: struct_pb2.Value, value: Any) -> None:
    if value is None:
        target.null_value = _NULL
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, int | float):
        target.number_value = value
    elif isinstance(value, Mapping):
        _fill_struct(target.struct_value, value)
    elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        lv = target.list_value
        lv.SetInParent()
        for item in value:
            _set_value(lv.values.add(), item)
    else:
        raise TypeError(f"cannot convert {type(value).__name__} to a protobuf Value")


def _fill_struct(target: struct_pb2.Struct, d: Mapping[str, Any]) -> None:
    target.SetInParent()
    fields = target.fields
    for k, v in d.items():
        _set_value(fields[k], v)


def dict_to_struct(d: Mapping[str, Any]) -> struct_pb2.Struct:
    """Convert a plain dict (JSON-like values only) to a Struct."""
    s = struct_pb2.Struct()
    _fill_struct(s, d)
    return s
