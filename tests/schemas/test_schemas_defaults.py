"""Structural defaulting, as the API server applies it."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.schemas import defaults

_OBJ = "object"


def _props(**props: Any) -> dict[str, Any]:
    return {"type": _OBJ, "properties": props}


@pytest.mark.parametrize(
    ("reason", "schema", "obj", "want"),
    [
        pytest.param(
            "An absent field gets its default.",
            _props(a={"type": "string", "default": "x"}),
            {},
            {"a": "x"},
            id="Absent",
        ),
        pytest.param(
            "A present value is kept, even a zero value.",
            _props(a={"type": "integer", "default": 3}),
            {"a": 0},
            {"a": 0},
            id="PresentKept",
        ),
        pytest.param(
            "A null is replaced by the default when the field is not nullable.",
            _props(a={"type": "string", "default": "x"}),
            {"a": None},
            {"a": "x"},
            id="NullNotNullable",
        ),
        pytest.param(
            "A null stays when the field is nullable.",
            _props(a={"type": "string", "nullable": True, "default": "x"}),
            {"a": None},
            {"a": None},
            id="NullNullable",
        ),
        pytest.param(
            "A defaulted object gets its children's defaults.",
            _props(
                o={"type": _OBJ, "default": {}, "properties": {"b": {"type": "boolean", "default": True}}}
            ),
            {},
            {"o": {"b": True}},
            id="NestedAfterDefault",
        ),
        pytest.param(
            "Absent parents without a default are not created.",
            _props(o=_props(b={"type": "boolean", "default": True})),
            {},
            {},
            id="NoParentCreated",
        ),
        pytest.param(
            "Each array element is defaulted.",
            _props(l={"type": "array", "items": _props(p={"type": "integer", "default": 1})}),
            {"l": [{}, {"p": 2}]},
            {"l": [{"p": 1}, {"p": 2}]},
            id="Items",
        ),
        pytest.param(
            "Each additionalProperties value is defaulted.",
            _props(m={"type": _OBJ, "additionalProperties": _props(p={"type": "integer", "default": 1})}),
            {"m": {"x": {}, "y": {"p": 5}}},
            {"m": {"x": {"p": 1}, "y": {"p": 5}}},
            id="AdditionalProperties",
        ),
        pytest.param(
            "Defaults inside value validations (allOf) are not applied.",
            {"type": _OBJ, "allOf": [_props(a={"type": "string", "default": "x"})]},
            {},
            {},
            id="NotInAllOf",
        ),
        pytest.param(
            "default: null is no default (Go reads it as nil): nothing is added.",
            _props(a={"type": "string", "default": None}),
            {},
            {},
            id="DefaultNull",
        ),
        pytest.param(
            "default: null does not replace a null either.",
            _props(a={"type": "string", "default": None}),
            {"a": None},
            {"a": None},
            id="DefaultNullKeepsNull",
        ),
        pytest.param(
            "A null array item gets the items' default when items are not nullable.",
            _props(l={"type": "array", "items": {"type": _OBJ, "default": {"p": 1}}}),
            {"l": [None, {"p": 2}]},
            {"l": [{"p": 1}, {"p": 2}]},
            id="NullItem",
        ),
        pytest.param(
            "A null array item stays when items are nullable.",
            _props(l={"type": "array", "items": {"type": "string", "nullable": True, "default": "x"}}),
            {"l": [None]},
            {"l": [None]},
            id="NullItemNullable",
        ),
        pytest.param(
            "A null additionalProperties value gets its default when not nullable.",
            _props(m={"type": _OBJ, "additionalProperties": {"type": "string", "default": "d"}}),
            {"m": {"x": None, "y": "v"}},
            {"m": {"x": "d", "y": "v"}},
            id="NullAdditionalProperty",
        ),
        pytest.param(
            "A non-structural property (no type, values under anyOf) is still walked for defaults.",
            _props(o={"anyOf": [{"type": "string"}], "properties": {"b": {"default": 2}}}),
            {"o": {}},
            {"o": {"b": 2}},
            id="NonStructuralWalked",
        ),
        pytest.param(
            "additionalProperties: true is no schema: nothing to default.",
            _props(m={"type": _OBJ, "additionalProperties": True}),
            {"m": {"x": None}},
            {"m": {"x": None}},
            id="AdditionalPropertiesTrue",
        ),
    ],
)
def test_apply_defaults(
    reason: str, schema: dict[str, Any], obj: dict[str, Any], want: dict[str, Any]
) -> None:
    defaults.apply_defaults(obj, schema)
    assert obj == want, reason


def test_defaults_are_copies() -> None:
    schema = _props(l={"type": "array", "default": ["a"]})
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    defaults.apply_defaults(first, schema)
    defaults.apply_defaults(second, schema)
    first["l"].append("b")
    assert second == {"l": ["a"]}, "each object gets its own copy of a default"
    assert schema["properties"]["l"]["default"] == ["a"], "the schema's default is not changed"
