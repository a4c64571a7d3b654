"""The C conversions (``crossfn.sdk._structpb``) behave exactly as the pure-Python ones.

``crossfn.sdk.resource`` uses the C path whenever the extension is built and
falls back to Python for what C declines. These tests hold the two paths to one
behaviour: the same Struct from a dict, the same dict (values, types and key
order) from a Struct, and a fallback, not an error, wherever C declines.
"""

from __future__ import annotations

import collections
import math
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from google.protobuf import struct_pb2
from hypothesis import given
from hypothesis import strategies as st

from crossfn.sdk import resource

structpb = pytest.importorskip("crossfn.sdk._structpb")

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=24,
)
_OBJECTS = st.dictionaries(st.text(max_size=6), _JSON, max_size=5)


def _python_struct(d: Mapping[str, Any]) -> struct_pb2.Struct:
    """The Struct the pure-Python path builds."""
    s = struct_pb2.Struct()
    resource._fill(s, d)
    return s


def _python_dict(s: struct_pb2.Struct, integers: bool) -> dict[str, Any]:
    """The dict the pure-Python path reads."""
    return {k: resource._to_python(s.fields[k], integers) for k in s.fields}


def _typed(value: Any) -> Any:
    """The value with types and key order made visible: ``1`` and ``1.0`` differ, and so do orders."""
    if isinstance(value, dict):
        return [(k, _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return ["list", *(_typed(v) for v in value)]
    return (type(value).__name__, value)


def test_the_extension_is_built_and_used() -> None:
    # setup.py builds it optionally; a machine with a C compiler (CI) must have it, or the
    # function server silently loses its conversion speed.
    if os.environ.get("CROSSFN_PURE_PYTHON", "") not in ("", "0"):
        pytest.skip("CROSSFN_PURE_PYTHON is set")
    assert resource.ACCELERATED


def test_pure_python_switch_turns_the_extension_off() -> None:
    code = (
        "from crossfn.sdk import resource as r\n"
        "print(r.ACCELERATED, r.struct_to_dict(r.dict_to_struct({'a': [1, 2.5, {'b': None}]})))"
    )
    env = {**os.environ, "CROSSFN_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False {'a': [1, 2.5, {'b': None}]}"


@given(_OBJECTS)
def test_encode_builds_the_struct_python_builds(d: dict[str, Any]) -> None:
    assert struct_pb2.Struct.FromString(structpb.encode(d)) == _python_struct(d)


@given(_OBJECTS, st.booleans())
def test_decode_reads_what_python_reads(d: dict[str, Any], integers: bool) -> None:
    built = _python_struct(d)
    parsed = struct_pb2.Struct.FromString(built.SerializeToString())  # as a request arrives
    for s in (built, parsed):
        got = structpb.decode(s.SerializeToString(), integers)
        assert _typed(got) == _typed(_python_dict(s, integers))


@given(_OBJECTS, _OBJECTS)
def test_fill_struct_replaces_top_level_keys_as_python_does(
    base: dict[str, Any], update: dict[str, Any]
) -> None:
    want = _python_struct(base)
    for k in update:
        if k in want.fields:
            del want.fields[k]
    resource._fill(want, update)
    got = resource.dict_to_struct(base)
    resource.fill_struct(got, update)
    assert got == want


class _Mapping(Mapping[str, Any]):
    """A read-only mapping that is not a dict: only the Python path converts it."""

    def __init__(self, **items: Any) -> None:
        self._items = items

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def _nested(depth: int) -> dict[str, Any]:
    d: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        d = {"x": d}
    return d


@pytest.mark.parametrize(
    "d",
    [
        pytest.param({"a": _Mapping(b="c")}, id="MappingNotDict"),
        pytest.param({"a": collections.OrderedDict(b=1)}, id="DictSubclass"),
        pytest.param({"a": 10**400}, id="IntBeyondDouble"),
        pytest.param({"a": "\udc80"}, id="LoneSurrogate"),
        pytest.param({1: "a"}, id="KeyNotStr"),
        pytest.param(_nested(32), id="NestedBeyondUpbLimit"),
        pytest.param({"a": range(3)}, id="SequenceNotList"),
    ],
)
def test_encode_declines_what_only_python_converts(d: dict[Any, Any]) -> None:
    with pytest.raises(structpb.UnsupportedError):
        structpb.encode(d)


@pytest.mark.parametrize(
    "d",
    [
        pytest.param({"a": _Mapping(b="c", n=[1, 2])}, id="MappingNotDict"),
        pytest.param({"a": collections.OrderedDict(b=1)}, id="DictSubclass"),
        pytest.param({"a": range(3)}, id="SequenceNotList"),
        pytest.param(_nested(31), id="NestedAtUpbLimit"),
        pytest.param(_nested(40), id="NestedBeyondUpbLimit"),
    ],
)
def test_declined_values_still_convert(d: dict[str, Any]) -> None:
    assert resource.dict_to_struct(d) == _python_struct(d)


@pytest.mark.parametrize(
    ("d", "error"),
    [
        pytest.param({"a": b"bytes"}, TypeError, id="Bytes"),
        pytest.param({"a": {1, 2}}, TypeError, id="Set"),
        pytest.param({"a": object()}, TypeError, id="Object"),
    ],
)
def test_values_json_cannot_hold_raise_the_python_error(d: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error, match="cannot convert"):
        resource.dict_to_struct(d)


def test_nested_within_the_limit_takes_the_c_path() -> None:
    assert struct_pb2.Struct.FromString(structpb.encode(_nested(31))) == _python_struct(_nested(31))


def test_special_floats_survive() -> None:
    d = {"inf": math.inf, "ninf": -math.inf, "zero": -0.0, "nan": math.nan}
    got = structpb.decode(structpb.encode(d), True)
    assert got["inf"] == math.inf and got["ninf"] == -math.inf and math.isnan(got["nan"])
    assert got["zero"] == 0 and type(got["zero"]) is int  # -0.0 is whole: Python's int(-0.0)


def _entry(key: bytes | None, value: bytes | None) -> bytes:
    body = b""
    if key is not None:
        body += b"\x0a" + bytes([len(key)]) + key
    if value is not None:
        body += b"\x12" + bytes([len(value)]) + value
    return b"\x0a" + bytes([len(body)]) + body


@pytest.mark.parametrize(
    "wire",
    [
        pytest.param(_entry(b"a", b"\x1a\x01x") + _entry(b"a", b"\x1a\x01y"), id="RepeatedKeyLastWins"),
        pytest.param(_entry(None, b"\x20\x01"), id="EntryWithoutKey"),
        pytest.param(_entry(b"a", None), id="EntryWithoutValue"),
        pytest.param(_entry(b"a", b""), id="ValueWithoutKind"),
        pytest.param(_entry(b"a", b"\x1a\x01x\x20\x01"), id="TwoKindsLastWins"),
        pytest.param(_entry(b"a", b"\x38\x05\x1a\x01x") + b"\x10\x07", id="UnknownFieldsSkipped"),
        pytest.param(_entry(b"a", b"\x32\x04\x0a\x02\x20\x01"), id="ListOfBool"),
    ],
)
def test_decode_reads_hand_made_wire_as_upb_does(wire: bytes) -> None:
    s = struct_pb2.Struct.FromString(wire)
    assert _typed(structpb.decode(wire, True)) == _typed(_python_dict(s, True))


@pytest.mark.parametrize(
    "wire",
    [
        pytest.param(b"\x0a\x05\x0a\x01", id="Truncated"),
        pytest.param(b"\x0a", id="MissingLength"),
        pytest.param(b"\x0a\x03\x12\x01\x11", id="TruncatedDouble"),
        pytest.param(b"\x0f", id="BadWireType"),
    ],
)
def test_decode_rejects_malformed_bytes(wire: bytes) -> None:
    with pytest.raises(ValueError, match=r"malformed google\.protobuf\.Struct bytes"):
        structpb.decode(wire, True)
