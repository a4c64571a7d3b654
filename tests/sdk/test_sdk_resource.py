"""Tests for crossfn.sdk.resource: conversions, update, conditions, names."""

from __future__ import annotations

import datetime
from typing import Any

import pydantic
import pytest
from google.protobuf import json_format, struct_pb2

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource


@pytest.mark.parametrize(
    ("reason", "d"),
    [
        pytest.param("An empty dict survives.", {}, id="Empty"),
        pytest.param(
            "Scalars of every JSON type survive.",
            {"s": "x", "i": 3, "f": 1.5, "b": True, "n": None},
            id="Scalars",
        ),
        pytest.param(
            "Nested and empty containers keep their presence.",
            {"a": {"b": {}, "c": []}, "l": [[], {}, [1, "x", None, False]]},
            id="Nested",
        ),
        pytest.param(
            "Negative and large whole numbers come back as int.", {"neg": -7, "big": 2**52}, id="WholeNumbers"
        ),
    ],
)
def test_round_trip(reason: str, d: dict[str, Any]) -> None:
    s = resource.dict_to_struct(d)
    assert s == json_format.ParseDict(d, struct_pb2.Struct()), reason
    assert resource.struct_to_dict(s) == d, reason


@pytest.mark.parametrize(
    ("reason", "integers", "want"),
    [
        pytest.param(
            "Whole doubles come back as int by default (3.0 -> 3).", True, {"n": 3, "f": 2.5}, id="Integers"
        ),
        pytest.param(
            "Go's number model keeps every number a float.", False, {"n": 3.0, "f": 2.5}, id="GoFloats"
        ),
    ],
)
def test_struct_to_dict_numbers(reason: str, integers: bool, want: dict[str, Any]) -> None:
    s = json_format.ParseDict({"n": 3.0, "f": 2.5}, struct_pb2.Struct())
    got = resource.struct_to_dict(s, integers=integers)
    assert got == want, reason
    assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in want.items()}, reason


def test_dict_to_struct_accepts_general_mappings_and_sequences() -> None:
    class M(dict[str, Any]):
        pass

    s = resource.dict_to_struct({"m": M(a=1), "t": (1, 2), "sub": True})
    assert resource.struct_to_dict(s) == {"m": {"a": 1}, "t": [1, 2], "sub": True}


@pytest.mark.parametrize(
    ("reason", "value"),
    [
        pytest.param("Bytes are not JSON.", b"x", id="Bytes"),
        pytest.param("Sets are not JSON.", {1}, id="Set"),
        pytest.param("Objects are not JSON, even nested in a list.", [object()], id="ObjectInList"),
    ],
)
def test_dict_to_struct_rejects_non_json(reason: str, value: Any) -> None:
    with pytest.raises(json_format.ParseError, match="cannot convert") as err:
        resource.dict_to_struct({"v": value})
    assert isinstance(err.value, resource.ConversionError), "the official SDK's ParseError, as upstream"
    assert isinstance(err.value, TypeError), "and a TypeError, as crossfn raised before"


class _Bucket(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)
    apiVersion: str = "s3.example.org/v1"  # noqa: N815 -- the Kubernetes field name, as generated models spell it
    kind: str = "Bucket"
    spec: dict[str, Any] | None = None
    bool_: bool | None = pydantic.Field(default=None, alias="bool")


@pytest.mark.parametrize(
    ("reason", "source", "want"),
    [
        pytest.param(
            "A dict replaces top-level keys and keeps the others, like dict.update.",
            {"spec": {"b": 2}},
            {"kind": "Old", "spec": {"b": 2}},
            id="DictShallow",
        ),
        pytest.param(
            "A Struct is merged with MergeFrom, as the official SDK does; map entries are replaced whole.",
            resource.dict_to_struct({"spec": {"b": 2}}),
            {"kind": "Old", "spec": {"b": 2}},
            id="StructMerge",
        ),
        pytest.param(
            "A model dumps only set fields, by alias, and re-adds apiVersion and kind.",
            _Bucket(spec={"x": 1}, bool_=True),  # type: ignore[call-arg]  # populate_by_name: mypy sees only the alias
            {"apiVersion": "s3.example.org/v1", "kind": "Bucket", "spec": {"x": 1}, "bool": True},
            id="PydanticModel",
        ),
    ],
)
def test_update(reason: str, source: Any, want: dict[str, Any]) -> None:
    r = fnv1.Resource(resource=resource.dict_to_struct({"kind": "Old", "spec": {"a": 1}}))
    resource.update(r, source)
    assert resource.struct_to_dict(r.resource) == want, reason


def test_update_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="cannot update a resource from int"):
        resource.update(fnv1.Resource(), 3)  # type: ignore[arg-type] # the wrong type is the point


def test_update_status_replaces_status() -> None:
    r = fnv1.Resource(resource=resource.dict_to_struct({"status": {"old": 1}, "spec": {}}))
    resource.update_status(r, {"new": 2})
    assert resource.struct_to_dict(r.resource) == {"status": {"new": 2}, "spec": {}}


_XR = {
    "status": {
        "conditions": [
            {"type": "Synced", "status": "True"},
            {
                "type": "Ready",
                "status": "False",
                "reason": "Creating",
                "message": "wait",
                "lastTransitionTime": "2024-01-02T03:04:05Z",
            },
        ]
    }
}


@pytest.mark.parametrize(
    ("reason", "res", "typ", "want"),
    [
        pytest.param(
            "A present condition is read whole, with its time parsed.",
            resource.dict_to_struct(_XR),
            "Ready",
            resource.Condition(
                "Ready",
                "False",
                "Creating",
                "wait",
                datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
            ),
            id="Present",
        ),
        pytest.param(
            "An fnv1.Resource is unwrapped.",
            fnv1.Resource(resource=resource.dict_to_struct(_XR)),
            "Synced",
            resource.Condition("Synced", "True"),
            id="ResourceWrapper",
        ),
        pytest.param(
            "None (a map .get() miss) gives Unknown.",
            None,
            "Ready",
            resource.Condition("Ready", "Unknown"),
            id="None",
        ),
        pytest.param(
            "A missing type gives Unknown.",
            _XR,
            "Healthy",
            resource.Condition("Healthy", "Unknown"),
            id="Missing",
        ),
        pytest.param(
            "Malformed status never raises.",
            {"status": "oops"},
            "Ready",
            resource.Condition("Ready", "Unknown"),
            id="Malformed",
        ),
    ],
)
def test_get_condition(reason: str, res: Any, typ: str, want: resource.Condition) -> None:
    assert resource.get_condition(res, typ) == want, reason


@pytest.mark.parametrize(
    ("reason", "parts", "sep", "want"),
    [
        pytest.param(
            "Short names get the 5-character sha256 suffix.",
            ("my-xr", "bucket"),
            "-",
            "my-xr-bucket-" + __import__("hashlib").sha256(b"my-xr-bucket").hexdigest()[:5],
            id="Short",
        ),
        pytest.param(
            "Long names are truncated to 63 characters with no trailing separator before the suffix.",
            ("a" * 57, "b" * 10),
            "-",
            "a" * 57
            + "-"
            + __import__("hashlib").sha256(("a" * 57 + "-" + "b" * 10).encode()).hexdigest()[:5],
            id="Truncated",
        ),
    ],
)
def test_child_name(reason: str, parts: tuple[str, ...], sep: str, want: str) -> None:
    got = resource.child_name(*parts, sep=sep)
    assert got == want, reason
    assert len(got) <= 63, reason


def test_child_name_empty_separator_cuts_as_upstream() -> None:
    """With ``sep=""`` the official SDK still keeps 57 characters of prefix: 62 in all."""
    full = "a" * 70
    want = "a" * 57 + __import__("hashlib").sha256(full.encode()).hexdigest()[:5]
    assert resource.child_name(full, sep="") == want
    assert (
        resource.child_name("ab", "cd", sep="")
        == "abcd" + __import__("hashlib").sha256(b"abcd").hexdigest()[:5]
    )


def test_child_name_multi_character_separator_stays_within_63() -> None:
    assert len(resource.child_name("x" * 100, sep="--")) == 63
