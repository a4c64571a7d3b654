"""gocompat.protojson: which JSON a build's message takes, the rewrite for crossfn's messages, protobuf-go's errors."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn import errors
from crossfn.gocompat import protojson
from crossfn.gocompat.protojson import Field, Schema

SCHEMA = Schema(
    messages={
        "M": (
            Field("display_name", "string"),
            Field("flag", "bool"),
            Field("blob", "bytes"),
            Field("level", "enum", "Level"),
            Field("ttl", "duration"),
            Field("body", "struct"),
            Field("items", "message", "Item", repeated=True),
            Field("by_name", "message", "Item", map=True),
            Field("old_name", "string", to="new_name"),
            Field("a", "string", oneof="pkg.M.choice"),
            Field("b", "string", oneof="pkg.M.choice"),
        ),
        "Item": (Field("n", "string"),),
    },
    enums={"Level": ("LEVEL_UNSPECIFIED", "LEVEL_HIGH")},
)

# (value, rewritten or protobuf-go's error, why)
CASES = [
    ({"displayName": "x"}, {"display_name": "x"}, "the JSON name"),
    ({"display_name": "x"}, {"display_name": "x"}, "or the proto name"),
    ({"oldName": "x"}, {"new_name": "x"}, "a field the build named otherwise lands on crossfn's"),
    (
        {"blob": "-_8"},
        {"blob": "+/8="},
        "URL-safe base64 without padding, re-encoded in the standard alphabet",
    ),
    ({"level": "LEVEL_HIGH"}, {"level": "LEVEL_HIGH"}, "an enum by name"),
    ({"level": 7}, {"level": 7}, "or by any int32"),
    ({"ttl": "1.5s"}, {"ttl": "1.500000000s"}, "a duration, spelled for Python"),
    ({"ttl": "-.5s"}, {"ttl": "-0.500000000s"}, "protobuf-go reads a fraction without its integer"),
    ({"flag": None, "items": None}, {}, "null leaves any field unset"),
    (
        {"items": [{"n": "a"}], "byName": {"k": {"n": "b"}}},
        {"items": [{"n": "a"}], "by_name": {"k": {"n": "b"}}},
        "lists, maps",
    ),
    ({"zz": 1}, 'proto: (line 1:2): unknown field "zz"', "an unknown field, at its name"),
    (
        {"body": {"x": [1, 2]}, "zz": 1},
        'proto: (line 1:21): unknown field "zz"',
        "columns count the JSON before it",
    ),
    ({"flag": "yes"}, 'proto: (line 1:9): invalid value for bool type: "yes"', "a scalar of the wrong kind"),
    (
        {"level": "LOW"},
        'proto: (line 1:10): invalid value for enum type: "LOW"',
        "an enum name the build lacks",
    ),
    ({"level": 1.5}, "proto: (line 1:10): invalid value for enum type: 1.5", "a number that is no int32"),
    ({"blob": "a"}, 'proto: (line 1:9): invalid value for bytes type: "a"', "base64 of impossible length"),
    (
        {"ttl": "5"},
        'proto: (line 1:8): invalid google.protobuf.Duration value "5"',
        "a duration needs its unit",
    ),
    (
        {"ttl": "315576000001s"},
        'proto: (line 1:8): google.protobuf.Duration value out of range: "315576000001s"',
        "past ten thousand years",
    ),
    ({"body": []}, "proto: syntax error (line 1:9): unexpected token [", "a Struct is an object"),
    ({"items": {}}, "proto: syntax error (line 1:10): unexpected token {", "a repeated field is a list"),
    ({"items": [None]}, "proto: syntax error (line 1:11): unexpected token null", "a null message in a list"),
    (
        {"a": "x", "b": "y"},
        'proto: (line 1:10): error parsing "b", oneof pkg.M.choice is already set',
        "one of a oneof",
    ),
    (
        {"display_name": "x", "displayName": "y"},
        'proto: (line 1:20): duplicate field "display_name"',
        "one field, two names",
    ),
]


@pytest.mark.parametrize(("value", "want", "why"), CASES, ids=[c[2] for c in CASES])
def test_unmarshal(value: dict[str, Any], want: dict[str, Any] | str, why: str) -> None:
    if isinstance(want, str):
        with pytest.raises(errors.GoError) as info:
            protojson.unmarshal(value, SCHEMA, "M")
        assert str(info.value) == want, why
        return
    assert protojson.unmarshal(value, SCHEMA, "M") == want, why


def test_absent_is_eof() -> None:
    """An absent value (a null RawExtension) is empty input to protojson."""
    with pytest.raises(errors.GoError, match=r"^proto: unexpected EOF$"):
        protojson.unmarshal(None, SCHEMA, "M")


def test_not_an_object() -> None:
    with pytest.raises(errors.GoError, match=r'^proto: syntax error \(line 1:1\): unexpected token "x"$'):
        protojson.unmarshal("x", SCHEMA, "M")
