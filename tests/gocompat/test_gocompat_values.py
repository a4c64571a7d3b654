"""The JSON type names every message uses (one helper, where there were seven)."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.gocompat import json, values


@pytest.mark.parametrize(
    ("value", "name", "phrase", "go_kind"),
    [
        pytest.param(None, "null", "null", "null", id="Null"),
        pytest.param(True, "boolean", "a boolean", "bool", id="Bool"),
        pytest.param(3, "number", "a number", "number", id="Int"),
        pytest.param(1.5, "number", "a number", "number", id="Float"),
        pytest.param("x", "string", "a string", "string", id="String"),
        pytest.param([1], "array", "an array", "array", id="Array"),
        pytest.param({"a": 1}, "object", "an object", "object", id="Object"),
    ],
)
def test_json_type(value: Any, name: str, phrase: str, go_kind: str) -> None:
    assert values.json_type(value) == name
    assert values.a_json_type(value) == phrase
    assert str(json.type_error(value, "T")) == f"json: cannot unmarshal {go_kind} into Go value of type T"


TYPE_NAMES = [
    pytest.param(values.GoSlice(["a"], elem="string"), "[]string", id="StringSlice"),
    pytest.param(values.GoSlice(nil=True), "[]interface {}", id="NilSlice"),
    pytest.param(values.GoMap({}, elem="string"), "map[string]string", id="StringMap"),
    pytest.param(values.GoUint64(1), "uint64", id="Uint64"),
]


@pytest.mark.parametrize(("value", "name"), TYPE_NAMES)
def test_type_names_of_go_only_types(value: Any, name: str) -> None:
    assert values.type_name(value) == name


def test_nil_slices_and_deep_equality() -> None:
    """reflect.DeepEqual: a nil slice is not an empty one, and a []string is not a []interface {}."""
    assert values.is_nil(None) and values.is_nil(values.GoSlice(nil=True))
    assert not values.is_nil([]) and not values.is_nil(values.GoSlice(["x"], nil=True))
    assert not values.strict_equal(values.GoSlice(nil=True), [])
    assert not values.strict_equal(values.GoSlice(["a"], elem="string"), ["a"])
    assert values.strict_equal(values.GoSlice(["a"], elem="string"), values.GoSlice(["a"], elem="string"))
    assert str(values.GoInt(5)) == f"{values.GoInt(5)}" == "5"
