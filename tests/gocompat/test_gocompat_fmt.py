"""Go ``fmt.Sprintf`` emulation: the verified table of
upstream pt-6.7, the float ``%v`` rule, and properties."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crossfn.errors import CrossfnError
from crossfn.gocompat import fmt, time, values
from crossfn.gocompat.sprig import Certificate
from crossfn.gocompat.values import GoInt

LIST = ["a", 1, 2.5, None, True]
MAP = {"a": "x", "b": 1.0}


def row(verb: str, value: Any, want: str, reason: str, name: str) -> Any:
    return pytest.param(verb, value, want, reason, id=name)


# upstream pt-6.7, the verified table (Go 1.19 experiments), one row per cell.
TABLE = [
    row("%s", "thing", "thing", "a string prints itself", "SString"),
    row("%s", 8, "%!s(int64=8)", "%s is a bad verb for int64", "SInt64"),
    row("%s", 8.0, "%!s(float64=8)", "%s is a bad verb for float64", "SFloat"),
    row("%s", 8.5, "%!s(float64=8.5)", "the bad-verb value prints with %v", "SFloatFraction"),
    row("%s", True, "%!s(bool=true)", "%s is a bad verb for bool", "SBool"),
    row("%s", None, "%!s(<nil>)", "a nil argument has no type", "SNil"),
    row(
        "%s",
        LIST,
        "[a %!s(int64=1) %!s(float64=2.5) <nil> %!s(bool=true)]",
        "lists apply the verb elementwise",
        "SList",
    ),
    row("%s", MAP, "map[a:x b:%!s(float64=1)]", "maps apply the verb to keys and values", "SMap"),
    row("%v", "thing", "thing", "%v of a string", "VString"),
    row("%v", 8, "8", "%v of an int64", "VInt64"),
    row("%v", 8.0, "8", "%v of an integral float has no fraction", "VFloat"),
    row("%v", 8.5, "8.5", "%v of a fraction", "VFloatFraction"),
    row("%v", True, "true", "%v of a bool", "VBool"),
    row("%v", None, "<nil>", "%v of nil", "VNil"),
    row("%v", LIST, "[a 1 2.5 <nil> true]", "%v of a list", "VList"),
    row("%v", MAP, "map[a:x b:1]", "%v of a map", "VMap"),
    row("%d", "thing", "%!d(string=thing)", "%d is a bad verb for strings", "DString"),
    row("%d", 8, "8", "%d of an int64", "DInt64"),
    row("%d", 8.0, "%!d(float64=8)", "%d is a bad verb for float64 (upstream pt-9 item 1)", "DFloat"),
    row("%d", 8.5, "%!d(float64=8.5)", "%d on a fraction", "DFloatFraction"),
    row("%d", True, "%!d(bool=true)", "%d on a bool", "DBool"),
    row("%d", None, "%!d(<nil>)", "%d on nil", "DNil"),
    row(
        "%d",
        LIST,
        "[%!d(string=a) 1 %!d(float64=2.5) <nil> %!d(bool=true)]",
        "nil inside a list is <nil>",
        "DList",
    ),
    row(
        "%d",
        MAP,
        "map[%!d(string=a):%!d(string=x) %!d(string=b):%!d(float64=1)]",
        "keys get the verb too",
        "DMap",
    ),
    row("%f", "thing", "%!f(string=thing)", "%f on a string", "FString"),
    row("%f", 8, "%!f(int64=8)", "%f on an int64", "FInt64"),
    row("%f", 8.0, "8.000000", "%f has six decimals", "FFloat"),
    row("%f", 8.5, "8.500000", "%f of a fraction", "FFloatFraction"),
    row("%f", True, "%!f(bool=true)", "%f on a bool", "FBool"),
    row("%f", None, "%!f(<nil>)", "%f on nil", "FNil"),
    row("%.2f", "thing", "%!f(string=th)", "precision applies to the bad-verb value", "PrecFString"),
    row("%.2f", 8, "%!f(int64=08)", "precision is minimum digits for the int64", "PrecFInt64"),
    row("%.2f", 8.0, "8.00", "two decimals", "PrecFFloat"),
    row("%.2f", 8.5, "8.50", "two decimals of a fraction", "PrecFFloatFraction"),
    row("%.2f", True, "%!f(bool=true)", "bool ignores precision", "PrecFBool"),
    row("%.2f", None, "%!f(<nil>)", "nil ignores precision", "PrecFNil"),
    row("%q", "thing", '"thing"', "%q quotes a string", "QString"),
    row("%q", 8, "'\\b'", "%q of an integer is a rune literal", "QInt64"),
    row("%q", 8.0, "%!q(float64=8)", "%q on a float", "QFloat"),
    row("%q", True, "%!q(bool=true)", "%q on a bool", "QBool"),
    row("%q", None, "%!q(<nil>)", "%q on nil", "QNil"),
    row("%t", "thing", "%!t(string=thing)", "%t on a string", "TString"),
    row("%t", 8, "%!t(int64=8)", "%t on an int64", "TInt64"),
    row("%t", 8.0, "%!t(float64=8)", "%t on a float", "TFloat"),
    row("%t", True, "true", "%t of a bool", "TBool"),
    row("%t", None, "%!t(<nil>)", "%t on nil", "TNil"),
    row("%x", "thing", "7468696e67", "%x of a string is hex bytes", "XString"),
    row("%x", 8, "8", "%x of an int64", "XInt64"),
    row("%x", 8.0, "0x1p+03", "%x of a float is a hex float", "XFloat"),
    row("%x", 8.5, "0x1.1p+03", "hex float with a fraction", "XFloatFraction"),
    row("%x", True, "%!x(bool=true)", "%x on a bool", "XBool"),
    row("%x", None, "%!x(<nil>)", "%x on nil", "XNil"),
    row("%g", "thing", "%!g(string=thing)", "%g on a string", "GString"),
    row("%g", 8, "%!g(int64=8)", "%g on an int64", "GInt64"),
    row("%g", 8.0, "8", "%g of a float", "GFloat"),
    row("%g", 8.5, "8.5", "%g of a fraction", "GFloatFraction"),
    row("%e", 8, "%!e(int64=8)", "%e on an int64", "EInt64"),
    row("%e", 8.0, "8.000000e+00", "%e has six decimals and a two-digit exponent", "EFloat"),
    row("%e", 8.5, "8.500000e+00", "%e of a fraction", "EFloatFraction"),
    row("%T", "thing", "string", "type names", "TypeString"),
    row("%T", 8, "int64", "int64", "TypeInt64"),
    row("%T", 8.0, "float64", "float64", "TypeFloat"),
    row("%T", True, "bool", "bool", "TypeBool"),
    row("%T", None, "<nil>", "nil", "TypeNil"),
    row("%T", LIST, "[]interface {}", "lists", "TypeList"),
    row("%T", MAP, "map[string]interface {}", "maps", "TypeMap"),
    row("%T", GoInt(1), "int", "Go's platform int keeps its name", "TypeGoInt"),
    # The rules below the table.
    row("%5s", 8, "%!s(int64=    8)", "width applies to the bad-verb value", "BadVerbKeepsWidth"),
    row("%5s", "thing", "thing", "width narrower than the text", "WidthNarrow"),
    row("%-5s|", "thing", "thing|", "left-justified", "WidthLeft"),
    row("%05d", 8, "00008", "zero padding", "ZeroPad"),
    row("%05d", -3, "-0003", "zero padding after the sign", "ZeroPadNegative"),
    row("%+d", 8, "+8", "plus flag", "PlusFlag"),
    row("% d", 8, " 8", "space flag", "SpaceFlag"),
    row("%10v|", 8, "         8|", "width on %v", "WidthV"),
    row("%.3s", "thing", "thi", "precision truncates strings", "PrecisionString"),
    row("%X", "thing", "7468696E67", "upper-case hex", "UpperHexString"),
    row("%o", 8, "10", "octal", "Octal"),
    row("%b", 8, "1000", "binary", "Binary"),
    row("%z", "thing", "%!z(string=thing)", "unknown verb", "UnknownVerb"),
    row("%[1]s", "thing", "thing", "explicit index", "ExplicitIndex"),
    row(
        "%[2]s",
        "thing",
        "%!s(BADINDEX)",
        "an index out of range; reordered calls never report EXTRA",
        "BadIndex",
    ),
    row("%", "thing", "%!(NOVERB)%!(EXTRA string=thing)", "a lone trailing %", "NoVerb"),
    row("%%", "thing", "%%!(EXTRA string=thing)", "%% is a literal %, absorbing no argument", "Percent"),
    row("none", "thing", "none%!(EXTRA string=thing)", "an unused argument", "Extra"),
    row("%s-%s", "x", "x-%!s(MISSING)", "a missing argument", "Missing"),
    row("%6.2f|", 3.14159, "  3.14|", "width and precision", "WidthPrecisionFloat"),
    row("%+.1e", 12345.0, "+1.2e+04", "plus and precision on %e", "PlusExp"),
    row("%08.3f", -3.5, "-003.500", "zero padding keeps the sign first", "ZeroPadFloat"),
    row("%v", math.inf, "+Inf", "infinity prints with its sign", "Inf"),
    row("%5.1f|", math.nan, "  NaN|", "NaN is padded with spaces, never zeros", "NaN"),
    row("%c", 65, "A", "%c of an integer", "Char"),
    row("%03c|", 65, "00A|", "%c honours zero padding", "CharZeroPad"),
    row("%-5q|", 65, "'A'  |", "%q of a rune pads like text", "RuneQuotePad"),
    row("%c", -1, "\ufffd", "an invalid rune prints U+FFFD", "CharInvalid"),
    row("%05t", True, "0true", "booleans pad with zeros too", "BoolZeroPad"),
    row("%06U", 65, "U+0041", "%U never pads with zeros", "UnicodeNoZeroPad"),
    row("%U", 0x1F600, "U+1F600", "%U", "Unicode"),
    row("%#U", 65, "U+0041 'A'", "%#U adds the character", "UnicodeSharp"),
    row("%#x", 255, "0xff", "# adds 0x", "SharpHex"),
    row("%#o", 8, "010", "# adds a leading 0", "SharpOctal"),
    row("%#q", "thing", "`thing`", "# backquotes when possible", "SharpQ"),
    row("%+q", "é", '"\\u00e9"', "+ quotes to ASCII", "PlusQ"),
    row("% x", "ab", "61 62", "space separates bytes", "SpaceHex"),
    row("%#v", LIST, '[]interface {}{"a", 1, 2.5, interface {}(nil), true}', "Go syntax", "GoSyntaxList"),
    row("%#v", MAP, 'map[string]interface {}{"a":"x", "b":1}', "Go syntax for maps", "GoSyntaxMap"),
    row("%+v", 8, "8", "%+v only names struct fields; no sign", "PlusV"),
    row("%+s", 8, "%!s(int64=+8)", "the bad-verb value keeps the flags", "BadVerbKeepsPlus"),
    row("%w", "thing", "%!w(string=thing)", "%w is only for Errorf", "WrapVerb"),
    row("%p", "thing", "%!p(string=thing)", "no pointers", "PointerVerb"),
    row("%.0d", 0, "", "zero precision and zero value print nothing", "ZeroPrecisionZero"),
    row("%v", {"b": 1, "a": 2, "B": 3}, "map[B:3 a:2 b:1]", "keys sorted by bytes", "SortedKeys"),
    row("%v", [], "[]", "empty list", "EmptyList"),
    row("%q", "a\udce2", '"a\\xe2"', "%q shows an invalid byte as \\x", "QuoteInvalidByte"),
    row("%x", "\udce2\u00e9", "e2c3a9", "%x shows the raw bytes", "HexInvalidByte"),
    row("%5s|", "a\udce2", "   a\udce2|", "an invalid byte counts as one rune for padding", "PadInvalidByte"),
    row("%v", {}, "map[]", "empty map", "EmptyMap"),
]


@pytest.mark.parametrize(("verb", "value", "want", "reason"), TABLE)
def test_sprintf_table(verb: str, value: Any, want: str, reason: str) -> None:
    assert fmt.sprintf(verb, value) == want, reason


FLOAT_V = [
    (100.0, "100"),
    (100000.0, "100000"),
    (123456.0, "123456"),
    (1000000.0, "1e+06"),
    (1234567.0, "1.234567e+06"),
    (1500000.0, "1.5e+06"),
    (123456789.0, "1.23456789e+08"),
    (1e20, "1e+20"),
    (12345.678, "12345.678"),
    (0.0001, "0.0001"),
    (0.00025, "0.00025"),
    (0.00001, "1e-05"),
    (3e-5, "3e-05"),
    (-1e6, "-1e+06"),
    (0.0, "0"),
    (-0.0, "-0"),
    (1.5e300, "1.5e+300"),
    (5e-324, "5e-324"),
]


@pytest.mark.parametrize(("value", "want"), FLOAT_V, ids=[w for _, w in FLOAT_V])
def test_float_v(value: float, want: str) -> None:
    """float64 %v: shortest digits, plain iff -4 <= exponent < 6 (upstream pt-6.7 [exp])."""
    assert fmt.sprint(value) == want


ARGS = [
    pytest.param("%[2]s %[1]s", ("a", "b"), "b a", "indexes reorder", id="Reorder"),
    pytest.param("%[2]s", ("a", "b"), "b", "reordered calls never report EXTRA", id="ReorderNoExtra"),
    pytest.param("%*d|", (5, 8), "    8|", "width from an argument", id="StarWidth"),
    pytest.param(
        "%-*d|", (-5, 8), "8    |", "a negative width argument left-justifies", id="NegativeStarWidth"
    ),
    pytest.param("%*d", ("x", 8), "%!(BADWIDTH)8", "a width argument must be an int", id="BadWidth"),
    pytest.param("%.*f", (-1, 1.0), "%!(BADPREC)1.000000", "a negative precision is bad", id="BadPrec"),
    pytest.param("%s %s", (None, None), "%!s(<nil>) %!s(<nil>)", "nil arguments", id="NilArgs"),
    pytest.param("x", (None,), "x%!(EXTRA <nil>)", "an extra nil argument", id="ExtraNil"),
    pytest.param("%[0]d", (1,), "%!d(BADINDEX)", "indexes are one-based", id="ZeroIndex"),
    pytest.param("%[x]d", (1,), "%!d(BADINDEX)", "an index must be a number", id="NonNumericIndex"),
]


@pytest.mark.parametrize(("format_", "args", "want", "reason"), ARGS)
def test_sprintf_arguments(format_: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    assert fmt.sprintf(format_, *args) == want, reason


PLAIN = [
    pytest.param("tier-%s", ("gold",), "tier-gold", "one bare %s and a string", id="PlainOne"),
    pytest.param("%s/%v", ("eu", "gold"), "eu/gold", "bare %s and %v with strings", id="PlainTwo"),
    pytest.param("no verbs", (), "no verbs", "no directive, no operand", id="PlainNone"),
    pytest.param("%sv%ss", ("a", "b"), "avbs", "text right after a verb is text", id="PlainAdjacent"),
    pytest.param("%s", ("%d",), "%d", "an operand is never parsed as a format", id="PlainPercentOperand"),
    pytest.param("%s%%", ("a",), "a%", "%% takes the full printer", id="PlainLiteralPercent"),
    pytest.param("%s", ("a", "b"), "a%!(EXTRA string=b)", "an extra operand is reported", id="PlainExtra"),
    pytest.param("%s %s", ("a",), "a %!s(MISSING)", "a missing operand is reported", id="PlainMissing"),
    pytest.param("%s", (1,), "%!s(int64=1)", "a non-string operand takes the full printer", id="PlainInt"),
    pytest.param("%5s|", ("a",), "    a|", "a width takes the full printer", id="PlainWidth"),
    pytest.param("%q", ("a",), '"a"', "another verb takes the full printer", id="PlainQuote"),
    pytest.param(
        "%s", ("bad\udcff",), "bad\udcff", "a string's bytes are printed as they are", id="PlainBytes"
    ),
]


@pytest.mark.parametrize(("format_", "args", "want", "reason"), PLAIN)
def test_sprintf_plain_strings(format_: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    """Bare %s/%v directives with string operands print the strings (the printer's shortcut)."""
    assert fmt.sprintf(format_, *args) == want, reason


def _full_printer(format_: str, args: tuple[Any, ...]) -> str:
    p = fmt._Printer()
    p.printf(format_, args)
    return "".join(p.buf)


@settings(max_examples=400, deadline=None)
@given(
    format_=st.text(alphabet=st.sampled_from(list("%sv-/ xd5é")), max_size=16),
    args=st.lists(st.text(max_size=4) | st.integers(-3, 3), max_size=3),
)
def test_sprintf_shortcut_is_the_printer(format_: str, args: list[Any]) -> None:
    """Whatever takes the shortcut prints what Go's full printer prints."""
    assert fmt.sprintf(format_, *args) == _full_printer(format_, tuple(args))


go_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.integers(-(2**63), 2**63 - 1).map(GoInt)
    | st.floats()
    | st.text()
)
go_values = st.recursive(
    go_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
format_strings = st.text(
    alphabet=st.sampled_from(list("%#0+- .*[]123456789vsdqxXobeEfFgGtTcUpwz!é")), max_size=24
)


@settings(max_examples=400, deadline=None)
@given(format_=format_strings | st.text(max_size=24), args=st.lists(go_values, max_size=3))
def test_sprintf_never_raises(format_: str, args: list[Any]) -> None:
    """Any format with any Go values gives text; Go's fmt never fails, it reports in-band."""
    try:
        out = fmt.sprintf(format_, *args)
    except CrossfnError:  # pragma: no cover - fmt has no error path; the property allows only ours
        return
    assert isinstance(out, str)


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_v_round_trips(x: float) -> None:
    """%v prints the shortest digits that read back as the same float."""
    assert float(fmt.sprint(x)) == x


@settings(max_examples=300, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1), st.integers(0, 30))
def test_zero_padded_width(n: int, width: int) -> None:
    """%0Nd pads to at least N characters and keeps the value."""
    out = fmt.sprintf(f"%0{width}d", n)
    assert len(out) == max(width, len(str(n)))
    assert int(out) == n


NAMED = [
    pytest.param(
        "%v",
        values.GoSlice(["a", "b"], elem="string"),
        "[a b]",
        "a []string prints as any slice",
        id="TypedSlice",
    ),
    pytest.param(
        "%#v",
        values.GoSlice(["a"], elem="string"),
        '[]string{"a"}',
        "with its type in Go syntax",
        id="TypedSliceSharp",
    ),
    pytest.param(
        "%#v", values.GoSlice(nil=True), "[]interface {}(nil)", "a nil slice in Go syntax", id="NilSlice"
    ),
    pytest.param("%v", values.GoSlice(nil=True), "[]", "a nil slice prints as empty", id="NilSliceV"),
    pytest.param(
        "%#v",
        values.GoMap({"a": "b"}, elem="string"),
        'map[string]string{"a":"b"}',
        "a typed map",
        id="TypedMap",
    ),
    pytest.param("%T", values.GoMap({}, elem="string"), "map[string]string", "its type", id="TypedMapT"),
    pytest.param("%v", time.Month(3), "March", "a Stringer prints its String()", id="Stringer"),
    pytest.param("%d", time.Month(3), "3", "but %d prints the number", id="StringerD"),
    pytest.param("%q", time.Month(3), '"March"', "%q quotes the String()", id="StringerQ"),
    pytest.param("%v", [time.Month(1)], "[January]", "inside a list too", id="StringerNested"),
    pytest.param("%v", Certificate("c", "k"), "{c k}", "a struct's fields", id="Struct"),
    pytest.param("%+v", Certificate("c", "k"), "{Cert:c Key:k}", "with names", id="StructPlus"),
    pytest.param("%T", time.Duration(1), "time.Duration", "a named type's name", id="NamedT"),
    pytest.param("%v", values.GoUint64(7), "7", "a uint64", id="Uint64"),
    pytest.param("%T", values.GoUint64(7), "uint64", "its type", id="Uint64T"),
]


@pytest.mark.parametrize(("verb", "value", "want", "reason"), NAMED)
def test_named_and_typed_values(verb: str, value: object, want: str, reason: str) -> None:
    """Typed slices and maps, Stringers, structs: what Sprig's results print as."""
    assert fmt.sprintf(verb, value) == want, reason
