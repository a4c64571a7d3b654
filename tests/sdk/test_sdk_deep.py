"""Objects as deep as Kubernetes accepts (10,000 levels) convert both ways, past Python's recursion limit.

The recursive conversions are the fast path; deeper objects go through an
iterative walk (``resource._fill_deep``, ``resource._deep_to_python``). Run with
``CROSSFN_PURE_PYTHON=1`` too (``scripts/check`` does), so both paths are covered.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from google.protobuf import struct_pb2

from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource


def nested(levels: int, *, lists: bool = False) -> dict[str, Any]:
    """An object with ``levels`` objects and lists nested in it, itself counted (the leaf is a list of scalars).

    With ``lists``, every other level wraps the object in a one-item list.
    """
    value: dict[str, Any] = {"leaf": [1, 2.5, "s", True, None]}
    depth, i = 2, 0
    while depth < levels:
        if lists and i % 2 and depth + 2 <= levels:
            value, depth = {"a": [value], "n": i}, depth + 2
        else:
            value, depth = {"a": value, "n": i}, depth + 1
        i += 1
    return value


def message_depth(value: dict[str, Any]) -> int:
    """The protobuf message levels of ``value`` as a Struct (itself the first), without recursion: an
    object costs its Struct, a map entry and a Value a field; a list its ListValue and a Value an item."""
    deepest = 1
    stack: list[tuple[dict[str, Any] | list[Any], int]] = [(value, 1)]
    while stack:
        v, d = stack.pop()  # d: the level of the Struct or ListValue that holds v's items
        items = list(v.values()) if isinstance(v, dict) else v
        below = d + 2 if isinstance(v, dict) else d + 1  # where its Values sit
        deepest = max(deepest, below if items else d)
        stack.extend((x, below + 1) for x in items if isinstance(x, dict | list))
    return deepest


def _first_refused(*, lists: bool) -> int:
    """The fewest levels of :func:`nested` deeper than ``resource.MAX_DEPTH`` message levels."""
    low, high = 3, 20_000  # nested(low) is within the limit, nested(high) past it
    while high - low > 1:
        mid = (low + high) // 2
        within = message_depth(nested(mid, lists=lists)) <= resource.MAX_DEPTH
        low, high = (mid, high) if within else (low, mid)
    return high


def _equal(a: Any, b: Any) -> bool:
    """Deep equality without recursion (``==`` on such objects overflows the C stack's guard)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif x != y or type(x) is not type(y):
            return False
    return True


@pytest.mark.parametrize(
    ("reason", "obj"),
    [
        pytest.param("10,000 levels of objects: Kubernetes' own limit", nested(10_000), id="Objects10000"),
        pytest.param(
            "objects and lists interleaved, 10,000 deep", nested(10_000, lists=True), id="Lists10000"
        ),
        pytest.param("a shallow object takes the fast path, unchanged", nested(3), id="Shallow"),
        # Each object level costs three protobuf message levels, a list level two; upb parses 100 by default.
        pytest.param("31 levels: the deepest the C encoder takes", nested(31), id="Objects31"),
        pytest.param("32 levels: just past the C encoder, to the Python path", nested(32), id="Objects32"),
        pytest.param("lists: just past the C encoder", nested(50, lists=True), id="Lists50"),
        pytest.param("the deepest the protocol carries", nested(_first_refused(lists=False) - 1),
                     id="ObjectsAtTheProtocolsLimit"),
    ],
)  # fmt: skip
def test_deep_objects_round_trip(reason: str, obj: dict[str, Any]) -> None:
    assert message_depth(obj) <= resource.MAX_DEPTH
    s = resource.dict_to_struct(obj)
    assert _equal(resource.struct_to_dict(s), obj), reason
    filled = fnv1.Schema()
    resource.fill_struct(filled.openapi_v3, obj)
    assert _equal(resource.struct_to_dict(filled.openapi_v3), obj), reason
    value = struct_pb2.Value()
    value.struct_value.CopyFrom(s)
    assert _equal(resource.value_to_python(value), obj), reason


def test_deep_object_crosses_the_wire() -> None:
    """Serialised and parsed as a function server parses a request (``wire.parse``), it comes back whole."""
    obj = nested(10_000)
    req = fnv1.RunFunctionRequest()
    resource.fill_struct(req.required_schemas["deep"].openapi_v3, obj)
    parsed = wire.parse(fnv1.RunFunctionRequest, req.SerializeToString())
    assert _equal(resource.struct_to_dict(parsed.required_schemas["deep"].openapi_v3), obj)


def test_deep_fill_keeps_other_keys_and_refuses_what_json_cannot_hold() -> None:
    """The deep path behaves as the fast one: other keys stay, a value JSON cannot hold is refused."""
    target = resource.dict_to_struct({"keep": 1, "deep": "old"})
    resource.fill_struct(target, {"deep": nested(2_000)})
    got = resource.struct_to_dict(target)
    assert got["keep"] == 1 and _equal(got["deep"], nested(2_000))
    bad = nested(2_000)
    bad["leaf"] = {1, 2}
    with pytest.raises(resource.ConversionError, match="cannot convert set to a protobuf Value"):
        resource.dict_to_struct({"deep": bad})


@pytest.mark.parametrize(
    ("reason", "obj"),
    [
        pytest.param("one object level past what the protocol carries", nested(_first_refused(lists=False)),
                     id="ObjectsPastTheProtocol"),
        pytest.param("lists count too", nested(_first_refused(lists=True), lists=True), id="ListsPastTheProtocol"),
        pytest.param("deep enough to overflow protobuf's serialiser", nested(50_000), id="Objects50000"),
    ],
)  # fmt: skip
@pytest.mark.parametrize(
    "recursion_limit", [None, 100_000], ids=["DefaultRecursionLimit", "RaisedAsTheCliDoes"]
)
def test_deeper_than_the_protocol_carries_is_refused_in_one_line(
    reason: str, obj: dict[str, Any], recursion_limit: int | None
) -> None:
    """Protobuf would build such a Struct, but serialising one this deep kills the process; refuse it instead,
    however high Python's recursion limit (``crossfn`` raises it for deep YAML)."""
    assert message_depth(obj) > resource.MAX_DEPTH
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(recursion_limit or before)
    try:
        _refused(obj, reason)
    finally:
        sys.setrecursionlimit(before)


def _refused(obj: dict[str, Any], reason: str) -> None:
    for convert in (
        resource.dict_to_struct,
        lambda o: resource.fill_struct(struct_pb2.Struct(), {"deep": o}),
    ):
        with pytest.raises(resource.ConversionError) as caught:
            convert(obj)
        assert str(caught.value) == (
            "cannot convert an object nested deeper than 30090 protobuf message levels (about 10,000 levels "
            "of objects), the most the function protocol carries"
        ), reason
