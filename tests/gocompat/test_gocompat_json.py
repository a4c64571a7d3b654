"""Go ``encoding/json`` emulation: Marshal bytes (upstream pt-6.8), Unmarshal errors, properties."""

from __future__ import annotations

import json as stdjson
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crossfn.errors import CrossfnError, GoError
from crossfn.gocompat import json, values
from crossfn.gocompat.sprig import Certificate
from crossfn.gocompat.values import GoInt

MARSHAL = [
    pytest.param(
        {"b": 1, "a": [1.5, None, True]}, '{"a":[1.5,null,true],"b":1}', "compact, keys sorted", id="Layout"
    ),
    pytest.param("<a&b>", '"\\u003ca\\u0026b\\u003e"', "HTML characters are escaped", id="HTMLEscape"),
    pytest.param(
        "\u2028\u2029", '"\\u2028\\u2029"', "line and paragraph separators are escaped", id="LineSeparators"
    ),
    pytest.param({"é": "ü"}, '{"é":"ü"}', "other non-ASCII is raw UTF-8", id="RawUnicode"),
    pytest.param(
        "\n\r\t\x01\x7f", '"\\n\\r\\t\\u0001\x7f"', "control characters; DEL is not one", id="Controls"
    ),
    pytest.param("\b\f", '"\\b\\f"', "Go 1.22+ writes \\b and \\f short", id="BackspaceFormFeed"),
    pytest.param("a\udce2\udc86", '"a\\ufffd\\ufffd"', "one U+FFFD per invalid byte", id="InvalidUTF8"),
    pytest.param(30.0, "30", "integral floats have no fraction", id="IntegralFloat"),
    pytest.param(123456789.0, "123456789", "no exponent below 1e21", id="LargeIntegral"),
    pytest.param(
        12345678901234567890.0, "12345678901234567000", "shortest digits, then zeros", id="HugeIntegral"
    ),
    pytest.param(-0.0, "-0", "negative zero keeps its sign", id="NegativeZero"),
    pytest.param(1e21, "1e+21", "exponent form from 1e21", id="ExponentLarge"),
    pytest.param(1e-7, "1e-7", "exponent form below 1e-6, cleaned up", id="ExponentSmall"),
    pytest.param(1.5e300, "1.5e+300", "three-digit exponent", id="ExponentHuge"),
    pytest.param(0.000001, "0.000001", "1e-6 itself is plain", id="SmallPlain"),
    pytest.param(0.1, "0.1", "shortest decimal", id="Fraction"),
    pytest.param(2**63 - 1, "9223372036854775807", "int64", id="Int64"),
    pytest.param(GoInt(-5), "-5", "Go int", id="GoInt"),
    pytest.param([], "[]", "empty list", id="EmptyList"),
    pytest.param({}, "{}", "empty map", id="EmptyMap"),
]


@pytest.mark.parametrize(("value", "want", "reason"), MARSHAL)
def test_marshal(value: Any, want: str, reason: str) -> None:
    assert json.marshal(value) == want, reason


@pytest.mark.parametrize(
    ("value", "want"),
    [
        pytest.param(math.nan, "json: unsupported value: NaN", id="NaN"),
        pytest.param(math.inf, "json: unsupported value: +Inf", id="Inf"),
        pytest.param({"a": [-math.inf]}, "json: unsupported value: -Inf", id="NestedNegInf"),
        pytest.param({"a": object()}, "json: unsupported type: object", id="UnsupportedType"),
    ],
)
def test_marshal_errors(value: Any, want: str) -> None:
    """Values JSON cannot encode fail with Go's text."""
    with pytest.raises(GoError) as raised:
        json.marshal(value)
    assert str(raised.value) == want


UNMARSHAL_ERRORS = [
    pytest.param("", "unexpected end of JSON input", "empty input", id="Empty"),
    pytest.param("[1,2", "unexpected end of JSON input", "truncated", id="Truncated"),
    pytest.param('{"a" 1}', "invalid character '1' after object key", "missing colon", id="AfterKey"),
    pytest.param(
        '{"a":1 "b"}', "invalid character '\"' after object key:value pair", "missing comma", id="AfterPair"
    ),
    pytest.param(
        "[1 2]", "invalid character '2' after array element", "missing comma in array", id="AfterElement"
    ),
    pytest.param(
        "{1:2}",
        "invalid character '1' looking for beginning of object key string",
        "keys are strings",
        id="KeyString",
    ),
    pytest.param("01", "invalid character '1' after top-level value", "no leading zeros", id="LeadingZero"),
    pytest.param(
        "[1,]",
        "invalid character ']' looking for beginning of value",
        "no trailing comma",
        id="TrailingComma",
    ),
    pytest.param('"\\x"', "invalid character 'x' in string escape code", "bad escape", id="BadEscape"),
    pytest.param(
        '"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape", "bad \\u", id="BadUnicode"
    ),
    pytest.param(
        '"a\nb"', "invalid character '\\n' in string literal", "raw control character", id="RawNewline"
    ),
    pytest.param(
        "1.e5",
        "invalid character 'e' after decimal point in numeric literal",
        "digits after the point",
        id="DecimalPoint",
    ),
    pytest.param("1e+", "unexpected end of JSON input", "exponent digits", id="ExponentEnd"),
    pytest.param(
        "1ex", "invalid character 'x' in exponent of numeric literal", "exponent digits", id="Exponent"
    ),
    pytest.param("-x", "invalid character 'x' in numeric literal", "minus needs a digit", id="Minus"),
    pytest.param("trux", "invalid character 'x' in literal true (expecting 'e')", "literals", id="Literal"),
    pytest.param(
        "'x'", "invalid character '\\'' looking for beginning of value", "single quotes", id="SingleQuote"
    ),
    pytest.param("NaN", "invalid character 'N' looking for beginning of value", "no NaN", id="NaN"),
    pytest.param(
        "[1e400]",
        "json: cannot unmarshal number 1e400 into Go value of type float64",
        "float overflow",
        id="Overflow",
    ),
]


@pytest.mark.parametrize(("text", "want", "reason"), UNMARSHAL_ERRORS)
def test_unmarshal_errors(text: str, want: str, reason: str) -> None:
    with pytest.raises(GoError) as raised:
        json.unmarshal(text)
    assert str(raised.value) == want, reason


def test_unmarshal_numbers() -> None:
    """Go's decoder gives float64; the Kubernetes decoder int64 for integers that fit."""
    assert json.unmarshal('{"a":[1,2.5]}') == {"a": [1.0, 2.5]}
    assert isinstance(json.unmarshal("1"), float)
    got = json.unmarshal("[1, 2.5, 1e2, 9223372036854775808]", integers=True)
    assert [type(x) for x in got] == [int, float, float, float]


def test_unmarshal_targets() -> None:
    """Typed targets: null is nil, a mismatch is Go's UnmarshalTypeError."""
    assert json.unmarshal_object("null") is None
    assert json.unmarshal_array("null") is None
    with pytest.raises(
        GoError, match=r"^json: cannot unmarshal object into Go value of type \[\]interface \{\}$"
    ):
        json.unmarshal_array("{}")
    with pytest.raises(
        GoError, match=r"^json: cannot unmarshal number into Go value of type map\[string\]interface"
    ):
        json.unmarshal_object("1")


def test_unmarshal_depth() -> None:
    """Go's scanner allows 10000 levels of nesting, more than Python's recursion limit."""
    deep = json.unmarshal("[" * 10000 + "]" * 10000)
    for _ in range(9999):
        deep = deep[0]
    assert deep == []
    with pytest.raises(GoError, match=r"^invalid character '\[' exceeded max depth$"):
        json.unmarshal("[" * 10001 + "]" * 10001)


def test_unmarshal_lone_surrogate_escape() -> None:
    """A \\ud800 escape decodes to U+FFFD in Go."""
    assert json.unmarshal('"\\ud800x"') == "\ufffdx"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def same(a: Any, b: Any) -> bool:
    """Equal as JSON: an integral float may come back as an integer literal."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return (
            not isinstance(a, bool | str | None)
            and not isinstance(b, bool | str | None)
            and float(a) == float(b)
        )
    return bool(a == b) and type(a) is type(b)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_marshal_is_json_of_the_same_value(v: Any) -> None:
    """Go's bytes are valid JSON that decodes back to the value (floats and ints alike)."""
    assert same(stdjson.loads(json.marshal(v)), v)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_unmarshal_reads_marshal(v: Any) -> None:
    """Our decoder reads our encoder, with numbers as float64."""
    assert json.unmarshal(json.marshal(v)) == stdjson.loads(stdjson.dumps(v), parse_int=float)


def _reject(name: str) -> Any:
    raise ValueError(name)


def _has_non_finite(v: Any) -> bool:
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, dict):
        return any(_has_non_finite(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_non_finite(x) for x in v)
    return False


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list('{}[]:,"\\ 0123456789.-+eEtruefalsn\n\tx\u00e9')), max_size=30)
    | st.text(max_size=30)
)
def test_unmarshal_agrees_with_strict_json(text: str) -> None:
    """Text valid as strict JSON decodes as Python reads it; anything else fails with crossfn's Go error."""
    try:
        want = stdjson.loads(text, parse_constant=_reject, parse_int=float)
        valid = not _has_non_finite(want) and "\\ud" not in text.lower()
    except ValueError:
        valid = False
    if valid:
        assert json.unmarshal(text) == want
        return
    try:
        json.unmarshal(text)
    except CrossfnError:
        return
    assert "\\ud" in text.lower(), "invalid JSON must not decode"


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.none() | st.floats() | st.text(), lambda i: st.lists(i, max_size=3), max_leaves=6))
def test_marshal_fails_only_on_non_finite(v: Any) -> None:
    """NaN and infinities fail with crossfn's Go error; everything else encodes."""
    if _has_non_finite(v):
        with pytest.raises(GoError, match=r"^json: unsupported value: "):
            json.marshal(v)
    else:
        assert isinstance(json.marshal(v), str)


def test_marshal_options_and_go_types() -> None:
    """SetEscapeHTML(false), MarshalIndent, nil slices as null, typed maps, struct fields in order."""
    assert json.marshal({"h": "<&>"}, escape_html=False) == '{"h":"<&>"}'
    assert json.marshal({"h": "\u2028"}, escape_html=False) == '{"h":"\\u2028"}'
    assert (
        json.marshal({"b": [1, {}], "a": []}, indent="  ")
        == '{\n  "a": [],\n  "b": [\n    1,\n    {}\n  ]\n}'
    )
    assert json.marshal([values.GoSlice(nil=True), values.GoSlice(elem="string")]) == "[null,[]]"
    assert json.marshal(values.GoMap({"b": "1", "a": "2"}, elem="string")) == '{"a":"2","b":"1"}'
    assert json.marshal(Certificate("c", "k")) == '{"Cert":"c","Key":"k"}'


def test_marshal_cycles_and_depth() -> None:
    """A map containing itself fails as Go's encoder does; deep nesting does not hit Python's recursion limit."""
    cyclic: dict[str, object] = {}
    cyclic["x"] = [cyclic]
    with pytest.raises(GoError) as raised:
        json.marshal(cyclic)
    assert str(raised.value) == "json: unsupported value: encountered a cycle via map[string]interface {}"
    deep: list[object] = []
    for _ in range(5000):
        deep = [deep]
    assert json.marshal(deep) == "[" * 5001 + "]" * 5001
