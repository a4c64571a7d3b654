"""Sprig's string functions: Sprig's own test cases (strings_test.go, functions_test.go), goutils'
and xstrings' cases for the helpers they wrap, and Go's byte-level behaviour."""

from __future__ import annotations

from typing import Any

import pytest
from sprigcases import G, call, func_map, show

from crossfn import errors
from crossfn.gocompat import gofunc, values

CASES = [
    pytest.param("substr", (G(0), G(3), "fooo"), "foo", "TestSubstr", id="Substr"),
    pytest.param(
        "substr",
        (G(0), G(10), "foo"),
        "foo",
        "TestSubstr_shorterString: a long end means to the end",
        id="SubstrShort",
    ),
    pytest.param(
        "substr", (G(-1), G(2), "foo"), "fo", "a negative start means from 0", id="SubstrNegativeStart"
    ),
    pytest.param(
        "substr", (G(1), G(-1), "foo"), "oo", "a negative end means to the end", id="SubstrNegativeEnd"
    ),
    pytest.param("trunc", (G(3), "foooooo"), "foo", "TestTrunc", id="Trunc"),
    pytest.param("trunc", (G(-3), "baaaaaar"), "aar", "TestTrunc: from the end", id="TruncNegative"),
    pytest.param(
        "trunc", (G(-999), "baaaaaar"), "baaaaaar", "TestTrunc: longer than the string", id="TruncLong"
    ),
    pytest.param("trunc", (G(0), "baaaaaz"), "", "TestTrunc: zero", id="TruncZero"),
    pytest.param("quote", ("a", "b", "c"), '"a" "b" "c"', "TestQuote", id="Quote"),
    pytest.param("quote", ('"a"', "b", "c"), '"\\"a\\"" "b" "c"', "TestQuote: %q escapes", id="QuoteEscapes"),
    pytest.param(
        "quote", (G(1), G(2), G(3)), '"1" "2" "3"', "TestQuote: numbers by strval", id="QuoteNumbers"
    ),
    pytest.param("quote", (None,), "", "TestQuote: nil is skipped", id="QuoteNil"),
    pytest.param("squote", ("a", "b", "c"), "'a' 'b' 'c'", "TestSquote", id="Squote"),
    pytest.param("squote", (G(1), G(2), G(3)), "'1' '2' '3'", "TestSquote: numbers", id="SquoteNumbers"),
    pytest.param("squote", (None,), "", "TestSquote: nil is skipped", id="SquoteNil"),
    pytest.param("contains", ("cat", "fair catch"), True, "TestContains: order swapped", id="Contains"),
    pytest.param("hasPrefix", ("cat", "catch"), True, "TestContains: hasPrefix", id="HasPrefix"),
    pytest.param("hasSuffix", ("cat", "ducat"), True, "TestContains: hasSuffix", id="HasSuffix"),
    pytest.param("trim", ("   5.00   ",), "5.00", "TestTrim", id="Trim"),
    pytest.param("trimAll", ("$", "$5.00$"), "5.00", "TestTrim: trimAll", id="TrimAll"),
    pytest.param("trimall", ("$", "$5.00$"), "5.00", "the deprecated spelling", id="TrimallDeprecated"),
    pytest.param("trimPrefix", ("$", "$5.00"), "5.00", "TestTrim: trimPrefix", id="TrimPrefix"),
    pytest.param("trimSuffix", ("$", "5.00$"), "5.00", "TestTrim: trimSuffix", id="TrimSuffix"),
    pytest.param(
        "trim", ("\x1c a \u3000",), "\x1c a", "Go's White_Space: U+001C stays, U+3000 goes", id="TrimGoSpace"
    ),
    pytest.param("split", ("$", "foo$bar$baz"), "map[_0:foo _1:bar _2:baz]", "TestSplit", id="Split"),
    pytest.param("splitn", ("$", G(2), "foo$bar$baz"), "map[_0:foo _1:bar$baz]", "TestSplitn", id="Splitn"),
    pytest.param("splitList", ("", "abc"), "[a b c]", "an empty separator splits runes", id="SplitListEmpty"),
    pytest.param("toString", (G(1),), "1", "TestToString", id="ToString"),
    pytest.param("toStrings", ([G(1), None, G(2)],), "[1 2]", "TestToStrings: nil dropped", id="ToStrings"),
    pytest.param("join", ("-", ["a", "b", "c"]), "a-b-c", "TestJoin", id="Join"),
    pytest.param("join", ("-", [G(1), G(2), G(3)]), "1-2-3", "TestJoin: numbers", id="JoinNumbers"),
    pytest.param(
        "join",
        ("-", values.GoSlice(["a", "b", "c"], elem="string")),
        "a-b-c",
        "TestJoin: []string",
        id="JoinStrings",
    ),
    pytest.param("join", ("-", "abc"), "abc", "TestJoin: a string is one element", id="JoinString"),
    pytest.param(
        "join",
        ("-", values.GoSlice([G(1), G(2), G(3)], elem="int")),
        "1-2-3",
        "TestJoin: []int",
        id="JoinInts",
    ),
    pytest.param("join", ("-", ["1", None, "2"]), "1-2", "TestJoin: nil dropped", id="JoinNil"),
    pytest.param("sortAlpha", (["c", "a", "b"],), "[a b c]", "TestSortAlpha", id="SortAlpha"),
    pytest.param(
        "sortAlpha", ([G(2), G(1), G(4), G(3)],), "[1 2 3 4]", "TestSortAlpha: numbers", id="SortAlphaNumbers"
    ),
    pytest.param("b64enc", ("coffee",), "Y29mZmVl", "TestBase64EncodeDecode", id="B64Enc"),
    pytest.param("b64dec", ("Y29mZmVl",), "coffee", "TestBase64EncodeDecode", id="B64Dec"),
    pytest.param(
        "b64dec",
        ("Y29mZ",),
        "illegal base64 data at input byte 4",
        "the error in place of the result",
        id="B64DecError",
    ),
    pytest.param("b32enc", ("coffee",), "MNXWMZTFMU======", "TestBase32EncodeDecode", id="B32Enc"),
    pytest.param("b32dec", ("MNXWMZTFMU======",), "coffee", "TestBase32EncodeDecode", id="B32Dec"),
    pytest.param(
        "b32dec",
        ("MNXWM!",),
        "illegal base32 data at input byte 5",
        "the error in place of the result",
        id="B32DecError",
    ),
    pytest.param("abbrev", (G(5), "hello world"), "he...", "TestGoutils: abbrev", id="Abbrev"),
    pytest.param(
        "abbrev", (G(3), "hello world"), "hello world", "a width under 4 leaves the string", id="AbbrevNarrow"
    ),
    pytest.param(
        "abbrevboth",
        (G(5), G(10), "1234 5678 9123"),
        "...5678...",
        "TestGoutils: abbrevboth",
        id="Abbrevboth",
    ),
    pytest.param("nospace", ("h e l l o ",), "hello", "TestGoutils: nospace", id="Nospace"),
    pytest.param("untitle", ("First Try",), "first try", "TestGoutils: untitle", id="Untitle"),
    pytest.param("initials", ("First Try",), "FT", "TestGoutils: initials", id="Initials"),
    pytest.param("wrap", (G(5), "Hello World"), "Hello\nWorld", "TestGoutils: wrap", id="Wrap"),
    pytest.param(
        "wrapWith", (G(5), "\t", "Hello World"), "Hello\tWorld", "TestGoutils: wrapWith", id="WrapWith"
    ),
    pytest.param(
        "wrap", (G(3), "abcdefgh xy"), "abcdefgh\nxy", "a long word is not broken", id="WrapLongWord"
    ),
    pytest.param(
        "wrapWith",
        (G(3), "|", "abcdefgh xy"),
        "abc|def|gh|xy",
        "wrapWith breaks long words",
        id="WrapWithLongWord",
    ),
    pytest.param("cat", ("a", "b", "c"), "a b c", "TestCat", id="Cat"),
    pytest.param("cat", ("a", "b", None), "a b", "TestCat: nil dropped", id="CatNil"),
    pytest.param("indent", (G(4), "a\nb\nc"), "    a\n    b\n    c", "TestIndent", id="Indent"),
    pytest.param("nindent", (G(4), "a\nb\nc"), "\n    a\n    b\n    c", "TestNindent", id="Nindent"),
    pytest.param("replace", (" ", "-", "I Am Henry VIII"), "I-Am-Henry-VIII", "TestReplace", id="Replace"),
    pytest.param("plural", ("1 char", "chars", G(3)), "chars", "TestPlural", id="Plural"),
    pytest.param("plural", ("cheese", "%d chars", G(1)), "cheese", "TestPlural: one", id="PluralOne"),
    pytest.param("snakecase", ("FirstName",), "first_name", "TestSnakeCase", id="Snake"),
    pytest.param("snakecase", ("HTTPServer",), "http_server", "TestSnakeCase", id="SnakeAbbreviation"),
    pytest.param("snakecase", ("NoHTTPS",), "no_https", "TestSnakeCase", id="SnakeTrailing"),
    pytest.param("snakecase", ("GO_PATH",), "go_path", "TestSnakeCase", id="SnakeUnderscore"),
    pytest.param("snakecase", ("GO PATH",), "go_path", "TestSnakeCase", id="SnakeSpace"),
    pytest.param("snakecase", ("GO-PATH",), "go_path", "TestSnakeCase", id="SnakeHyphen"),
    pytest.param("kebabcase", ("FirstName",), "first-name", "TestKebabCase", id="Kebab"),
    pytest.param("kebabcase", ("HTTPServer",), "http-server", "TestKebabCase", id="KebabAbbreviation"),
    pytest.param("kebabcase", ("GO_PATH",), "go-path", "TestKebabCase", id="KebabUnderscore"),
    pytest.param("camelcase", ("http_server",), "HttpServer", "TestCamelCase", id="Camel"),
    pytest.param("camelcase", ("_camel_case",), "_CamelCase", "TestCamelCase", id="CamelLeading"),
    pytest.param("camelcase", ("no_https",), "NoHttps", "TestCamelCase", id="CamelNoHttps"),
    pytest.param("camelcase", ("_complex__case_",), "_Complex_Case_", "TestCamelCase", id="CamelComplex"),
    pytest.param("camelcase", ("all",), "All", "TestCamelCase", id="CamelAll"),
    pytest.param("regexQuoteMeta", ("1.2.3",), "1\\.2\\.3", "TestRegex", id="QuoteMeta"),
    pytest.param(
        "upper", ("straße",), "STRAßE", "Go maps runes simply: ß has no single upper case", id="UpperSimple"
    ),
    pytest.param(
        "title", ("hello wide-world_x",), "Hello Wide-World_x", "strings.Title: _ joins words", id="Title"
    ),
    pytest.param(
        "swapcase",
        ("This Is A.Test",),
        "tHIS iS a.tEST",
        "goutils' SwapCase: title case after a space",
        id="Swapcase",
    ),
    pytest.param("repeat", (G(3), "ab"), "ababab", "repeat's count comes first", id="Repeat"),
    pytest.param("hello", (), "Hello!", "Sprig's greeting", id="Hello"),
    pytest.param("atoi", ("42",), 42, "a plain number", id="Atoi"),
    pytest.param("atoi", ("4x",), 0, "a bad number is 0", id="AtoiBad"),
    pytest.param(
        "atoi",
        ("99999999999999999999",),
        (1 << 63) - 1,
        "an overflow is the nearest int64",
        id="AtoiOverflow",
    ),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), CASES)
def test_strings(name: str, args: tuple[Any, ...], want: Any, reason: str) -> None:
    got = call(name, *args)
    if isinstance(want, str):
        assert show(got) == want, reason
    else:
        assert got == want, reason


BYTES = [
    pytest.param(
        "substr",
        (G(0), G(1), "é"),
        "\udcc3",
        "substr counts bytes: half a character is an invalid byte",
        id="SubstrSplitsRune",
    ),
    pytest.param("trunc", (G(1), "é"), "\udcc3", "trunc counts bytes too", id="TruncSplitsRune"),
    pytest.param("initials", ("Émile Zola",), "ÃZ", "goutils reads each byte as a rune", id="InitialsBytes"),
    pytest.param(
        "nospace", ("é é",), "Ã\xa9Ã\xa9", "nospace too, once something was removed", id="NospaceBytes"
    ),
    pytest.param(
        "nospace", ("éé",), "éé", "and returns the string as is when nothing was", id="NospaceUntouched"
    ),
    pytest.param("abbrev", (G(6), "éééé"), "é\udcc3...", "abbrev keeps max-3 bytes", id="AbbrevBytes"),
    pytest.param("trimPrefix", ("\udcc3", "é"), "\udca9", "prefixes are bytes", id="TrimPrefixBytes"),
    pytest.param(
        "upper", ("a\udcffb",), "A\ufffdB", "an invalid byte becomes U+FFFD when mapped", id="UpperInvalid"
    ),
    pytest.param(
        "snakecase",
        ("a\udcffB",),
        "a_\ufffdb",
        "an invalid byte joins the next word and is mapped to U+FFFD",
        id="SnakeInvalid",
    ),
    pytest.param(
        "snakecase",
        ("ab\udcff",),
        "ab\udcff",
        "in a lower-case word xstrings writes it as it is",
        id="SnakeInvalidKept",
    ),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), BYTES)
def test_byte_semantics(name: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    assert call(name, *args) == want, reason


PANICS = [
    pytest.param(
        "substr",
        (G(-1), G(5), "abc"),
        "runtime error: slice bounds out of range [:5] with length 3",
        "start < 0 slices [:end]",
        id="SubstrNegativeStartLongEnd",
    ),
    pytest.param(
        "substr",
        (G(5), G(-1), "abc"),
        "runtime error: slice bounds out of range [5:3]",
        "start past the end",
        id="SubstrStart",
    ),
    pytest.param(
        "substr",
        (G(2), G(1), "abc"),
        "runtime error: slice bounds out of range [2:1]",
        "start after end",
        id="SubstrReversed",
    ),
    pytest.param(
        "repeat", (G(-1), "x"), "strings: negative Repeat count", "a negative count", id="RepeatNegative"
    ),
    pytest.param(
        "indent", (G(-1), "x"), "strings: negative Repeat count", "a negative indent", id="IndentNegative"
    ),
]


@pytest.mark.parametrize(("name", "args", "message", "reason"), PANICS)
def test_panics(name: str, args: tuple[Any, ...], message: str, reason: str) -> None:
    with pytest.raises(gofunc.Panic) as raised:
        call(name, *args)
    assert str(raised.value) == message, reason


XSTRINGS_SNAKE = {
    "HTTPServer": "http_server",
    "_camelCase": "_camel_case",
    "NoHTTPS": "no_https",
    "Wi_thF": "wi_th_f",
    "_AnotherTES_TCaseP": "_another_tes_t_case_p",
    "ALL": "all",
    "_HELLO_WORLD_": "_hello_world_",
    "HELLO_WORLD": "hello_world",
    "HELLO____WORLD": "hello____world",
    "TW": "tw",
    "_C": "_c",
    "http2xx": "http_2xx",
    "HTTP2XX": "http2_xx",
    "HTTP20xOK": "http_20x_ok",
    "HTTP20xStatus": "http_20x_status",
    "HTTP-20xStatus": "http_20x_status",
    "a": "a",
    "Duration2m3s": "duration_2m3s",
    "Bld4Floor3rd": "bld4_floor_3rd",
    " _-_ ": "_____",
    "a1b2c3d": "a_1b2c3d",
    "A//B%%2c": "a//b%%2c",
    "HTTP状态码404/502Error": "http_状态码404/502_error",
    "中文(字符)": "中文(字符)",
    "混合ABCWords与123数字456": "混合_abc_words_与123_数字456",
    "  sentence case  ": "__sentence_case__",
    " Mixed-hyphen case _and SENTENCE_case and UPPER-case": "_mixed_hyphen_case__and_sentence_case_and_upper_case",
    "FROM CamelCase to snake/kebab-case": "from_camel_case_to_snake/kebab_case",
    "": "",
    "Abc\ufffdE\ufffdf\ufffdd\ufffd2\ufffd00z\ufffdZZ\ufffdZZ": "abc_\ufffde\ufffdf\ufffdd_\ufffd2\ufffd00z_\ufffdzz\ufffdzz",
    "\ufffd\ufffd\ufffd\ufffd\ufffd": "\ufffd\ufffd\ufffd\ufffd\ufffd",
    "abc_123_def": "abc_123_def",
}


@pytest.mark.parametrize(("text", "want"), list(XSTRINGS_SNAKE.items()), ids=list(range(len(XSTRINGS_SNAKE))))
def test_xstrings_snake_and_kebab(text: str, want: str) -> None:
    """xstrings' TestToSnakeCaseAndToKebabCase, through snakecase and kebabcase at both versions."""
    for version in ("v3.2.3", "v3.3.0"):
        assert call("snakecase", text, version=version) == want
        assert call("kebabcase", text, version=version) == want.replace("_", "-")


CAMEL = [
    pytest.param("http_server", "HttpServer", "HttpServer", "xstrings TestToCamelCase", id="Words"),
    pytest.param(" complex -case ", " Complex Case ", " Complex Case ", "spaces are connectors", id="Spaces"),
    pytest.param(
        "GOLANG_IS_GREAT", "GolangIsGreat", "GolangIsGreat", "upper-case words lowered", id="Shouting"
    ),
    pytest.param("好", "好", "好", "one rune", id="OneRune"),
    pytest.param(
        "FROM CamelCase to snake/kebab-case",
        "FromCamelcaseToSnake/kebabCase",
        "FromCamelCaseToSnake/kebabCase",
        "1.5 keeps a lower-started word's capitals",
        id="Mixed",
    ),
    pytest.param(
        "someWords",
        "Somewords",
        "SomeWords",
        "the breaking change Sprig v3.3.0 works around",
        id="InnerCapital",
    ),
    pytest.param("__", "___", "___", "xstrings writes the last connector twice", id="OnlyConnectors"),
]


@pytest.mark.parametrize(("text", "v323", "v330", "reason"), CAMEL)
def test_camelcase_per_version(text: str, v323: str, v330: str, reason: str) -> None:
    """v3.2.3 is xstrings 1.3.3's ToCamelCase, v3.3.0 xstrings 1.5.0's ToPascalCase."""
    assert call("camelcase", text, version="v3.2.3") == v323, reason
    assert call("camelcase", text, version="v3.3.0") == v330, reason


@pytest.mark.parametrize(
    ("name", "alphabet"),
    [
        pytest.param(
            "randAlphaNum", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", id="AlphaNum"
        ),
        pytest.param("randAlpha", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", id="Alpha"),
        pytest.param("randNumeric", "0123456789", id="Numeric"),
        pytest.param("randAscii", "".join(chr(c) for c in range(32, 127)), id="Ascii"),
    ],
)
def test_random_strings(name: str, alphabet: str) -> None:
    """TestRandomString: the length asked for, from the right characters; a seed repeats it; a negative count is ""."""
    first = func_map(seed=7)[name](G(50))
    assert len(first) == 50
    assert set(first) <= set(alphabet)
    assert func_map(seed=7)[name](G(50)) == first
    assert func_map(seed=8)[name](G(50)) != first
    assert func_map()[name](G(-1)) == ""


def test_shuffle_keeps_runes() -> None:
    """xstrings' TestShuffle: the same runes in some order (Go's math/rand stream is not reproduced)."""
    shuffled = func_map(seed=3)["shuffle"]("Hello World")
    assert sorted(shuffled) == sorted("Hello World")
    assert func_map(seed=3)["shuffle"]("Hello World") == shuffled


def test_abbrevboth_error_is_empty() -> None:
    """goutils' error for an offset abbreviation narrower than 7 is dropped by Sprig: the result is ""."""
    assert call("abbrevboth", G(6), G(4), "1234567890123") == "1234567890123"
    assert call("abbrevboth", G(10), G(6), "abcdefghijklmnopqrstuvwxyz") == "abcdefghijklmnopqrstuvwxyz"


def test_fail() -> None:
    """TestFail: the message is the error."""
    with pytest.raises(errors.GoError) as raised:
        call("fail", "This is an error!")
    assert str(raised.value) == "This is an error!"
    assert not isinstance(raised.value, gofunc.Panic)
