"""Conformance: function-patch-and-transform's transforms_test.go (upstream pt-10.3) and TestValidateTransform
(upstream pt-10.6).

Each case is named after the upstream test and case. Upstream tests call the
per-type resolvers (ResolveMap, ...) and expect their bare errors; crossfn
exposes the list-level :func:`transforms.resolve`, whose message adds the upstream pt-6.1
chain, so each table says which prefix its errors carry.

Go-only inputs have Python analogues (upstream pt-10): Go ``int`` is
:class:`values.GoInt`; a ``func()`` that JSON cannot encode is NaN
(``json: unsupported value: NaN``); Go's ``[]int{64}`` is a list, whose Go type
here is ``[]interface {}``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from crossfn.functions.patch_and_transform import transforms
from crossfn.gocompat import values
from crossfn.gocompat.values import GoInt

NAN = math.nan
SHA512_1234 = (
    "d404559f602eab6fd602ac7680dacbfaadd13630335e951f097af3900e9de176"
    "b6db28512f2e000b9d04fba5133e8b1c6e8df59db3a8ab9d60be4b97cc9e81db"
)
SHA512_CROSSPLANE = (
    "0016037c62c92b5cc4a282fbe30cdd228fa001624b26fd31baa9fcb76a9c60d4"
    "8e2e7a16cf8729a2d9cba3d23e1d846e7721a5381b9a92dd813178e9a6686205"
)


def case(
    name: str, reason: str, t: dict[str, Any], value: Any, *, want: Any = None, err: str | None = None
) -> Any:
    """One table row: resolving transform ``t`` on ``value`` gives ``want`` or fails with ``err``."""
    return pytest.param(t, value, want, err, reason, id=name)


def check(prefix: str, t: dict[str, Any], value: Any, *, want: Any, err: str | None, reason: str) -> None:
    """Resolve one transform and compare its result (type-strict) or its whole error chain."""
    if err is not None:
        with pytest.raises(transforms.TransformError) as raised:
            transforms.resolve([t], value)
        assert str(raised.value) == f"transform at index 0 returned error: {prefix}{err}", reason
        assert raised.value.index == 0, reason
        return
    got = transforms.resolve([t], value)
    assert values.strict_equal(got, want), f"{reason}: got {got!r} ({values.type_name(got)}), want {want!r}"


def mapt(pairs: dict[str, Any]) -> dict[str, Any]:
    return {"type": "map", "map": pairs}


MAP_CASES = [
    case(
        "TestMapResolve/NonStringInput",
        "map keys are strings; a Go int input is refused with its type name",
        mapt({}),
        GoInt(5),
        err="type int is not supported for map transform",
    ),
    case(
        "TestMapResolve/KeyNotFound",
        "a missing key is an error naming the key",
        mapt({}),
        "ola",
        err="key ola is not found in map",
    ),
    case(
        "TestMapResolve/SuccessString",
        "a string value comes back as is",
        mapt({"ola": "voila"}),
        "ola",
        want="voila",
    ),
    case(
        "TestMapResolve/SuccessNumber",
        "numbers in map values decode as float64",
        mapt({"ola": 1}),
        "ola",
        want=1.0,
    ),
    case(
        "TestMapResolve/SuccessBoolean", "booleans decode as booleans", mapt({"ola": True}), "ola", want=True
    ),
    case(
        "TestMapResolve/SuccessObject",
        "objects decode as objects",
        mapt({"ola": {"foo": "bar"}}),
        "ola",
        want={"foo": "bar"},
    ),
    case(
        "TestMapResolve/SuccessSlice",
        "lists decode as lists",
        mapt({"ola": ["foo", "bar"]}),
        "ola",
        want=["foo", "bar"],
    ),
    case(
        "MapFloatInputFromRequest",
        "a request number is float64, so it is refused (upstream pt-6.2)",
        mapt({"1": "x"}),
        1.0,
        err="type float64 is not supported for map transform",
    ),
    case(
        "MapNullValue",
        "a null value is empty raw JSON in Go and fails to decode (upstream pt-6.2)",
        mapt({"k": None}),
        "k",
        err="value for key k is not valid JSON: unexpected end of JSON input",
    ),
]


@pytest.mark.parametrize(("t", "value", "want", "err", "reason"), MAP_CASES)
def test_map_resolve(t: dict[str, Any], value: Any, want: Any, err: str | None, reason: str) -> None:
    check("map transform could not resolve: ", t, value, want=want, err=err, reason=reason)


def matcht(patterns: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"type": "match", "match": {"patterns": patterns, **extra}}


def literal(lit: str | None, result: Any = "bar") -> dict[str, Any]:
    p: dict[str, Any] = {"type": "literal", "result": result}
    if lit is not None:
        p["literal"] = lit
    return p


MATCH_CASES = [
    case(
        "TestMatchResolve/ErrNonStringInput",
        "literal patterns only match strings",
        matcht([literal("5")]),
        GoInt(5),
        err="cannot match pattern at index 0: unsupported input type 'int'",
    ),
    case(
        "TestMatchResolve/ErrFallbackValueAndToInput",
        "fallbackValue and fallbackTo Input exclude each other",
        matcht([], fallbackValue="foo", fallbackTo="Input"),
        "",
        err="cannot set both a fallback value and the fallback to input flag",
    ),
    case(
        "TestMatchResolve/NoPatternsFallback",
        "nothing matched: the fallback value",
        matcht([], fallbackValue="bar"),
        "",
        want="bar",
    ),
    case(
        "TestMatchResolve/NoPatternsFallbackToValueExplicit",
        "fallbackTo Value is the default",
        matcht([], fallbackValue="bar", fallbackTo="Value"),
        "",
        want="bar",
    ),
    case(
        "TestMatchResolve/NoPatternsFallbackNil",
        "a null fallback value gives null",
        matcht([], fallbackValue=None),
        "",
        want=None,
    ),
    case(
        "TestMatchResolve/NoPatternsFallbackToInput",
        "fallbackTo Input returns the input",
        matcht([], fallbackTo="Input"),
        "foo",
        want="foo",
    ),
    case(
        "TestMatchResolve/NoPatternsFallbackNilToInput",
        "a null fallback value does not count as set",
        matcht([], fallbackValue=None, fallbackTo="Input"),
        "foo",
        want="foo",
    ),
    case(
        "TestMatchResolve/MatchLiteral",
        "a literal matches by equality",
        matcht([literal("foo")]),
        "foo",
        want="bar",
    ),
    case(
        "TestMatchResolve/MatchLiteralFirst",
        "the first matching pattern wins",
        matcht([literal("foo"), literal("foo", "not this")]),
        "foo",
        want="bar",
    ),
    case(
        "TestMatchResolve/MatchLiteralWithResultStruct",
        "results can be objects",
        matcht([literal("foo", {"Hello": "World"})]),
        "foo",
        want={"Hello": "World"},
    ),
    case(
        "TestMatchResolve/MatchLiteralWithResultSlice",
        "results can be lists",
        matcht([literal("foo", ["Hello", "World"])]),
        "foo",
        want=["Hello", "World"],
    ),
    case(
        "TestMatchResolve/MatchLiteralWithResultNumber",
        "numbers in results decode as float64",
        matcht([literal("foo", 5)]),
        "foo",
        want=5.0,
    ),
    case(
        "TestMatchResolve/MatchLiteralWithResultBool",
        "results can be booleans",
        matcht([literal("foo", True)]),
        "foo",
        want=True,
    ),
    case(
        "TestMatchResolve/MatchLiteralWithResultNil",
        "a null result is null, not an error",
        matcht([literal("foo", None)]),
        "foo",
        want=None,
    ),
    case(
        "TestMatchResolve/MatchRegexp",
        "a regexp matches anywhere in the input",
        matcht([{"type": "regexp", "regexp": "^foo.*$", "result": "Hello World"}]),
        "foobar",
        want="Hello World",
    ),
    case(
        "TestMatchResolve/ErrMissingRegexp",
        "a regexp pattern needs its regexp (checked before the input)",
        matcht([{"type": "regexp"}]),
        None,
        err="cannot match pattern at index 0: regexp is required by type regexp",
    ),
    case(
        "TestMatchResolve/ErrInvalidRegexp",
        "a bad regexp reports Go's parse error",
        matcht([{"type": "regexp", "regexp": "?="}]),
        None,
        err="cannot match pattern at index 0: cannot compile regexp: error parsing regexp: "
        "missing argument to repetition operator: `?`",
    ),
    case(
        "TestMatchResolve/ErrMissingLiteral",
        "a literal pattern needs its literal",
        matcht([{"type": "literal"}]),
        None,
        err="cannot match pattern at index 0: literal is required by type literal",
    ),
    case(
        "MatchRegexpNullInput",
        "a null input to a regexp pattern is named 'null' (upstream pt-6.3)",
        matcht([{"type": "regexp", "regexp": "x"}]),
        None,
        err="cannot match pattern at index 0: unsupported input type 'null'",
    ),
    case(
        "MatchLiteralNullInput",
        "a null input to a literal pattern is named '<nil>' (upstream pt-6.3)",
        matcht([literal("x")]),
        None,
        err="cannot match pattern at index 0: unsupported input type '<nil>'",
    ),
    case(
        "MatchEmptyPatternType",
        "an empty pattern type passes validation but fails at runtime (upstream pt-9 item 3)",
        matcht([{"type": "", "literal": "x"}]),
        "x",
        err="cannot match pattern at index 0: unsupported pattern type ''",
    ),
    case(
        "MatchFallbackToOtherString",
        "any fallbackTo other than Input means Value (upstream pt-6.3)",
        matcht([], fallbackValue=1, fallbackTo="input"),
        "x",
        want=1.0,
    ),
]


@pytest.mark.parametrize(("t", "value", "want", "err", "reason"), MATCH_CASES)
def test_match_resolve(t: dict[str, Any], value: Any, want: Any, err: str | None, reason: str) -> None:
    check("match transform could not resolve: ", t, value, want=want, err=err, reason=reason)


def matht(mtype: str | None, **fields: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = dict(fields)
    if mtype is not None:
        cfg["type"] = mtype
    return {"type": "math", "math": cfg}


MATH_CASES = [
    case(
        "TestMathResolve/InvalidType",
        "an unknown math type is an Invalid field error on type",
        matht("bad", multiply=2),
        GoInt(25),
        err='type: Invalid value: "bad": unknown math transform type',
    ),
    case(
        "TestMathResolve/NonNumberInput",
        "math needs a number",
        matht("Multiply", multiply=2),
        "ola",
        err="input is required to be a number for math transformer, got string",
    ),
    case(
        "TestMathResolve/MultiplyNoConfig",
        "Multiply needs multiply: a Required field error",
        matht("Multiply"),
        GoInt(25),
        err="multiply: Required value: must specify a value if a multiply math transform is specified",
    ),
    case(
        "TestMathResolve/MultiplySuccess",
        "int times int64 gives int64",
        matht("Multiply", multiply=2),
        GoInt(3),
        want=6,
    ),
    case(
        "TestMathResolve/MultiplySuccessInt64", "int64 stays int64", matht("Multiply", multiply=2), 3, want=6
    ),
    case(
        "TestMathResolve/ClampMinSuccess",
        "below the minimum gives the int64 minimum",
        matht("ClampMin", clampMin=2),
        GoInt(1),
        want=2,
    ),
    case(
        "TestMathResolve/ClampMinSuccessNoChangeInt",
        "unchanged input keeps its Go int type",
        matht("ClampMin", clampMin=2),
        GoInt(3),
        want=GoInt(3),
    ),
    case(
        "TestMathResolve/ClampMinSuccessNoChangeInt64",
        "unchanged int64 stays int64",
        matht("ClampMin", clampMin=2),
        3,
        want=3,
    ),
    case(
        "TestMathResolve/ClampMinSuccessInt64",
        "int64 below the minimum",
        matht("ClampMin", clampMin=2),
        1,
        want=2,
    ),
    case(
        "TestMathResolve/ClampMinNoConfig",
        "ClampMin needs clampMin",
        matht("ClampMin"),
        GoInt(25),
        err="clampMin: Required value: must specify a value if a clamp min math transform is specified",
    ),
    case(
        "TestMathResolve/ClampMaxSuccess",
        "above the maximum gives the int64 maximum",
        matht("ClampMax", clampMax=2),
        GoInt(3),
        want=2,
    ),
    case(
        "TestMathResolve/ClampMaxSuccessNoChange",
        "below the maximum is unchanged",
        matht("ClampMax", clampMax=2),
        1,
        want=1,
    ),
    case(
        "TestMathResolve/ClampMaxSuccessInt64",
        "int64 above the maximum",
        matht("ClampMax", clampMax=2),
        3,
        want=2,
    ),
    case(
        "TestMathResolve/ClampMaxNoConfig",
        "ClampMax needs clampMax",
        matht("ClampMax"),
        GoInt(25),
        err="clampMax: Required value: must specify a value if a clamp max math transform is specified",
    ),
    case(
        "MathMultiplyFloat",
        "float64 input multiplies as float64 (upstream pt-6.4)",
        matht("Multiply", multiply=3),
        2.5,
        want=7.5,
    ),
    case(
        "MathMultiplyWraps",
        "int64 multiplication wraps around as in Go (upstream pt-6.4)",
        matht("Multiply", multiply=2),
        (1 << 62),
        want=-(1 << 63),
    ),
    case(
        "MathClampMaxTruncates",
        "clamp compares the truncated value and returns the float (upstream pt-9 item 5)",
        matht("ClampMax", clampMax=1),
        1.9,
        want=1.9,
    ),
    case(
        "MathClampMinNegativeFraction",
        "-0.5 truncates to 0, which is not below 0 (upstream pt-6.4)",
        matht("ClampMin", clampMin=0),
        -0.5,
        want=-0.5,
    ),
    case(
        "MathMissingType",
        "the math type is required at runtime despite the CRD default",
        matht(None, multiply=2),
        1,
        err="type: Required value: math transform type is required",
    ),
    case(
        "MathNullInput",
        "null is not a number",
        matht("Multiply", multiply=2),
        None,
        err="input is required to be a number for math transformer, got <nil>",
    ),
    case(
        "MathBoolInput",
        "a bool is not a number, though Python's bool is an int",
        matht("Multiply", multiply=2),
        True,
        err="input is required to be a number for math transformer, got bool",
    ),
]


@pytest.mark.parametrize(("t", "value", "want", "err", "reason"), MATH_CASES)
def test_math_resolve(t: dict[str, Any], value: Any, want: Any, err: str | None, reason: str) -> None:
    check("math transform could not resolve: ", t, value, want=want, err=err, reason=reason)


def stringt(stype: str, **fields: Any) -> dict[str, Any]:
    return {"type": "string", "string": {"type": stype, **fields}}


def conv(kind: str) -> dict[str, Any]:
    return stringt("Convert", convert=kind)


STRING_CASES = [
    case(
        "TestStringResolve/NotSupportedType",
        "unknown string types are refused",
        stringt("Something"),
        "value",
        err="type Something is not supported for string transform type",
    ),
    case(
        "TestStringResolve/FmtFailed",
        "Format needs fmt",
        stringt("Format"),
        "value",
        err="string transform of type Format fmt is not set",
    ),
    case(
        "TestStringResolve/FmtString",
        "%s formats a string",
        stringt("Format", fmt="verycool%s"),
        "thing",
        want="verycoolthing",
    ),
    case(
        "TestStringResolve/FmtInteger",
        "%d formats a Go int",
        stringt("Format", fmt="the largest %d"),
        GoInt(8),
        want="the largest 8",
    ),
    case(
        "TestStringResolve/ConvertNotSet",
        "Convert needs convert",
        stringt("Convert"),
        "value",
        err="string transform of type Convert convert is not set",
    ),
    case(
        "TestStringResolve/ConvertTypFailed",
        "unknown conversions are refused",
        conv("Something"),
        "value",
        err="type Something is not supported for string convert",
    ),
    case("TestStringResolve/ConvertToUpper", "upper case", conv("ToUpper"), "crossplane", want="CROSSPLANE"),
    case("TestStringResolve/ConvertToLower", "lower case", conv("ToLower"), "CrossPlane", want="crossplane"),
    case(
        "TestStringResolve/ConvertToBase64",
        "padded standard base64",
        conv("ToBase64"),
        "CrossPlane",
        want="Q3Jvc3NQbGFuZQ==",
    ),
    case(
        "TestStringResolve/ConvertFromBase64",
        "decodes standard base64",
        conv("FromBase64"),
        "Q3Jvc3NQbGFuZQ==",
        want="CrossPlane",
    ),
    case(
        "TestStringResolve/ConvertFromBase64Error",
        "Go names the first bad byte",
        conv("FromBase64"),
        "ThisStringIsNotBase64",
        err="string is not valid base64: illegal base64 data at input byte 20",
    ),
    case(
        "TestStringResolve/ConvertToSha1",
        "hex SHA-1 of the string",
        conv("ToSha1"),
        "Crossplane",
        want="3b683dc8ff44122b331a5e4f253dd69d90726d75",
    ),
    case(
        "TestStringResolve/ConvertToSha1Error",
        "a value JSON cannot encode cannot be hashed",
        conv("ToSha1"),
        NAN,
        err="cannot generate hash: cannot marshal to JSON: json: unsupported value: NaN",
    ),
    case(
        "TestStringResolve/ConvertToSha256",
        "hex SHA-256 of the string",
        conv("ToSha256"),
        "Crossplane",
        want="19c8a7c24ed0067f606815b59e5b82d92935ff69deed04171457a55018e31224",
    ),
    case(
        "TestStringResolve/ConvertToSha256Error",
        "a value JSON cannot encode cannot be hashed",
        conv("ToSha256"),
        {"a": NAN},
        err="cannot generate hash: cannot marshal to JSON: json: unsupported value: NaN",
    ),
    case(
        "TestStringResolve/ConvertToSha512",
        "hex SHA-512 of the string",
        conv("ToSha512"),
        "Crossplane",
        want=SHA512_CROSSPLANE,
    ),
    case(
        "TestStringResolve/ConvertToSha512Int",
        "non-strings hash their JSON",
        conv("ToSha512"),
        GoInt(1234),
        want=SHA512_1234,
    ),
    case(
        "TestStringResolve/ConvertToSha512IntStr",
        "the string 1234 has the same digest as the int",
        conv("ToSha512"),
        "1234",
        want=SHA512_1234,
    ),
    case(
        "TestStringResolve/ConvertToSha512Error",
        "a value JSON cannot encode cannot be hashed",
        conv("ToSha512"),
        [NAN],
        err="cannot generate hash: cannot marshal to JSON: json: unsupported value: NaN",
    ),
    case(
        "TestStringResolve/ConvertToAdler32",
        "Adler-32 as unsigned decimal",
        conv("ToAdler32"),
        "Crossplane",
        want="373097499",
    ),
    case(
        "TestStringResolve/ConvertToAdler32Unicode",
        "Adler-32 of the UTF-8 bytes",
        conv("ToAdler32"),
        "⡌⠁⠧⠑ ⠼⠁⠒  ⡍⠜⠇⠑⠹⠰⠎ ⡣⠕⠌",
        want="4110427190",
    ),
    case(
        "TestStringResolve/ConvertToAdler32Error",
        "a value JSON cannot encode has no checksum",
        conv("ToAdler32"),
        NAN,
        err="unable to generate Adler checksum: cannot marshal to JSON: json: unsupported value: NaN",
    ),
    case(
        "TestStringResolve/TrimPrefix",
        "removes the prefix",
        stringt("TrimPrefix", trim="https://"),
        "https://crossplane.io",
        want="crossplane.io",
    ),
    case(
        "TestStringResolve/TrimSuffix",
        "removes the suffix",
        stringt("TrimSuffix", trim="-test"),
        "my-string-test",
        want="my-string",
    ),
    case(
        "TestStringResolve/TrimPrefixWithoutMatch",
        "no prefix, no change",
        stringt("TrimPrefix", trim="https://"),
        "crossplane.io",
        want="crossplane.io",
    ),
    case(
        "TestStringResolve/TrimSuffixWithoutMatch",
        "no suffix, no change",
        stringt("TrimSuffix", trim="-test"),
        "my-string",
        want="my-string",
    ),
    case(
        "TestStringResolve/RegexpNotCompiling",
        "Go's parse error for a bad regexp",
        stringt("Regexp", regexp={"match": "[a-z"}),
        "my-1-string",
        err="could not compile regexp: error parsing regexp: missing closing ]: `[a-z`",
    ),
    case(
        "TestStringResolve/RegexpSimpleMatch",
        "group 0 is the whole match",
        stringt("Regexp", regexp={"match": "[0-9]"}),
        "my-1-string",
        want="1",
    ),
    case(
        "TestStringResolve/RegexpCaptureGroup",
        "a numbered group",
        stringt("Regexp", regexp={"match": "my-([0-9]+)-string", "group": 1}),
        "my-1-string",
        want="1",
    ),
    case(
        "TestStringResolve/RegexpNoSuchCaptureGroup",
        "a group past the last is no match",
        stringt("Regexp", regexp={"match": "my-([0-9]+)-string", "group": 2}),
        "my-1-string",
        err='regexp "my-([0-9]+)-string" had no matches for group 2',
    ),
    case(
        "TestStringResolve/ConvertToJSONSuccess",
        "ToJson marshals the value",
        conv("ToJson"),
        {"foo": "bar"},
        want='{"foo":"bar"}',
    ),
    case(
        "TestStringResolve/ConvertToJSONFail",
        "ToJson of an un-encodable value",
        conv("ToJson"),
        {"foo": NAN},
        err="cannot marshal to JSON: json: unsupported value: NaN",
    ),
    case(
        "TestStringResolve/JoinString",
        "joins with the separator",
        stringt("Join", join={"separator": ","}),
        ["cross", "plane"],
        want="cross,plane",
    ),
    case(
        "TestStringResolve/JoinStringEmptySeparator",
        "an empty separator concatenates",
        stringt("Join", join={"separator": ""}),
        ["cross", "plane"],
        want="crossplane",
    ),
    case(
        "TestStringResolve/JoinStringDifferentTypes",
        "elements print with %v",
        stringt("Join", join={"separator": "-"}),
        ["cross", "plane", GoInt(42)],
        want="cross-plane-42",
    ),
    case(
        "TestStringResolve/ReplaceFound",
        "replaces every occurrence",
        stringt("Replace", replace={"search": "Cr", "replace": "B"}),
        "Crossplane",
        want="Bossplane",
    ),
    case(
        "TestStringResolve/ReplaceNotFound",
        "no occurrence, no change",
        stringt("Replace", replace={"search": "xx", "replace": "zz"}),
        "Crossplane",
        want="Crossplane",
    ),
    case(
        "TestStringResolve/ReplaceRemove",
        "an empty replacement deletes",
        stringt("Replace", replace={"search": "ss", "replace": ""}),
        "Crossplane",
        want="Croplane",
    ),
    case(
        "StringFormatFloatWithD",
        "%d on a request number (float64) is Go's bad-verb text (upstream pt-9 item 1)",
        stringt("Format", fmt="%d"),
        10.0,
        want="%!d(float64=10)",
    ),
    case(
        "StringFormatMissingArg",
        "a second verb has no argument",
        stringt("Format", fmt="%s-%s"),
        "x",
        want="x-%!s(MISSING)",
    ),
    case(
        "StringConvertFloatUsesShortestG", "S() of 1e6 is Go's %v: 1e+06", conv("ToUpper"), 1e6, want="1E+06"
    ),
    case(
        "StringUpperSharpS",
        "Go keeps ß in upper case (simple case mapping)",
        conv("ToUpper"),
        "straße",
        want="STRAßE",
    ),
    case("StringLowerSigma", "Go has no final-sigma rule", conv("ToLower"), "ΣΑΣ", want="σασ"),
    case(
        "StringJoinMultiByteSeparator",
        "Go drops one byte, leaving a partial separator (upstream pt-9 item 4)",
        stringt("Join", join={"separator": ", "}),
        ["a", "b"],
        want="a, b,",
    ),
    case(
        "StringJoinArrowSeparator",
        "the partial separator is invalid UTF-8, kept as escaped bytes (upstream pt-6.5)",
        stringt("Join", join={"separator": "→"}),
        ["a", "b"],
        want="a→b\udce2\udc86",
    ),
    case(
        "StringJoinElements",
        "null and objects print as Go prints them",
        stringt("Join", join={"separator": "|"}),
        [None, {"k": 1.0}, True],
        want="<nil>|map[k:1]|true",
    ),
    case(
        "StringJoinEmpty",
        "an empty list joins to nothing",
        stringt("Join", join={"separator": "-"}),
        [],
        want="",
    ),
    case(
        "StringJoinNotAList",
        "Join needs a list",
        stringt("Join", join={"separator": "-"}),
        "a",
        err="could not parse input array",
    ),
    case(
        "StringRegexpNegativeGroup",
        "Go panics on a negative group; crossfn reports no match (upstream pt-9 item 8, divergence)",
        stringt("Regexp", regexp={"match": "a", "group": -1}),
        "a",
        err='regexp "a" had no matches for group -1',
    ),
    case(
        "StringRegexpNoMatch",
        "no match at all",
        stringt("Regexp", regexp={"match": "z"}),
        "abc",
        err='regexp "z" had no matches for group 0',
    ),
    case(
        "StringRegexpUnmatchedGroup",
        "a group that took no part in the match is empty",
        stringt("Regexp", regexp={"match": "(a)|(b)", "group": 1}),
        "b",
        want="",
    ),
    case(
        "StringFromBase64Newlines",
        "\\r and \\n are skipped",
        conv("FromBase64"),
        "Q3Jv\nc3NQ\r\nbGFuZQ==",
        want="CrossPlane",
    ),
    case(
        "StringToJsonString",
        "a string is JSON-quoted with HTML escapes",
        conv("ToJson"),
        "<a&b>",
        want='"\\u003ca\\u0026b\\u003e"',
    ),
    case(
        "StringTrimNumber", "trim works on %v of a number", stringt("TrimSuffix", trim="+06"), 1e6, want="1e"
    ),
]


@pytest.mark.parametrize(("t", "value", "want", "err", "reason"), STRING_CASES)
def test_string_resolve(t: dict[str, Any], value: Any, want: Any, err: str | None, reason: str) -> None:
    check("string transform could not resolve: ", t, value, want=want, err=err, reason=reason)


def convt(to: str, fmt: str | None = None) -> dict[str, Any]:
    cfg: dict[str, Any] = {"toType": to}
    if fmt is not None:
        cfg["format"] = fmt
    return {"type": "convert", "convert": cfg}


QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

CONVERT_CASES = [
    case("TestConvertResolve/StringToBool", "ParseBool", convt("bool"), "true", want=True),
    case("TestConvertResolve/StringToFloat64", "ParseFloat", convt("float64"), "1000", want=1000.0),
    case(
        "TestConvertResolve/StringToQuantityFloat64",
        "1000m is 1",
        convt("float64", "quantity"),
        "1000m",
        want=1.0,
    ),
    case(
        "TestConvertResolve/StringToQuantityFloat64InvalidFormat",
        "Kubernetes' format error",
        convt("float64", "quantity"),
        "1000 blabla",
        err=QUANTITY_ERROR,
    ),
    case("TestConvertResolve/SameTypeNoOp", "same type: input unchanged", convt("bool"), True, want=True),
    case("TestConvertResolve/IntAliasToInt64", "toType int means int64", convt("int"), 1, want=1),
    case(
        "TestConvertResolve/StringToObject",
        "JSON object",
        convt("object", "json"),
        '{"foo":"bar"}',
        want={"foo": "bar"},
    ),
    case(
        "TestConvertResolve/StringToList",
        "JSON array",
        convt("array", "json"),
        '["foo", "bar", "baz"]',
        want=["foo", "bar", "baz"],
    ),
    case(
        "TestConvertResolve/InputTypeNotSupported",
        "lists are never converted (Go's []int{64} is a list here)",
        convt("string"),
        [GoInt(64)],
        err="invalid input type []interface {}",
    ),
    case(
        "TestConvertResolve/ConversionPairFormatNotSupported",
        "int to string has no quantity format",
        convt("string", "quantity"),
        GoInt(100),
        err="conversion from int to string is not supported with format quantity",
    ),
    case(
        "TestConvertResolve/ConversionPairNotSupported",
        "[]int is not a toType",
        convt("[]int"),
        "[64]",
        err='toType: Invalid value: "[]int": invalid type',
    ),
    case(
        "TestConvertResolve/ConversionPairSupportedFloat64Int64",
        "float64 to int64 truncates",
        convt("int64"),
        1.1,
        want=1,
    ),
    case(
        "ConvertIntToBoolOnlyOne",
        "int64 to bool is x == 1 (upstream pt-9 item 6)",
        convt("bool"),
        2,
        want=False,
    ),
    case(
        "ConvertFloatToString",
        "shortest digits, never exponent form (upstream pt-6.6)",
        convt("string"),
        1e21,
        want="1000000000000000000000",
    ),
    case(
        "ConvertSmallFloatToString",
        "no exponent for small numbers either",
        convt("string"),
        1e-7,
        want="0.0000001",
    ),
    case("ConvertNegativeFloatToInt", "truncation toward zero", convt("int64"), -1.9, want=-1),
    case(
        "ConvertStringToInt64Bad",
        "ParseInt's error text",
        convt("int64"),
        "abc",
        err='strconv.ParseInt: parsing "abc": invalid syntax',
    ),
    case(
        "ConvertStringToInt64Range",
        "ParseInt's range error",
        convt("int64"),
        "9223372036854775808",
        err='strconv.ParseInt: parsing "9223372036854775808": value out of range',
    ),
    case(
        "ConvertStringToBoolBad",
        "ParseBool's error text",
        convt("bool"),
        "yes",
        err='strconv.ParseBool: parsing "yes": invalid syntax',
    ),
    case(
        "ConvertStringToFloatUnderscore",
        "Go accepts _ between digits",
        convt("float64"),
        "1_000",
        want=1000.0,
    ),
    case(
        "ConvertStringToFloatSpace",
        "no spaces",
        convt("float64"),
        " 1",
        err='strconv.ParseFloat: parsing " 1": invalid syntax',
    ),
    case(
        "ConvertNullInput", "null is never converted", convt("string"), None, err="invalid input type <nil>"
    ),
    case(
        "ConvertObjectInput",
        "objects are never converted",
        convt("string"),
        {},
        err="invalid input type map[string]interface {}",
    ),
    case(
        "ConvertStringToObjectMismatch",
        "Go's type error for a JSON array into an object",
        convt("object", "json"),
        "[1]",
        err="json: cannot unmarshal array into Go value of type map[string]interface {}",
    ),
    case("ConvertStringToObjectNull", "JSON null is a nil map", convt("object", "json"), "null", want=None),
    case(
        "ConvertStringToObjectSyntax",
        "Go's syntax error",
        convt("object", "json"),
        "{",
        err="unexpected end of JSON input",
    ),
    case(
        "ConvertSameTypeIgnoresFormat",
        "same type ignores even an invalid-for-pair format",
        convt("string", "json"),
        "x",
        want="x",
    ),
    case(
        "ConvertBoolToObject",
        "no such pair",
        convt("object"),
        True,
        err="conversion from bool to object is not supported with format none",
    ),
    case(
        "ConvertUnknownFormat",
        "format is validated at runtime too",
        convt("string", "wrong"),
        1,
        err='format: Invalid value: "wrong": invalid format',
    ),
]


@pytest.mark.parametrize(("t", "value", "want", "err", "reason"), CONVERT_CASES)
def test_convert_resolve(t: dict[str, Any], value: Any, want: Any, err: str | None, reason: str) -> None:
    check("convert transform could not resolve: ", t, value, want=want, err=err, reason=reason)


# TestConvertTransformGetConversionFunc checks only whether a conversion exists
# for a (from, toType, format); crossfn checks it by converting a sample input.
SAMPLES: dict[str, Any] = {"int": GoInt(1), "int64": 1, "float64": 1.0, "bool": True, "string": "{}"}

CONVERSION_FUNC_CASES = [
    pytest.param(
        "string",
        None,
        "int",
        None,
        "int to string exists",
        id="TestConvertTransformGetConversionFunc/IntToString",
    ),
    pytest.param("int", None, "int", None, "same type", id="TestConvertTransformGetConversionFunc/IntToInt"),
    pytest.param(
        "int", None, "int64", None, "int64 is int", id="TestConvertTransformGetConversionFunc/IntToInt64"
    ),
    pytest.param(
        "int64", None, "int", None, "int is int64", id="TestConvertTransformGetConversionFunc/Int64ToInt"
    ),
    pytest.param(
        "int",
        None,
        "float64",
        None,
        "float64 to int64",
        id="TestConvertTransformGetConversionFunc/IntToFloat",
    ),
    pytest.param(
        "int", None, "bool", None, "bool to int64", id="TestConvertTransformGetConversionFunc/IntToBool"
    ),
    pytest.param(
        "object",
        "json",
        "string",
        None,
        "JSON object",
        id="TestConvertTransformGetConversionFunc/JSONStringToObject",
    ),
    pytest.param(
        "array",
        "json",
        "string",
        None,
        "JSON array",
        id="TestConvertTransformGetConversionFunc/JSONStringToArray",
    ),
    pytest.param(
        "object",
        None,
        "string",
        "conversion from string to object is not supported with format none",
        "objects need the json format",
        id="TestConvertTransformGetConversionFunc/StringToObjectMissingFormat",
    ),
    pytest.param(
        "int",
        "wrong",
        "string",
        'format: Invalid value: "wrong": invalid format',
        "GetConversionFunc alone says 'conversion from string to int64 is not supported with format wrong'; "
        "resolve validates the format first, as ResolveConvert does, so that text is unreachable",
        id="TestConvertTransformGetConversionFunc/StringToIntInvalidFormat",
    ),
    pytest.param(
        "int",
        "wrong",
        "int",
        'format: Invalid value: "wrong": invalid format',
        "GetConversionFunc alone ignores the format for a same-type no-op; resolve validates it first, "
        "as ResolveConvert does",
        id="TestConvertTransformGetConversionFunc/IntToIntInvalidFormat",
    ),
]


@pytest.mark.parametrize(("to", "fmt", "source", "err", "reason"), CONVERSION_FUNC_CASES)
def test_conversion_func(to: str, fmt: str | None, source: str, err: str | None, reason: str) -> None:
    t = convt(to, fmt)
    if source == "string" and to == "array":
        value: Any = "[]"
    else:
        value = SAMPLES[source]
    if err is None:
        transforms.resolve([t], value)
        return
    with pytest.raises(transforms.TransformError) as raised:
        transforms.resolve([t], value)
    assert (
        str(raised.value)
        == f"transform at index 0 returned error: convert transform could not resolve: {err}"
    ), reason


PIPELINE_CASES = [
    pytest.param(
        [convt("float64"), {"type": "math", "math": {"type": "Multiply", "multiply": 2}}],
        2,
        4.0,
        "int64 2 to float64, times 2: float64 4 (upstream pt-6.1)",
        id="TestResolve/ConvertFloat64ThenMultiply",
    ),
    pytest.param(
        [convt("int64"), {"type": "math", "math": {"type": "Multiply", "multiply": 2}}],
        2,
        4,
        "int64 2 to int64, times 2: int64 4 (upstream pt-6.1)",
        id="TestResolve/ConvertInt64ThenMultiply",
    ),
    pytest.param([], "x", "x", "no transforms, value unchanged", id="EmptyList"),
]


@pytest.mark.parametrize(("ts", "value", "want", "reason"), PIPELINE_CASES)
def test_resolve_pipeline(ts: list[dict[str, Any]], value: Any, want: Any, reason: str) -> None:
    got = transforms.resolve(ts, value)
    assert values.strict_equal(got, want), reason


def test_resolve_names_failing_index() -> None:
    """The chain names the failing transform's index and type (upstream pt-6.1 example)."""
    ts = [{"type": "string", "string": {"type": "Format", "fmt": "%s"}}, mapt({"US": "us-east-1"})]
    with pytest.raises(transforms.TransformError) as raised:
        transforms.resolve(ts, "US2")
    assert str(raised.value) == (
        "transform at index 1 returned error: map transform could not resolve: key US2 is not found in map"
    )
    assert raised.value.index == 1


RUNTIME_CONFIG_CASES = [
    pytest.param(
        {"type": "foo"},
        "transform type foo is not supported",
        "unknown type at runtime (upstream pt-6.1)",
        id="UnknownTypeAtRuntime",
    ),
    pytest.param(
        {"type": "map"},
        "given transform type map requires configuration",
        "missing config at runtime (upstream pt-6.1)",
        id="MissingConfigAtRuntime",
    ),
]


@pytest.mark.parametrize(("t", "err", "reason"), RUNTIME_CONFIG_CASES)
def test_resolve_unvalidated(t: dict[str, Any], err: str, reason: str) -> None:
    with pytest.raises(transforms.TransformError) as raised:
        transforms.resolve([t], "x")
    assert str(raised.value) == f"transform at index 0 returned error: {err}", reason


def vcase(name: str, t: dict[str, Any], want: str | None, reason: str) -> Any:
    return pytest.param(t, want, reason, id=name)


VALIDATE_CASES = [
    vcase(
        "TestValidateTransform/ValidMathMultiply",
        {"type": "math", "math": {"type": "Multiply", "multiply": 2}},
        None,
        "a complete multiply",
    ),
    vcase(
        "TestValidateTransform/ValidMathClampMin",
        {"type": "math", "math": {"type": "ClampMin", "clampMin": 10}},
        None,
        "a complete clamp",
    ),
    vcase(
        "TestValidateTransform/InvalidMathWrongSpec",
        {"type": "math", "math": {"type": "Multiply", "clampMin": 10}},
        "math.multiply: Required value: must specify a value if a multiply math transform is specified",
        "the value field must match the type",
    ),
    vcase(
        "TestValidateTransform/InvalidMathNotDefinedAtAll",
        {"type": "math"},
        "math: Required value: given transform type math requires configuration",
        "math needs its config",
    ),
    vcase("TestValidateTransform/ValidMap", mapt({"foo": "bar"}), None, "one pair is enough"),
    vcase(
        "TestValidateTransform/InvalidMapNoMap",
        {"type": "map"},
        "map: Required value: given transform type map requires configuration",
        "map needs its config",
    ),
    vcase(
        "TestValidateTransform/InvalidMapNoPairs",
        mapt({}),
        "map.pairs: Required value: at least one pair must be specified if a map transform is specified",
        "an empty map has no pairs",
    ),
    vcase(
        "TestValidateTransform/InvalidMatchNoMatch",
        {"type": "match"},
        "match: Required value: given transform type match requires configuration",
        "match needs its config",
    ),
    vcase(
        "TestValidateTransform/InvalidMatchEmptyTransform",
        {"type": "match", "match": {}},
        "match.patterns: Required value: at least one pattern must be specified if a match transform is specified",
        "match needs patterns",
    ),
    vcase(
        "TestValidateTransform/ValidMatchTransformRegexp",
        matcht([{"type": "regexp", "regexp": ".*"}]),
        None,
        "a compiling regexp",
    ),
    vcase(
        "TestValidateTransform/InvalidMatchTransformRegexp",
        matcht([{"type": "regexp", "regexp": "?"}]),
        'match.patterns[0].regexp: Invalid value: "?": invalid regexp',
        "the regexp must compile",
    ),
    vcase(
        "TestValidateTransform/ValidMatchTransformString",
        matcht([{"type": "literal", "literal": "foo"}, {"literal": "bar"}]),
        None,
        "an empty pattern type validates as literal (upstream pt-9 item 3)",
    ),
    vcase(
        "TestValidateTransform/InvalidStringNoString",
        {"type": "string"},
        "string: Required value: given transform type string requires configuration",
        "string needs its config",
    ),
    vcase("TestValidateTransform/ValidString", stringt("Format", fmt="foo"), None, "a format string"),
    vcase(
        "TestValidateTransform/InvalidConvertMissingConvert",
        {"type": "convert"},
        "convert: Required value: given transform type convert requires configuration",
        "convert needs its config",
    ),
    vcase(
        "TestValidateTransform/InvalidConvertUnknownFormat",
        {"type": "convert", "convert": {"format": "foo"}},
        'convert.format: Invalid value: "foo": invalid format',
        "format is checked before toType",
    ),
    vcase(
        "TestValidateTransform/InvalidConvertUnknownToType",
        convt("foo"),
        'convert.toType: Invalid value: "foo": invalid type',
        "toType must be known",
    ),
    vcase("TestValidateTransform/ValidConvert", convt("int", "none"), None, "a complete convert"),
    vcase(
        "UnknownTransformType",
        {"type": "<x>"},
        'type: Invalid value: "\\u003cx\\u003e": unknown transform type',
        "a named string type renders as JSON, so < is escaped (upstream pt-2.13)",
    ),
    vcase(
        "MathMissingType",
        {"type": "math", "math": {"multiply": 2}},
        "math.type: Required value: math transform type is required",
        "math type is required",
    ),
    vcase(
        "MathUnknownType",
        {"type": "math", "math": {"type": "Divide"}},
        'math.type: Invalid value: "Divide": unknown math transform type',
        "only three math types",
    ),
    vcase(
        "MatchUnknownPatternType",
        matcht([{"type": "glob"}]),
        'match.patterns[0].type: Invalid value: "glob": unknown pattern type',
        "literal or regexp only",
    ),
    vcase(
        "MatchRegexpMissing",
        matcht([{"type": "regexp"}]),
        "match.patterns[0].regexp: Required value: regexp pattern type requires a regexp",
        "regexp needs a regexp",
    ),
    vcase(
        "MatchLiteralMissing",
        matcht([{"type": "literal"}]),
        "match.patterns[0].literal: Required value: literal pattern type requires a literal",
        "literal needs a literal",
    ),
    vcase(
        "StringMissingType",
        {"type": "string", "string": {}},
        "string.type: Required value: string transform type is required",
        "string type is required",
    ),
    vcase(
        "StringUnknownType",
        stringt("Reverse"),
        'string.type: Invalid value: "Reverse": unknown string transform type',
        "unknown string types",
    ),
    vcase(
        "StringFormatMissing",
        stringt("Format"),
        "string.fmt: Required value: format transform requires a format",
        "Format needs fmt",
    ),
    vcase(
        "StringConvertMissing",
        stringt("Convert"),
        "string.convert: Required value: convert transform requires a conversion type",
        "Convert needs convert",
    ),
    vcase(
        "StringConvertValueUnchecked",
        stringt("Convert", convert="Rot13"),
        None,
        "the convert value is not validated (upstream pt-2.13)",
    ),
    vcase(
        "StringTrimMissing",
        stringt("TrimSuffix"),
        "string.trim: Required value: trim transform requires a trim value",
        "Trim needs trim",
    ),
    vcase(
        "StringRegexpMissing",
        stringt("Regexp"),
        "string.regexp: Required value: regexp transform requires a regexp",
        "Regexp needs regexp",
    ),
    vcase(
        "StringRegexpMatchMissing",
        stringt("Regexp", regexp={}),
        "string.regexp.match: Required value: regexp transform requires a match",
        "Regexp needs match",
    ),
    vcase(
        "StringRegexpMatchInvalid",
        stringt("Regexp", regexp={"match": "a\\"}),
        'string.regexp.match: Invalid value: "a\\\\": invalid regexp',
        "a plain string renders with %q",
    ),
    vcase(
        "StringJoinMissing",
        stringt("Join"),
        "string.join: Required value: join transform requires a join",
        "Join needs join",
    ),
    vcase(
        "StringReplaceMissing",
        stringt("Replace"),
        "string.replace: Required value: replace transform requires a replace",
        "Replace needs replace",
    ),
    vcase(
        "StringReplaceSearchMissing",
        stringt("Replace", replace={"replace": "x"}),
        "string.replace.search: Required value: replace transform requires a search",
        "Replace needs search",
    ),
    vcase(
        "ConvertMissingToType",
        {"type": "convert", "convert": {}},
        'convert.toType: Invalid value: "": invalid type',
        "an empty toType is invalid",
    ),
]


@pytest.mark.parametrize(("t", "want", "reason"), VALIDATE_CASES)
def test_validate_transform(t: dict[str, Any], want: str | None, reason: str) -> None:
    got = transforms.validate(t)
    assert (str(got) if got is not None else None) == want, reason
