"""Value validation, pruning and defaulting with the API server's error texts."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn import validate
from crossfn.validate import _problem

_S = {"type": "string"}
_I = {"type": "integer"}


def _root(**spec_props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "apiVersion": _S,
            "kind": _S,
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": spec_props},
        },
    }


def _msgs(obj: dict[str, Any], schema: dict[str, Any], **kw: Any) -> list[str]:
    return [p.message for p in validate.validate_object(obj, schema, **kw)]


@pytest.mark.parametrize(
    ("reason", "props", "spec", "want"),
    [
        pytest.param("A valid object has no problems.", {"a": _S}, {"a": "x"}, [], id="Valid"),
        pytest.param(
            "A missing required field.",
            {"forProvider": {"type": "object", "required": ["region"], "properties": {"region": _S}}},
            {"forProvider": {}},
            ["spec.forProvider.region: Required value"],
            id="Required",
        ),
        pytest.param(
            "A wrong type names the wanted and the received type.",
            {"replicas": _I},
            {"replicas": "three"},
            [
                'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'
            ],
            id="Type",
        ),
        pytest.param(
            "A whole float is an integer.", {"replicas": _I}, {"replicas": 3.0}, [], id="WholeFloatInteger"
        ),
        pytest.param(
            "A fraction is not an integer.",
            {"replicas": _I},
            {"replicas": 1.5},
            [
                'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'
            ],
            id="FractionNotInteger",
        ),
        pytest.param(
            "An integer is a number.", {"n": {"type": "number"}}, {"n": 2}, [], id="IntegerIsNumber"
        ),
        pytest.param(
            "A boolean is not an integer.",
            {"n": _I},
            {"n": True},
            ['spec.n: Invalid value: "boolean": spec.n in body must be of type integer: "boolean"'],
            id="BoolNotInteger",
        ),
        pytest.param(
            "null is refused unless nullable.",
            {"a": _S},
            {"a": None},
            ['spec.a: Invalid value: "null": spec.a in body must be of type string: "null"'],
            id="NullNotNullable",
        ),
        pytest.param(
            "null is fine when nullable.",
            {"a": {"type": "string", "nullable": True}},
            {"a": None},
            [],
            id="Nullable",
        ),
        pytest.param(
            "int-or-string takes integers and strings.",
            {"p": {"x-kubernetes-int-or-string": True}, "q": {"x-kubernetes-int-or-string": True}},
            {"p": 80, "q": "http"},
            [],
            id="IntOrString",
        ),
        pytest.param(
            "int-or-string refuses other types.",
            {"p": {"x-kubernetes-int-or-string": True}},
            {"p": [1]},
            ['spec.p: Invalid value: "array": spec.p in body must be of type integer,string: "array"'],
            id="IntOrStringWrong",
        ),
        pytest.param(
            "An enum lists the supported values, quoted.",
            {"a": {"type": "string", "enum": ["x", "y"]}},
            {"a": "z"},
            ['spec.a: Unsupported value: "z": supported values: "x", "y"'],
            id="Enum",
        ),
        pytest.param(
            "A pattern is RE2, searched.",
            {"a": {"type": "string", "pattern": "^[a-z]+$"}},
            {"a": "ABC"},
            ["spec.a: Invalid value: \"ABC\": spec.a in body should match '^[a-z]+$'"],
            id="Pattern",
        ),
        pytest.param(
            "A pattern Go's regexp rejects is reported with Go's error (kube-openapi's validate.Pattern).",
            {"a": {"type": "string", "pattern": "+"}},
            {"a": "foo"},
            [
                'spec.a: Invalid value: "foo": spec.a in body should match \'+, but pattern is invalid: '
                "error parsing regexp: missing argument to repetition operator: `+`'"
            ],
            id="InvalidPattern",
        ),
        pytest.param(
            "Lookahead is not Go syntax: the pattern is invalid, never matched with Python's engine.",
            {"a": {"type": "string", "pattern": "^(?=a)a$"}},
            {"a": "a"},
            [
                'spec.a: Invalid value: "a": spec.a in body should match \'^(?=a)a$, but pattern is invalid: '
                "error parsing regexp: invalid or unsupported Perl syntax: `(?=`'"
            ],
            id="PerlOnlyPattern",
        ),
        pytest.param(
            "maxLength is Too long without the value.",
            {"a": {"type": "string", "maxLength": 3}},
            {"a": "abcd"},
            ["spec.a: Too long: may not be more than 3 bytes"],
            id="MaxLength",
        ),
        pytest.param(
            "minLength.",
            {"a": {"type": "string", "minLength": 3}},
            {"a": "ab"},
            ['spec.a: Invalid value: "ab": spec.a in body should be at least 3 chars long'],
            id="MinLength",
        ),
        pytest.param(
            "minimum, with the value printed bare.",
            {"n": {"type": "integer", "minimum": 1}},
            {"n": 0},
            ["spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1"],
            id="Minimum",
        ),
        pytest.param(
            "exclusive maximum.",
            {"n": {"type": "number", "maximum": 10, "exclusiveMaximum": True}},
            {"n": 10},
            ["spec.n: Invalid value: 10: spec.n in body should be less than 10"],
            id="ExclusiveMaximum",
        ),
        pytest.param(
            "multipleOf.",
            {"n": {"type": "integer", "multipleOf": 5}},
            {"n": 12},
            ["spec.n: Invalid value: 12: spec.n in body should be a multiple of 5"],
            id="MultipleOf",
        ),
        pytest.param(
            "maxItems is Too many with the count.",
            {"l": {"type": "array", "maxItems": 2, "items": _S}},
            {"l": ["a", "b", "c"]},
            ["spec.l: Too many: 3: must have at most 2 items"],
            id="MaxItems",
        ),
        pytest.param(
            "minItems prints the list as Go does.",
            {"l": {"type": "array", "minItems": 2, "items": _S}},
            {"l": ["a"]},
            ['spec.l: Invalid value: []interface {}{"a"}: spec.l in body should have at least 2 items'],
            id="MinItems",
        ),
        pytest.param(
            "items are validated with their index.",
            {
                "l": {
                    "type": "array",
                    "items": {"type": "object", "required": ["name"], "properties": {"name": _S}},
                }
            },
            {"l": [{"name": "a"}, {}]},
            ["spec.l[1].name: Required value"],
            id="Items",
        ),
        pytest.param(
            "set lists refuse duplicates.",
            {"l": {"type": "array", "x-kubernetes-list-type": "set", "items": _S}},
            {"l": ["a", "b", "a"]},
            ['spec.l[2]: Duplicate value: "a"'],
            id="ListSet",
        ),
        pytest.param(
            "map lists refuse duplicate keys.",
            {
                "l": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["type"],
                    "items": {"type": "object", "properties": {"type": _S, "v": _I}},
                }
            },
            {"l": [{"type": "A", "v": 1}, {"type": "A", "v": 2}]},
            ['spec.l[1]: Duplicate value: map[string]interface {}{"type":"A"}'],
            id="ListMap",
        ),
        pytest.param(
            "additionalProperties validates every value.",
            {"m": {"type": "object", "additionalProperties": _S}},
            {"m": {"a": "x", "b": 2}},
            ['spec.m.b: Invalid value: "integer": spec.m.b in body must be of type string: "integer"'],
            id="AdditionalProperties",
        ),
        pytest.param(
            "Unknown fields are reported as crossplane beta validate does.",
            {"a": _S},
            {"a": "x", "b": {"c": 1}},
            ['spec.b: Invalid value: "b": unknown field: "b"'],
            id="UnknownField",
        ),
        pytest.param(
            "preserve-unknown-fields keeps unknown fields.",
            {"raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            {"raw": {"anything": [1, 2]}},
            [],
            id="PreserveUnknownFields",
        ),
        pytest.param(
            "An object without properties keeps nothing in a structural schema.",
            {"o": {"type": "object"}},
            {"o": {"x": 1}},
            ['spec.o.x: Invalid value: "x": unknown field: "x"'],
            id="EmptyObjectPrunes",
        ),
        pytest.param(
            "An embedded resource needs apiVersion and kind; its metadata is free.",
            {
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                }
            },
            {"template": {"metadata": {"name": "x"}, "spec": {}}},
            [
                "spec.template.apiVersion: Required value: must not be empty",
                "spec.template.kind: Required value: must not be empty",
            ],
            id="EmbeddedResource",
        ),
        pytest.param(
            "anyOf fails when no alternative validates.",
            {
                "v": {
                    "anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+%$"}],
                    "x-kubernetes-int-or-string": True,
                }
            },
            {"v": "ten"},
            ['spec.v: Invalid value: "ten": spec.v in body must validate at least one schema (anyOf)'],
            id="AnyOf",
        ),
        pytest.param(
            "oneOf needs exactly one.",
            {
                "v": {
                    "type": "object",
                    "properties": {"a": _S, "b": _S},
                    "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                }
            },
            {"v": {"a": "x", "b": "y"}},
            [
                'spec.v: Invalid value: map[string]interface {}{"a":"x", "b":"y"}: spec.v in body must validate one and only one schema (oneOf)'
            ],
            id="OneOf",
        ),
        pytest.param(
            "not refuses what validates.",
            {"v": {"type": "string", "not": {"enum": ["forbidden"]}}},
            {"v": "forbidden"},
            ['spec.v: Invalid value: "forbidden": spec.v in body must not validate the schema (not)'],
            id="Not",
        ),
        pytest.param(
            "date-time format.",
            {"t": {"type": "string", "format": "date-time"}},
            {"t": "yesterday"},
            ['spec.t: Invalid value: "yesterday": spec.t in body must be of type date-time: "yesterday"'],
            id="FormatDateTime",
        ),
        pytest.param(
            "Valid formats pass; unchecked formats are ignored.",
            {
                "t": {"type": "string", "format": "date-time"},
                "c": {"type": "string", "format": "cidr"},
                "u": {"type": "string", "format": "uuid"},
                "i": {"type": "integer", "format": "int32"},
                "x": {"type": "string", "format": "whatever"},
            },
            {
                "t": "2024-01-01T00:00:00Z",
                "c": "10.0.0.0/16",
                "u": "6b1d4b5e-9f3a-4d4e-8d9e-0c2f7a1b2c3d",
                "i": 2**40,
                "x": "?",
            },
            [],
            id="FormatsValid",
        ),
        pytest.param(
            "cidr format.",
            {"c": {"type": "string", "format": "cidr"}},
            {"c": "10.0.0.0/33"},
            ['spec.c: Invalid value: "10.0.0.0/33": spec.c in body must be of type cidr: "10.0.0.0/33"'],
            id="FormatCIDR",
        ),
    ],
)
def test_validate_object(reason: str, props: dict[str, Any], spec: dict[str, Any], want: list[str]) -> None:
    obj = {"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "n"}, "spec": spec}
    assert _msgs(obj, _root(**props)) == want, reason


def test_defaults_before_required() -> None:
    schema = _root(region={"type": "string", "default": "eu"})
    schema["properties"]["spec"]["required"] = ["region"]
    obj = {"apiVersion": "x.io/v1", "kind": "X", "spec": {}}
    assert _msgs(obj, schema) == [], "a defaulted field is not missing"
    assert obj == {"apiVersion": "x.io/v1", "kind": "X", "spec": {}}, "the caller's object is not changed"


def test_root_fields_are_known() -> None:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
    }
    obj = {"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "n", "labels": {"a": "b"}}, "spec": {}}
    assert _msgs(obj, schema) == [], "apiVersion, kind and metadata are always known at the root"


def test_published_schemas_are_not_structural() -> None:
    schema = _root(raw={"type": "object"})
    obj = {"apiVersion": "x.io/v1", "kind": "X", "spec": {"raw": {"free": "form"}}}
    assert _msgs(obj, schema, structural=False) == [], "a Go type's object without properties is free-form"
    assert len(_msgs(obj, schema, structural=True)) == 1


def test_published_allof_properties_are_known() -> None:
    schema = _root(meta={"allOf": [{"type": "object", "properties": {"name": _S}}]})
    obj = {"apiVersion": "x.io/v1", "kind": "X", "spec": {"meta": {"name": "a", "bogus": 1}}}
    assert _msgs(obj, schema, structural=False) == [
        'spec.meta.bogus: Invalid value: "bogus": unknown field: "bogus"'
    ]


@pytest.mark.parametrize(
    ("reason", "value", "want"),
    [
        pytest.param("nil prints null.", None, "null", id="Nil"),
        pytest.param("Strings are %q.", 'a"b', '"a\\"b"', id="String"),
        pytest.param("Whole floats print as integers.", 3.0, "3", id="WholeFloat"),
        pytest.param("Fractions print shortest.", 0.5, "0.5", id="Float"),
        pytest.param("Large floats use Go's exponent form.", 1e21, "1e+21", id="Exponent"),
        pytest.param(
            "Small floats keep their shortest digits.", 1.23456789e-7, "1.23456789e-07", id="SmallExponent"
        ),
        pytest.param(
            "A whole float beyond int64 stays a float64 in Go, printed with %v.",
            1e20,
            "1e+20",
            id="LargeWhole",
        ),
        pytest.param(
            "Go's %v of a float64 uses exponent form from 1e+06.",
            1234567.5,
            "1.2345675e+06",
            id="MillionsFloat",
        ),
        pytest.param(
            "Whole floats within int64 print as integers.", 1e15, "1000000000000000", id="WholeInt64"
        ),
        pytest.param(
            "Strings are strconv.Quote'd: no-break space escapes.",
            "a\u00a0b",
            '"a\\u00a0b"',
            id="NoBreakSpace",
        ),
        pytest.param("Booleans are bare.", True, "true", id="Bool"),
        pytest.param(
            "Lists are %#v.", [1, "a", None], '[]interface {}{1, "a", interface {}(nil)}', id="List"
        ),
        pytest.param(
            "Maps are %#v with sorted keys.",
            {"b": 1, "a": True},
            'map[string]interface {}{"a":true, "b":1}',
            id="Map",
        ),
    ],
)
def test_go_value(reason: str, value: Any, want: str) -> None:
    assert _problem.go_value(value) == want, reason


def test_invalid_pattern_writes_nothing_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    """RE2 logs a rejected pattern from C++ unless told not to; validate reports it as a problem only."""
    schema = _root(a={"type": "string", "pattern": "(unclosed"})
    obj = {"apiVersion": "x.io/v1", "kind": "X", "spec": {"a": "b"}}
    assert len(validate.validate_object(obj, schema)) == 1
    assert capfd.readouterr().err == ""


def test_problem_json_and_str() -> None:
    p = validate.Problem("spec.a", validate.ErrorType.REQUIRED, resource="x.io/v1, Kind=X, n")
    assert str(p) == "x.io/v1, Kind=X, n : spec.a: Required value"
    assert p.to_json() == {
        "path": "spec.a",
        "type": "Required value",
        "origin": "schema",
        "message": "spec.a: Required value",
        "resource": "x.io/v1, Kind=X, n",
    }
    assert (
        validate.Problem("", validate.ErrorType.INVALID, "boom", "object").message
        == '<nil>: Invalid value: "object": boom'
    )


def test_exports() -> None:
    import crossfn.validate as pkg

    assert sorted(pkg.__all__) == sorted(
        [
            "ErrorType",
            "Origin",
            "Outcome",
            "Problem",
            "Report",
            "run",
            "validate_object",
            "validate_render",
            "validate_resource",
        ]
    )
    for name in pkg.__all__:
        assert hasattr(pkg, name), name
