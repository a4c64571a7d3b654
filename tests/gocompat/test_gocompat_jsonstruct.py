"""Go's typed JSON round trip: decode into a struct (numbers, times) and encode it back (omitempty, omitzero, pointers)."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn import errors
from crossfn.gocompat import jsonstruct as js

INNER = js.Struct("v1.Inner", {"name": js.STRING})
THING = js.Struct(
    "v1.Thing",
    {
        "required": js.STRING,
        "optional": js.STRING,
        "pointer": js.STRING,
        "count": js.INT64,
        "small": js.INT32,
        "flag": js.BOOL,
        "items": js.Slice(INNER),
        "optionalItems": js.Slice(js.STRING),
        "labels": js.Map(js.STRING),
        "inner": INNER,
        "optionalInner": INNER,
        "innerPointer": INNER,
        "when": js.TIME,
        "created": js.TIME,
        "raw": js.ANY,
    },
    omitempty=frozenset(
        {
            "optional",
            "pointer",
            "count",
            "flag",
            "optionalItems",
            "labels",
            "optionalInner",
            "innerPointer",
            "raw",
            "created",
        }
    ),
    pointers=frozenset({"pointer", "innerPointer", "raw"}),
    omitzero=frozenset({"created"}),
)

EMPTY = {
    "required": "",
    "small": 0,
    "items": None,
    "inner": {"name": ""},
    "optionalInner": {"name": ""},
    "when": None,
}


@pytest.mark.parametrize(
    ("given", "want", "reason"),
    [
        pytest.param(
            {},
            EMPTY,
            "unset fields: required ones as zero values, structs always, omitempty ones gone",
            id="Empty",
        ),
        pytest.param(
            {"pointer": "", "innerPointer": {}, "raw": 0},
            {**EMPTY, "pointer": "", "innerPointer": {"name": ""}, "raw": 0},
            "a pointer that is set is written, even to an empty value",
            id="PointersSet",
        ),
        pytest.param(
            {"optional": "", "count": 0, "flag": False, "optionalItems": [], "labels": {}},
            EMPTY,
            "omitempty drops empty values that were given",
            id="OmitemptyDropsEmpty",
        ),
        pytest.param(
            {"items": []},
            {**EMPTY, "items": []},
            "an empty list without omitempty stays empty, not null",
            id="EmptyList",
        ),
        pytest.param(
            {"items": [None, {"name": "a"}]},
            {**EMPTY, "items": [{"name": ""}, {"name": "a"}]},
            "a null item is a zero struct",
            id="NullItem",
        ),
        pytest.param(
            {"Required": "x", "unknown": 1},
            {**EMPTY, "required": "x"},
            "keys match case-insensitively, unknown ones go",
            id="CaseAndUnknown",
        ),
        pytest.param(
            {"count": 3.0, "small": -2},
            {**EMPTY, "count": 3, "small": -2},
            "a whole float is an integer",
            id="WholeNumbers",
        ),
        pytest.param(
            {"when": "2026-01-02T03:04:05.678+02:00", "created": "2026-01-01T00:00:00Z"},
            {**EMPTY, "when": "2026-01-02T01:04:05Z", "created": "2026-01-01T00:00:00Z"},
            "times are written in UTC to the second; omitzero keeps a set time",
            id="Times",
        ),
        pytest.param(
            {"raw": {"any": ["thing", 1]}},
            {**EMPTY, "raw": {"any": ["thing", 1]}},
            "raw JSON is kept as given",
            id="Raw",
        ),
        pytest.param({"required": None, "inner": None}, EMPTY, "null leaves a field unset", id="Nulls"),
    ],
)
def test_round_trip(given: dict[str, Any], want: dict[str, Any], reason: str) -> None:
    assert js.encode(js.decode(given, THING, decoder=js.LENIENT), THING) == want, reason


@pytest.mark.parametrize(
    ("given", "want", "reason"),
    [
        pytest.param(
            {"count": 1.5},
            "json: cannot unmarshal number 1.5 into Go struct field Thing.count of type int64",
            "not whole",
            id="Fraction",
        ),
        pytest.param(
            {"small": 2**31},
            "json: cannot unmarshal number 2147483648 into Go struct field Thing.small of type int32",
            "too big for int32",
            id="Overflow",
        ),
        pytest.param(
            {"count": "3"},
            "json: cannot unmarshal string into Go struct field Thing.count of type int64",
            "a string is no number",
            id="StringNumber",
        ),
        pytest.param(
            {"count": True},
            "json: cannot unmarshal bool into Go struct field Thing.count of type int64",
            "a bool is no number",
            id="BoolNumber",
        ),
        pytest.param(
            {"items": [{"name": 3}]},
            "json: cannot unmarshal number into Go struct field Inner.items.name of type string",
            "the innermost struct names the path",
            id="Nested",
        ),
        pytest.param(
            {"when": 5},
            "json: cannot unmarshal number into Go value of type string",
            "metav1.Time reads a string",
            id="TimeNotString",
        ),
        pytest.param(
            {"when": "yesterday"},
            'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse',
            "RFC 3339 only",
            id="TimeNotRFC3339",
        ),
    ],
)
def test_decode_errors(given: dict[str, Any], want: str, reason: str) -> None:
    with pytest.raises(errors.GoError) as exc:
        js.decode(given, THING, decoder=js.LENIENT)
    assert str(exc.value) == want, reason
