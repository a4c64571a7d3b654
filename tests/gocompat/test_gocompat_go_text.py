"""Go's unicode, strings, strconv and base32 pieces added for Sprig: rune classes and case mappings,
Title/TrimSpace/Split/Repeat, ParseInt with bases and prefixes, and base32's error offsets."""

from __future__ import annotations

import pytest

from crossfn import errors
from crossfn.gocompat import base32, gofunc, strconv, strings, unicode

RUNES = [
    pytest.param("A", "upper", True, "Lu", id="UpperA"),
    pytest.param("ǅ", "title", True, "Lt is title, not upper", id="TitleDz"),
    pytest.param("ǅ", "upper", False, "Lt is not upper", id="TitleNotUpper"),
    pytest.param(
        "\x1c", "space", False, "U+001C is not White_Space (Python's isspace says yes)", id="FileSeparator"
    ),
    pytest.param("\x85", "space", True, "NEL is", id="NEL"),
    pytest.param("\u3000", "space", True, "ideographic space is", id="IdeographicSpace"),
    pytest.param("٣", "digit", True, "Arabic-Indic digits are Nd", id="ArabicDigit"),
    pytest.param("½", "number", True, "No is a number", id="Fraction"),
    pytest.param("½", "digit", False, "but not a digit", id="FractionNotDigit"),
    pytest.param("-", "punct", True, "Pd", id="Dash"),
    pytest.param("\udcff", "letter", False, "an invalid byte is RuneError, a symbol", id="Invalid"),
]


@pytest.mark.parametrize(("rune", "predicate", "want", "reason"), RUNES)
def test_rune_classes(rune: str, predicate: str, want: bool, reason: str) -> None:
    assert getattr(unicode, f"is_{predicate}")(rune) is want, reason


def test_case_mappings() -> None:
    """Simple mappings: ß has no single upper case, ǆ's title is ǅ, İ lowers to i."""
    assert unicode.to_upper("ß") == "ß"
    assert unicode.to_title("ǆ") == "ǅ"
    assert unicode.to_upper("ǆ") == "Ǆ"
    assert unicode.to_lower("İ") == "i"
    assert unicode.to_title("ﬁ") == "ﬁ"
    assert unicode.to_upper("\udc80") == "\ufffd"


def test_strings() -> None:
    """strings.Title, TrimSpace, Split, SplitN and Repeat as Go has them."""
    assert strings.title("hello wOrld-x_y ǆz") == "Hello WOrld-X_y ǅz"
    assert strings.trim_space("\t\u2028 x \x85") == "x"
    assert strings.split("a\udcffb", "") == ["a", "\udcff", "b"]
    assert strings.split("", "") == []
    assert strings.split_n("a,b,c", ",", 0) is None
    assert strings.split_n("abc", "", 2) == ["a", "bc"]
    assert strings.repeat("ab", 2) == "abab"
    with pytest.raises(gofunc.Panic) as negative:
        strings.repeat("x", -1)
    assert str(negative.value) == "strings: negative Repeat count"
    with pytest.raises(gofunc.Panic) as overflow:
        strings.repeat("xx", 1 << 62)
    assert str(overflow.value) == "strings: Repeat output length overflow"


PARSE_INTS = [
    pytest.param("0x1F", 0, 31, id="Hex"),
    pytest.param("0o17", 0, 15, id="Octal"),
    pytest.param("017", 0, 15, id="LeadingZeroOctal"),
    pytest.param("0b101", 0, 5, id="Binary"),
    pytest.param("1_000", 0, 1000, id="Underscores"),
    pytest.param("-9223372036854775808", 10, -(1 << 63), id="Min"),
    pytest.param("777", 8, 511, id="Base8"),
    pytest.param("zz", 36, 1295, id="Base36"),
]


@pytest.mark.parametrize(("text", "base", "want"), PARSE_INTS)
def test_parse_int_base(text: str, base: int, want: int) -> None:
    """strconv.ParseInt with a base, 0 reading Go's prefixes."""
    assert strconv.parse_int_base(text, base) == want


PARSE_INT_ERRORS = [
    pytest.param("08", 0, 'strconv.ParseInt: parsing "08": invalid syntax', id="BadOctal"),
    pytest.param("0x", 0, 'strconv.ParseInt: parsing "0x": invalid syntax', id="BarePrefix"),
    pytest.param("1__0", 0, 'strconv.ParseInt: parsing "1__0": invalid syntax', id="DoubleUnderscore"),
    pytest.param("1_0", 10, 'strconv.ParseInt: parsing "1_0": invalid syntax', id="UnderscoreBase10"),
    pytest.param(
        "9223372036854775808",
        10,
        'strconv.ParseInt: parsing "9223372036854775808": value out of range',
        id="Range",
    ),
    pytest.param("", 10, 'strconv.ParseInt: parsing "": invalid syntax', id="Empty"),
    pytest.param("1", 1, 'strconv.ParseInt: parsing "1": invalid base 1', id="Base"),
]


@pytest.mark.parametrize(("text", "base", "message"), PARSE_INT_ERRORS)
def test_parse_int_base_errors(text: str, base: int, message: str) -> None:
    with pytest.raises(errors.GoError) as raised:
        strconv.parse_int_base(text, base)
    assert str(raised.value) == message


def test_parse_uint_and_format_int() -> None:
    assert strconv.parse_uint("18446744073709551615", 10) == (1 << 64) - 1
    with pytest.raises(errors.GoError) as raised:
        strconv.parse_uint("18446744073709551616", 10)
    assert str(raised.value) == 'strconv.ParseUint: parsing "18446744073709551616": value out of range'
    assert strconv.format_int(-255, 16) == "-ff"
    assert strconv.format_int(0, 2) == "0"


BASE32 = [
    pytest.param(b"", "", id="Empty"),
    pytest.param(b"f", "MY======", id="One"),
    pytest.param(b"fo", "MZXQ====", id="Two"),
    pytest.param(b"foo", "MZXW6===", id="Three"),
    pytest.param(b"foob", "MZXW6YQ=", id="Four"),
    pytest.param(b"fooba", "MZXW6YTB", id="Five"),
    pytest.param(b"foobar", "MZXW6YTBOI======", id="Six"),
]


@pytest.mark.parametrize(("raw", "encoded"), BASE32)
def test_base32(raw: bytes, encoded: str) -> None:
    """RFC 4648's vectors, both ways; newlines are skipped."""
    assert base32.std_encode(raw) == encoded
    assert base32.std_decode(encoded) == raw
    assert base32.std_decode(encoded[:4] + "\r\n" + encoded[4:]) == raw


BASE32_ERRORS = [
    pytest.param("MZXW6", 0, "missing padding: the offset is where the quantum began", id="NoPadding"),
    pytest.param("M=======", 1, "one character is not a valid length", id="BadLength"),
    pytest.param("MZXW6YQ!", 7, "a character outside the alphabet", id="BadChar"),
    pytest.param("MZ=====", 7, "not enough padding", id="ShortPadding"),
    pytest.param("MZ===x==", 4, "padding interrupted", id="BadPadding"),
    pytest.param("mzxw6===", 0, "lower case is not the standard alphabet", id="LowerCase"),
]


@pytest.mark.parametrize(("text", "offset", "reason"), BASE32_ERRORS)
def test_base32_errors(text: str, offset: int, reason: str) -> None:
    with pytest.raises(errors.GoError) as raised:
        base32.std_decode(text)
    assert str(raised.value) == f"illegal base32 data at input byte {offset}", reason
