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
