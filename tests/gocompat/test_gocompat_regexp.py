"""Go regexp over RE2, and Go strconv: error texts, semantics, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crossfn.errors import GoError
from crossfn.gocompat import regexp, strconv

COMPILE_ERRORS = [
    pytest.param(
        "?=",
        "missing argument to repetition operator: `?`",
        "TestMatchResolve/ErrInvalidRegexp's text",
        id="MissingRepeatArgument",
    ),
    pytest.param(
        "[a-z",
        "missing closing ]: `[a-z`",
        "TestStringResolve/RegexpNotCompiling's text",
        id="MissingBracket",
    ),
    pytest.param("(a", "missing closing ): `(a`", "unclosed group", id="MissingParen"),
    pytest.param("a)", "unexpected ): `a)`", "unopened group", id="UnexpectedParen"),
    pytest.param("a**", "invalid nested repetition operator: `**`", "nested repetition", id="NestedRepeat"),
    pytest.param("a{1001}", "invalid repeat count: `{1001}`", "repeat limit 1000", id="RepeatCount"),
    pytest.param("[z-a]", "invalid character class range: `z-a`", "reversed range", id="ClassRange"),
    pytest.param("\\8", "invalid escape sequence: `\\8`", "backreferences do not exist", id="Escape"),
    pytest.param(
        "a\\", "trailing backslash at end of expression: ``", "trailing backslash", id="TrailingBackslash"
    ),
    pytest.param(
        "(?P<a-b>x)",
        "invalid named capture: `(?P<a-b>`",
        "group names are word characters",
        id="NamedCapture",
    ),
    pytest.param(
        "(?<", "invalid or unsupported Perl syntax: `(?<`", "an unfinished group flag", id="PerlSyntax"
    ),
    pytest.param(
        "a\\Cb", "invalid escape sequence: `\\C`", "RE2's any-byte escape is not Go syntax", id="AnyByte"
    ),
    pytest.param("[\\C]", "invalid escape sequence: `\\C`", "not inside a class either", id="AnyByteInClass"),
]


@pytest.mark.parametrize(("expr", "want", "reason"), COMPILE_ERRORS)
def test_compile_errors(expr: str, want: str, reason: str) -> None:
    with pytest.raises(GoError) as raised:
        regexp.compile(expr)
    assert str(raised.value) == f"error parsing regexp: {want}", reason


def test_matching() -> None:
    """Unanchored search, leftmost-first, unmatched groups empty, invalid bytes survive."""
    assert regexp.compile("^foo.*$").match_string("foobar")
    assert regexp.compile("o+").find_string_submatch("foo boo") == ["oo"]
    assert regexp.compile("(a)|(b)").find_string_submatch("b") == ["b", "", "b"]
    assert regexp.compile("a|ab").find_string_submatch("ab") == ["a"]
    assert regexp.compile("x").find_string_submatch("y") is None
    assert regexp.compile("b(.)").find_string_submatch("ab\u00e9") == ["b\u00e9", "\u00e9"]
    assert regexp.compile("a").find_string_submatch("\udce2a") == ["a"]
    assert regexp.compile("a(.)b").find_string_submatch("xa\udce2b") == ["a\udce2b", "\udce2"], (
        "invalid byte as U+FFFD"
    )
    assert regexp.compile("\ufffd").match_string("\udc80"), "an invalid byte matches U+FFFD"
    assert regexp.compile("\\Q\\C\\E").match_string("\\C"), "\\C inside \\Q...\\E is literal text"
    assert regexp.compile("(a)(b)?").num_subexp == 2


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab()[]{}?*+|\\^$.-,0123456789PpQEdwsz<>:=!é")), max_size=12)
    | st.text(max_size=8),
    st.text(max_size=12),
)
def test_regexp_fails_only_with_go_errors(expr: str, subject: str) -> None:
    """Any pattern compiles or fails with crossfn's Go-worded error; matching never fails."""
    try:
        compiled = regexp.compile(expr)
    except GoError as e:
        assert str(e).startswith("error parsing regexp: ")
        return
    groups = compiled.find_string_submatch(subject + "\udcff")
    assert groups is None or len(groups) == compiled.num_subexp + 1


PARSE_INT = [
    pytest.param("42", 42, id="Plain"),
    pytest.param("-9223372036854775808", -(2**63), id="Min"),
    pytest.param("+7", 7, id="PlusSign"),
    pytest.param("007", 7, id="LeadingZeros"),
    pytest.param("0" * 5000 + "7", 7, id="ManyLeadingZeros"),
]


@pytest.mark.parametrize(("text", "want"), PARSE_INT)
def test_parse_int(text: str, want: int) -> None:
    """strconv.ParseInt(s, 10, 64) accepts an optional sign and decimal digits."""
    assert strconv.parse_int(text) == want


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        pytest.param(t, "invalid syntax", id=t or "Empty")
        for t in ["", "1_000", "0x10", " 1", "1.0", "abc", "+", "١"]
    ]
    + [
        pytest.param("9223372036854775808", "value out of range", id="Overflow"),
        # 5,000 digits once escaped as Python's ValueError (its int-from-text digit limit).
        pytest.param("9" * 5000, "value out of range", id="FiveThousandDigits"),
        pytest.param("-" + "1" * 5000, "value out of range", id="FiveThousandDigitsNegative"),
    ],
)
def test_parse_int_errors(text: str, kind: str) -> None:
    with pytest.raises(GoError) as raised:
        strconv.parse_int(text)
    assert str(raised.value) == f"strconv.ParseInt: parsing {strconv.quote(text)}: {kind}"


FLOATS = [
    pytest.param("1000", 1000.0, "integer text", id="Integer"),
    pytest.param("1_000", 1000.0, "underscores between digits", id="Underscore"),
    pytest.param(".5", 0.5, "leading point", id="LeadingPoint"),
    pytest.param("5.", 5.0, "trailing point", id="TrailingPoint"),
    pytest.param("0x1.8p1", 3.0, "hex float", id="HexFloat"),
    pytest.param("-Inf", -math.inf, "infinity", id="NegInf"),
    pytest.param("infinity", math.inf, "long infinity", id="Infinity"),
    pytest.param("1e-400", 0.0, "underflow is zero without error", id="Underflow"),
]


@pytest.mark.parametrize(("text", "want", "reason"), FLOATS)
def test_parse_float(text: str, want: float, reason: str) -> None:
    assert strconv.parse_float(text) == want, reason


def test_parse_float_nan() -> None:
    """NaN in any case, but without a sign."""
    assert math.isnan(strconv.parse_float("nAn"))
    with pytest.raises(GoError, match=r'^strconv\.ParseFloat: parsing "\+NaN": invalid syntax$'):
        strconv.parse_float("+NaN")


@pytest.mark.parametrize(
    ("text", "kind"),
    [pytest.param(t, "invalid syntax", id=t) for t in [" 1", "1_", "_1", "1__0", "0x1", "1e", "inf1", "1,0"]]
    + [pytest.param("1e400", "value out of range", id="Overflow")],
)
def test_parse_float_errors(text: str, kind: str) -> None:
    with pytest.raises(GoError) as raised:
        strconv.parse_float(text)
    assert str(raised.value) == f"strconv.ParseFloat: parsing {strconv.quote(text)}: {kind}"


@pytest.mark.parametrize(
    ("text", "want"),
    [("1", True), ("t", True), ("TRUE", True), ("True", True), ("0", False), ("F", False), ("false", False)],
)
def test_parse_bool(text: str, want: bool) -> None:
    assert strconv.parse_bool(text) is want


@pytest.mark.parametrize("text", ["yes", "TrUe", "", "2"])
def test_parse_bool_errors(text: str) -> None:
    with pytest.raises(GoError, match=r"^strconv\.ParseBool: parsing .*: invalid syntax$"):
        strconv.parse_bool(text)


FORMAT_F = [
    (1e21, "1000000000000000000000"),
    (1e-7, "0.0000001"),
    (0.1 + 0.2, "0.30000000000000004"),
    (-0.0, "-0"),
    (123.0, "123"),
    (math.nan, "NaN"),
    (math.inf, "+Inf"),
]


@pytest.mark.parametrize(("value", "want"), FORMAT_F, ids=[w for _, w in FORMAT_F])
def test_format_float_f_shortest(value: float, want: str) -> None:
    """FormatFloat(f, 'f', -1, 64): shortest digits, never exponent form (upstream pt-6.6)."""
    assert strconv.format_float(value, "f", -1) == want


QUOTE = [
    pytest.param('a"b\\c', '"a\\"b\\\\c"', "quote and backslash", id="Escapes"),
    pytest.param("\x07\x00\x7f", '"\\a\\x00\\x7f"', "controls", id="Controls"),
    pytest.param("é\u200b", '"é\\u200b"', "printable kept, format characters escaped", id="Unicode"),
    pytest.param("\U0001f600", '"\U0001f600"', "printable astral", id="Astral"),
    pytest.param("\U000e0001", '"\\U000e0001"', "non-printable astral", id="AstralEscape"),
    pytest.param("a\udce2", '"a\\xe2"', "an invalid byte", id="InvalidByte"),
    pytest.param(
        " ~az09-./:", '" ~az09-./:"', "printable ASCII stands for itself (the fast path)", id="Plain"
    ),
    pytest.param("", '""', "empty", id="Empty"),
    pytest.param("tab\there", '"tab\\there"', "ASCII but not printable: escaped", id="AsciiTab"),
    pytest.param("a\x7fb", '"a\\x7fb"', "DEL is ASCII but not printable", id="AsciiDel"),
]


@pytest.mark.parametrize(("text", "want", "reason"), QUOTE)
def test_quote(text: str, want: str, reason: str) -> None:
    assert strconv.quote(text) == want, reason


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_text_round_trips(x: float) -> None:
    """Every shortest layout reads back as the same float, and parse_float reads Python's repr."""
    for verb in "efg":
        assert float(strconv.format_float(x, verb, -1)) == x
    assert strconv.parse_float(repr(x)) == x


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789_.eEpPxX+-infatyINFATY ")), max_size=12))
def test_parse_float_fails_only_with_go_errors(text: str) -> None:
    """ParseFloat either parses or fails with Go's text."""
    try:
        strconv.parse_float(text)
    except GoError as e:
        assert str(e).startswith(f"strconv.ParseFloat: parsing {strconv.quote(text)}: ")


FIND_ALL = [
    pytest.param(
        "a*",
        "baaac",
        -1,
        ["", "aaa", ""],
        "an empty match right after a match is skipped",
        id="EmptyAfterMatch",
    ),
    pytest.param("a{2}", "aaaaaaaa", 2, ["aa", "aa"], "at most n", id="Limit"),
    pytest.param("x", "abc", -1, None, "no match is nil", id="None"),
    pytest.param("", "ab", -1, ["", "", ""], "the empty pattern matches around each rune", id="EmptyPattern"),
    pytest.param("", "é", -1, ["", ""], "stepping over a rune, not a byte", id="EmptyPatternRune"),
    pytest.param("^a", "aaa", -1, ["a"], "^ anchors at the start of the text only", id="Anchor"),
    pytest.param(
        ".",
        "a\udcffb",
        -1,
        ["a", "\udcff", "b"],
        "an invalid byte matches as U+FFFD and comes back as it was",
        id="InvalidByte",
    ),
]


@pytest.mark.parametrize(("expr", "text", "n", "want", "reason"), FIND_ALL)
def test_find_all_string(expr: str, text: str, n: int, want: list[str] | None, reason: str) -> None:
    """Go's FindAllString."""
    assert regexp.compile(expr).find_all_string(text, n) == want, reason


REPLACE_ALL = [
    pytest.param("a(x*)b", "-ab-axxb-", "$1", "--xx-", "Go's example", id="Group"),
    pytest.param("a(x*)b", "-ab-axxb-", "$1W", "---", "$1W names group 1W", id="NameRunsOn"),
    pytest.param("a(x*)b", "-ab-axxb-", "${1}W", "-W-xxW-", "braces end the name", id="Braces"),
    pytest.param("(?P<n>b)", "abc", "<$n>", "a<b>c", "a named group", id="Named"),
    pytest.param("b", "abc", "$$", "a$c", "$$ is $", id="Dollar"),
    pytest.param("b", "abc", "$", "a$c", "a lone $ stays", id="LoneDollar"),
    pytest.param("b", "abc", "${x", "a${xc", "an unclosed brace stays", id="Unclosed"),
    pytest.param("a*", "baaac", "-", "-b-c-", "empty matches next to matches", id="Empty"),
    pytest.param("x*", "abc", "-", "-a-b-c-", "an empty match everywhere", id="EmptyEverywhere"),
]


@pytest.mark.parametrize(("expr", "text", "repl", "want", "reason"), REPLACE_ALL)
def test_replace_all_string(expr: str, text: str, repl: str, want: str, reason: str) -> None:
    """Go's ReplaceAllString and its template expansion."""
    assert regexp.compile(expr).replace_all_string(text, repl) == want, reason


def test_replace_all_literal() -> None:
    """ReplaceAllLiteralString does not expand."""
    assert regexp.compile("a(x*)b").replace_all_string("-ab-axxb-", "${1}", literal=True) == "-${1}-${1}-"


SPLITS = [
    pytest.param("a", "banana", -1, ["b", "n", "n", ""], id="All"),
    pytest.param("a", "banana", 0, None, id="Zero"),
    pytest.param("a", "banana", 1, ["banana"], id="One"),
    pytest.param("a", "banana", 2, ["b", "nana"], id="Two"),
    pytest.param("z+", "pizza", -1, ["pi", "a"], id="Run"),
    pytest.param("", "abc", -1, ["a", "b", "c"], id="EmptyPattern"),
    pytest.param("x", "", -1, [""], id="EmptyText"),
]


@pytest.mark.parametrize(("expr", "text", "n", "want"), SPLITS)
def test_split(expr: str, text: str, n: int, want: list[str] | None) -> None:
    """Go's Split examples."""
    assert regexp.compile(expr).split(text, n) == want


def test_find_string_and_quote_meta() -> None:
    assert regexp.compile("fo.?").find_string("foo foe") == "foo"
    assert regexp.compile("x").find_string("abc") == ""
    assert regexp.quote_meta(r"1.5-2.0?[a]{b}(c)|d^$\\") == r"1\.5-2\.0\?\[a\]\{b\}\(c\)\|d\^\$\\\\"
    assert regexp.compile("(a)(b)?").find_all_string_submatch("a ab", -1) == [
        ["a", "a", ""],
        ["ab", "a", "b"],
    ]
