"""Properties of the P&T transforms: any value through any transform gives a value or a TransformError."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from crossfn.functions.patch_and_transform import transforms
from crossfn.gocompat import values
from crossfn.gocompat.values import GoInt

go_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.integers(-(2**63), 2**63 - 1).map(GoInt)
    | st.floats()
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)

STRING_CONFIGS: list[dict[str, Any]] = [
    {"type": "Format", "fmt": "%s|%d|%v|%.2f|%x|%q|%T|%5.1e"},
    *(
        {"type": "Convert", "convert": c}
        for c in [
            "ToUpper",
            "ToLower",
            "ToJson",
            "ToBase64",
            "FromBase64",
            "ToSha1",
            "ToSha256",
            "ToSha512",
            "ToAdler32",
        ]
    ),
    {"type": "TrimPrefix", "trim": "a"},
    {"type": "TrimSuffix", "trim": "1"},
    {"type": "Regexp", "regexp": {"match": "([a-z]+)([0-9])?", "group": 2}},
    {"type": "Join", "join": {"separator": "→"}},
    {"type": "Replace", "replace": {"search": "e", "replace": "€"}},
]
CONVERT_CONFIGS: list[dict[str, Any]] = [
    {"toType": to, **({"format": f} if f else {})}
    for to in ["string", "int", "int64", "bool", "float64", "object", "array"]
    for f in [None, "quantity", "json"]
]

transform_strategy = st.one_of(
    st.sampled_from([{"type": "string", "string": c} for c in STRING_CONFIGS]),
    st.sampled_from([{"type": "convert", "convert": c} for c in CONVERT_CONFIGS]),
    st.sampled_from(
        [
            {"type": "math", "math": {"type": "Multiply", "multiply": 3}},
            {"type": "math", "math": {"type": "ClampMin", "clampMin": -2}},
            {"type": "math", "math": {"type": "ClampMax", "clampMax": 7}},
            {"type": "map", "map": {"a": 1, "b": None, "": [True]}},
            {
                "type": "match",
                "match": {
                    "patterns": [{"type": "regexp", "regexp": "^a"}, {"type": "literal", "literal": "b"}],
                    "fallbackTo": "Input",
                },
            },
        ]
    ),
)


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(transform_strategy, min_size=1, max_size=3),
    go_values | st.text(alphabet='ab01.5eKMi{}[]"', max_size=8),
)
def test_resolve_gives_a_value_or_a_transform_error(ts: list[dict[str, Any]], value: Any) -> None:
    """No input makes a transform raise anything but TransformError, and outputs stay in the Go value model."""
    try:
        out = transforms.resolve(ts, value)
    except transforms.TransformError as e:
        assert str(e).startswith("transform at index ")
        return
    assert values.type_name(out) in (
        "<nil>",
        "bool",
        "int",
        "int64",
        "float64",
        "string",
        "[]interface {}",
        "map[string]interface {}",
    )
