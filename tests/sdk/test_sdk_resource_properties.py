"""Property tests: crossfn's Struct conversion agrees with protobuf's json_format on any JSON value."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, struct_pb2
from hypothesis import given
from hypothesis import strategies as st

from crossfn.sdk import resource

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
_OBJECTS = st.dictionaries(st.text(max_size=6), _JSON, max_size=5)


def _normalise(value: Any) -> Any:
    """What a Struct can hold: every number a double; whole ones in int64 range given back as int."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        f = float(value)
        return int(f) if f.is_integer() and -(2.0**63) <= f < 2.0**63 else f
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return [_normalise(v) for v in value]


def _typed(value: Any) -> Any:
    """The value with each leaf paired with its type, so ``1`` and ``1.0`` differ."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


@given(_OBJECTS)
def test_dict_to_struct_matches_json_format(d: dict[str, Any]) -> None:
    assert resource.dict_to_struct(d) == json_format.ParseDict(d, struct_pb2.Struct())


@given(_OBJECTS)
def test_round_trip_keeps_values_and_integers(d: dict[str, Any]) -> None:
    got = resource.struct_to_dict(resource.dict_to_struct(d))
    assert got == _normalise(d)
    assert _typed(got) == _typed(_normalise(d)), "whole numbers come back as int, others as float"


@given(_OBJECTS, _OBJECTS)
def test_fill_struct_is_dict_update(base: dict[str, Any], update: dict[str, Any]) -> None:
    s = resource.dict_to_struct(base)
    resource.fill_struct(s, update)
    assert resource.struct_to_dict(s) == _normalise({**base, **update})


def _keys_in_map_order(value: Any) -> Any:
    """Every dict's keys, nested, in the order they come: to compare orders, not just contents."""
    if isinstance(value, dict):
        return [(k, _keys_in_map_order(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_keys_in_map_order(v) for v in value]
    return None


def _reference_to_python(v: struct_pb2.Value) -> Any:
    """A plain walk of the upb message with ``items()``: the order YAML output relies on."""
    kind = v.WhichOneof("kind")
    if kind == "struct_value":
        return {k: _reference_to_python(x) for k, x in v.struct_value.fields.items()}
    if kind == "list_value":
        return [_reference_to_python(x) for x in v.list_value.values]
    return None if kind in (None, "null_value") else getattr(v, kind)


@given(_OBJECTS)
def test_struct_to_dict_keeps_map_order(d: dict[str, Any]) -> None:
    s = json_format.ParseDict(d, struct_pb2.Struct())
    want = {k: _reference_to_python(v) for k, v in s.fields.items()}
    assert _keys_in_map_order(resource.struct_to_dict(s)) == _keys_in_map_order(want)


@given(_OBJECTS)
def test_struct_to_dict_without_integers_matches_json_format(d: dict[str, Any]) -> None:
    s = json_format.ParseDict(d, struct_pb2.Struct())
    got = resource.struct_to_dict(s, integers=False)
    assert got == json_format.MessageToDict(s)
    assert _typed(got) == _typed(json_format.MessageToDict(s)), "every number stays a float"
