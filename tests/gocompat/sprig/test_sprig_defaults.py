"""Sprig's defaults, JSON, reflection and regex functions: Sprig's defaults_test.go,
reflect_test.go and regex_test.go cases, and Go's errors and panics."""

from __future__ import annotations

import math
from typing import Any

import pytest
from sprigcases import NOW, G, call, show

from crossfn import errors
from crossfn.gocompat import gofunc, values

TOP = {"bool": True, "string": "test", "number": G(42)}

CASES = [
    pytest.param("default", ("foo", ""), "foo", "TestDefault: empty string", id="Default"),
    pytest.param("default", ("foo", G(234)), "234", "TestDefault: a number", id="DefaultNumber"),
    pytest.param("default", ("foo", 2.34), "2.34", "TestDefault: a float", id="DefaultFloat"),
    pytest.param("default", ("123", None), "123", "TestDefault: nil", id="DefaultNil"),
    pytest.param("default", ("123",), "123", "TestDefault: nothing given", id="DefaultNothing"),
    pytest.param(
        "default", ("x", values.GoSlice(nil=True)), "x", "a nil slice is empty", id="DefaultNilSlice"
    ),
    pytest.param(
        "default",
        ("x", NOW),
        "2023-11-14 22:13:20.123456789 +0000 UTC m=+0.001000000",
        "a struct never is",
        id="DefaultStruct",
    ),
    pytest.param("empty", (G(1),), "false", "TestEmpty", id="EmptyOne"),
    pytest.param("empty", (G(0),), "true", "TestEmpty: zero", id="EmptyZero"),
    pytest.param("empty", ("",), "true", "TestEmpty: string", id="EmptyString"),
    pytest.param("empty", (0.0,), "true", "TestEmpty: float", id="EmptyFloat"),
    pytest.param("empty", (False,), "true", "TestEmpty: false", id="EmptyFalse"),
    pytest.param("empty", (None,), "true", "TestEmpty: a missing key", id="EmptyNil"),
    pytest.param("empty", ({},), "true", "an empty map", id="EmptyMap"),
    pytest.param("coalesce", (G(1),), "1", "TestCoalesce", id="Coalesce"),
    pytest.param("coalesce", ("", G(0), None, G(2)), "2", "TestCoalesce: skip empties", id="CoalesceSkip"),
    pytest.param("coalesce", (), "<no value>", "TestCoalesce: nothing", id="CoalesceNone"),
    pytest.param(
        "coalesce",
        (None, None, None, "airplane"),
        "airplane",
        "TestCoalesce: missing keys",
        id="CoalesceMissing",
    ),
    pytest.param("all", (G(1),), "true", "TestAll", id="All"),
    pytest.param("all", ("", G(0), None, G(2)), "false", "TestAll: an empty one", id="AllEmpty"),
    pytest.param("all", (), "true", "TestAll: nothing", id="AllNothing"),
    pytest.param("any", ("", G(0), None, G(2)), "true", "TestAny", id="Any"),
    pytest.param("any", ("", G(0), G(0), G(0)), "false", "TestAny: all empty", id="AnyNone"),
    pytest.param("any", (), "false", "TestAny: nothing", id="AnyNothing"),
    pytest.param("fromJson", ('{"foo": 55}',), "map[foo:55]", "TestFromJson", id="FromJson"),
    pytest.param("fromJson", ("{",), "<no value>", "an error gives nil", id="FromJsonBad"),
    pytest.param("toJson", (TOP,), '{"bool":true,"number":42,"string":"test"}', "TestToJson", id="ToJson"),
    pytest.param(
        "toPrettyJson",
        (TOP,),
        '{\n  "bool": true,\n  "number": 42,\n  "string": "test"\n}',
        "TestToPrettyJson",
        id="ToPrettyJson",
    ),
    pytest.param(
        "toRawJson",
        ({**TOP, "html": "<HEAD>"},),
        '{"bool":true,"html":"<HEAD>","number":42,"string":"test"}',
        "TestToRawJson",
        id="ToRawJson",
    ),
    pytest.param(
        "toJson",
        ({"html": "<HEAD>&"},),
        '{"html":"\\u003cHEAD\\u003e\\u0026"}',
        "toJson escapes HTML",
        id="ToJsonEscapes",
    ),
    pytest.param("toJson", (math.nan,), "", "an error gives the empty string", id="ToJsonNaN"),
    pytest.param(
        "toJson", (NOW,), '"2023-11-14T22:13:20.123456789Z"', "a time marshals as RFC 3339", id="ToJsonTime"
    ),
    pytest.param("ternary", ("foo", "bar", True), "foo", "TestTernary", id="TernaryTrue"),
    pytest.param("ternary", ("foo", "bar", False), "bar", "TestTernary: false", id="TernaryFalse"),
    pytest.param("typeOf", (values.GoSlice(["a"], elem="string"),), "[]string", "%T", id="TypeOf"),
    pytest.param("typeOf", (None,), "<nil>", "%T of nil", id="TypeOfNil"),
    pytest.param("typeOf", (NOW,), "time.Time", "a named type", id="TypeOfTime"),
    pytest.param("kindOf", ("x",), "string", "TestToString's kind", id="KindOf"),
    pytest.param(
        "kindOf", (values.GoSlice(["hello"], elem="string"),), "slice", "TestKindOf: slice", id="KindOfSlice"
    ),
    pytest.param("kindOf", (NOW,), "struct", "TestKindOf: struct", id="KindOfStruct"),
    pytest.param("kindOf", (None,), "invalid", "nil has no kind", id="KindOfNil"),
    pytest.param("typeIs", ("string", "hello"), "true", "TestTypeIs", id="TypeIs"),
    pytest.param("typeIs", ("*semver.Version", "hello"), "false", "TestTypeIs: not", id="TypeIsNot"),
    pytest.param("typeIsLike", ("string", "foo"), "true", "TestTypeIsLike", id="TypeIsLike"),
    pytest.param("typeIsLike", ("semver.Version", None), "false", "nil is <nil>", id="TypeIsLikeNil"),
    pytest.param("kindIs", ("string", "hello"), "true", "TestKindIs", id="KindIs"),
    pytest.param("kindIs", ("int", 1), "false", "an int64 is not an int", id="KindIsInt64"),
    pytest.param("deepEqual", ([G(1)], [G(1)]), "true", "reflect.DeepEqual", id="DeepEqual"),
    pytest.param("deepEqual", ([G(1)], [1]), "false", "int and int64 differ", id="DeepEqualTypes"),
    pytest.param(
        "deepEqual",
        ([], values.GoSlice(nil=True)),
        "false",
        "an empty slice is not a nil one",
        id="DeepEqualNil",
    ),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), CASES)
def test_defaults(name: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    assert show(call(name, *args)) == want, reason


def test_type_of_semver() -> None:
    """The reflect tests' pointer case: semver returns a *semver.Version of kind ptr."""
    version = call("semver", "1.2.3")
    assert call("typeOf", version) == "*semver.Version"
    assert call("kindIs", "ptr", version)
    assert call("typeIsLike", "semver.Version", version)


ERRORS = [
    pytest.param("mustFromJson", ("{",), "unexpected end of JSON input", "Go's decoder text", id="FromJson"),
    pytest.param(
        "mustFromJson",
        ("{x}",),
        "invalid character 'x' looking for beginning of object key string",
        "Go's scanner",
        id="FromJsonChar",
    ),
    pytest.param(
        "mustToJson", (math.inf,), "json: unsupported value: +Inf", "Go's encoder text", id="ToJson"
    ),
    pytest.param(
        "mustToPrettyJson",
        (math.nan,),
        "json: unsupported value: NaN",
        "the pretty form too",
        id="ToPrettyJson",
    ),
    pytest.param(
        "mustToRawJson", (math.nan,), "json: unsupported value: NaN", "and the raw one", id="ToRawJson"
    ),
]


@pytest.mark.parametrize(("name", "args", "message", "reason"), ERRORS)
def test_errors(name: str, args: tuple[Any, ...], message: str, reason: str) -> None:
    with pytest.raises(errors.GoError) as raised:
        call(name, *args)
    assert str(raised.value) == message, reason
    assert not isinstance(raised.value, gofunc.Panic), reason


def test_to_raw_json_panics() -> None:
    """toRawJson has no quiet form: it panics."""
    with pytest.raises(gofunc.Panic) as raised:
        call("toRawJson", math.nan)
    assert str(raised.value) == "json: unsupported value: NaN"


REGEX = "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}"

REGEXES = [
    pytest.param("regexMatch", (REGEX, "test@acme.com"), True, "TestRegexMatch", id="Match"),
    pytest.param("regexMatch", (REGEX, "Test@Acme.Com"), True, "TestRegexMatch: case", id="MatchCase"),
    pytest.param("regexMatch", (REGEX, "test"), False, "TestRegexMatch: no", id="NoMatch"),
    pytest.param("regexMatch", ("(", "x"), False, "a bad pattern does not match", id="MatchBad"),
    pytest.param("mustRegexMatch", (REGEX, "test@acme"), False, "TestMustRegexMatch", id="MustMatch"),
    pytest.param("regexFindAll", ("a{2}", "aa", G(-1)), ["aa"], "TestRegexFindAll", id="FindAll"),
    pytest.param("regexFindAll", ("a{2}", "aaaaaaaa", G(1)), ["aa"], "TestRegexFindAll: n", id="FindAllN"),
    pytest.param(
        "regexFindAll", ("a{2}", "aaaa", G(-1)), ["aa", "aa"], "TestRegexFindAll: two", id="FindAllTwo"
    ),
    pytest.param("regexFindAll", ("a{2}", "none", G(-1)), [], "TestRegexFindAll: none", id="FindAllNone"),
    pytest.param(
        "regexFindAll",
        ("a*", "baaac", G(-1)),
        ["", "aaa", ""],
        "an empty match after a match is skipped",
        id="FindAllEmpty",
    ),
    pytest.param(
        "mustRegexFindAll", ("a{2}", "aaaa", G(-1)), ["aa", "aa"], "TestMustRegexFindAll", id="MustFindAll"
    ),
    pytest.param("regexFind", ("fo.?", "foorbar"), "foo", "TestRegexFindl", id="Find"),
    pytest.param("regexFind", ("fo.?", "foo foe fome"), "foo", "TestRegexFindl: first", id="FindFirst"),
    pytest.param("regexFind", ("fo.?", "none"), "", "TestRegexFindl: none", id="FindNone"),
    pytest.param("mustRegexFind", ("fo.?", "foorbar"), "foo", "TestMustRegexFindl", id="MustFind"),
    pytest.param(
        "regexReplaceAll", ("a(x*)b", "-ab-axxb-", "T"), "-T-T-", "TestRegexReplaceAll", id="Replace"
    ),
    pytest.param(
        "regexReplaceAll",
        ("a(x*)b", "-ab-axxb-", "$1"),
        "--xx-",
        "TestRegexReplaceAll: $1",
        id="ReplaceGroup",
    ),
    pytest.param(
        "regexReplaceAll",
        ("a(x*)b", "-ab-axxb-", "$1W"),
        "---",
        "TestRegexReplaceAll: $1W is a name",
        id="ReplaceName",
    ),
    pytest.param(
        "regexReplaceAll",
        ("a(x*)b", "-ab-axxb-", "${1}W"),
        "-W-xxW-",
        "TestRegexReplaceAll: braces",
        id="ReplaceBraces",
    ),
    pytest.param(
        "regexReplaceAll", ("(?P<w>b)", "abc", "[$w$$]"), "a[b$]c", "a named group and $$", id="ReplaceNamed"
    ),
    pytest.param(
        "regexReplaceAll", ("a*", "baaac", "X"), "XbXcX", "empty matches around a match", id="ReplaceEmpty"
    ),
    pytest.param(
        "mustRegexReplaceAll",
        ("a(x*)b", "-ab-axxb-", "${1}W"),
        "-W-xxW-",
        "TestMustRegexReplaceAll",
        id="MustReplace",
    ),
    pytest.param(
        "regexReplaceAllLiteral",
        ("a(x*)b", "-ab-axxb-", "$1"),
        "-$1-$1-",
        "TestRegexReplaceAllLiteral",
        id="Literal",
    ),
    pytest.param(
        "mustRegexReplaceAllLiteral",
        ("a(x*)b", "-ab-axxb-", "${1}"),
        "-${1}-${1}-",
        "TestMustRegexReplaceAllLiteral",
        id="MustLiteral",
    ),
    pytest.param("regexSplit", ("a", "banana", G(-1)), ["b", "n", "n", ""], "TestRegexSplit", id="Split"),
    pytest.param("regexSplit", ("a", "banana", G(0)), [], "TestRegexSplit: zero", id="SplitZero"),
    pytest.param("regexSplit", ("a", "banana", G(1)), ["banana"], "TestRegexSplit: one", id="SplitOne"),
    pytest.param("regexSplit", ("a", "banana", G(2)), ["b", "nana"], "TestRegexSplit: two", id="SplitTwo"),
    pytest.param("regexSplit", ("z+", "pizza", G(-1)), ["pi", "a"], "TestRegexSplit: z+", id="SplitRun"),
    pytest.param("mustRegexSplit", ("z+", "pizza", G(2)), ["pi", "a"], "TestMustRegexSplit", id="MustSplit"),
    pytest.param("regexQuoteMeta", ("pretzel",), "pretzel", "TestRegexQuoteMeta", id="QuoteMeta"),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), REGEXES)
def test_regex(name: str, args: tuple[Any, ...], want: Any, reason: str) -> None:
    assert call(name, *args) == want, reason


def test_regex_compile_errors() -> None:
    """The plain forms panic as regexp.MustCompile does; the must forms return the error."""
    with pytest.raises(gofunc.Panic) as panicked:
        call("regexReplaceAll", "a(", "x", "y")
    assert str(panicked.value) == "regexp: Compile(`a(`): error parsing regexp: missing closing ): `a(`"
    with pytest.raises(gofunc.Panic) as quoted:
        call("regexFind", "a(`", "x")
    assert str(quoted.value) == 'regexp: Compile("a(`"): error parsing regexp: missing closing ): `a(``'
    for name, args in (
        ("mustRegexMatch", ("a(", "x")),
        ("mustRegexFindAll", ("a(", "x", G(1))),
        ("mustRegexSplit", ("a(", "x", G(1))),
        ("mustRegexReplaceAllLiteral", ("a(", "x", "y")),
    ):
        with pytest.raises(errors.GoError) as returned:
            call(name, *args)
        assert str(returned.value) == "error parsing regexp: missing closing ): `a(`"
        assert not isinstance(returned.value, gofunc.Panic)
