"""Go per-rune case mapping (upstream pt-9 item 16,
upstream pt-6.5) and Go's base64 decoding, with properties."""

from __future__ import annotations

import base64
import contextlib
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crossfn.errors import GoError
from crossfn.gocompat import base64 as gobase64
from crossfn.gocompat import strings

CASES = [
    pytest.param(strings.to_upper, "straße", "STRAßE", "ß has no simple uppercase", id="UpperSharpS"),
    pytest.param(strings.to_upper, "ﬁx", "ﬁX", "ligatures have no simple uppercase", id="UpperLigature"),
    pytest.param(strings.to_lower, "İstanbul", "istanbul", "U+0130 lowers to plain i", id="LowerDottedI"),
    pytest.param(strings.to_lower, "ΣΑΣ", "σασ", "no final-sigma context rule", id="LowerFinalSigma"),
    pytest.param(
        strings.to_upper, "ᾳ", "ᾼ", "ypogegrammeni letters map to their titlecase form", id="UpperGreekIota"
    ),
    pytest.param(strings.to_upper, "ŉ", "ŉ", "ŉ has no simple uppercase", id="UpperNApostrophe"),
    pytest.param(strings.to_upper, "crossplane", "CROSSPLANE", "ASCII", id="UpperASCII"),
    pytest.param(strings.to_lower, "CrossPlane", "crossplane", "ASCII", id="LowerASCII"),
    pytest.param(strings.to_upper, "ǆ", "Ǆ", "digraphs map simply", id="UpperDigraph"),
    pytest.param(strings.to_upper, "a\udce2", "A\ufffd", "an invalid byte becomes U+FFFD", id="InvalidByte"),
]


@pytest.mark.parametrize(("func", "text", "want", "reason"), CASES)
def test_case_mapping(func: object, text: str, want: str, reason: str) -> None:
    assert callable(func)
    assert func(text) == want, reason


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_case_mapping_is_per_rune(text: str) -> None:
    """One rune in, one rune out; each maps as it would alone."""
    for func in (strings.to_upper, strings.to_lower):
        out = func(text)
        assert len(out) == len(text)
        assert out == "".join(func(c) for c in text)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_case_mapping_agrees_with_python_where_simple(text: str) -> None:
    """Where Python's full mapping of a rune is one rune, Go's simple mapping is the same rune."""
    for c, u, lo in zip(text, strings.to_upper(text), strings.to_lower(text), strict=True):
        if len(c.upper()) == 1:
            assert u == c.upper()
        if len(c.lower()) == 1:
            assert lo == c.lower()
        assert unicodedata.category(u) != "Cs"


DECODE = [
    pytest.param("Q3Jvc3NQbGFuZQ==", b"CrossPlane", "padded input", id="Padded"),
    pytest.param("Q3Jv\r\nc3NQbGFuZQ==\n", b"CrossPlane", "CR and LF are skipped anywhere", id="Newlines"),
    pytest.param("", b"", "empty", id="Empty"),
    pytest.param("YQ==", b"a", "two pad characters", id="TwoPads"),
    pytest.param("YWI=", b"ab", "one pad character", id="OnePad"),
]


@pytest.mark.parametrize(("text", "want", "reason"), DECODE)
def test_base64_decode(text: str, want: bytes, reason: str) -> None:
    assert gobase64.std_decode(text) == want, reason


DECODE_ERRORS = [
    pytest.param(
        "ThisStringIsNotBase64",
        20,
        "a trailing lone character (TestStringResolve/ConvertFromBase64Error)",
        id="TrailingChar",
    ),
    pytest.param("YQ", 0, "missing padding is an error at the quantum start", id="MissingPadding"),
    pytest.param("Y!==", 1, "an invalid character", id="InvalidChar"),
    pytest.param("YQ=", 3, "one of two pad characters", id="HalfPadding"),
    pytest.param("YQ==YQ==", 4, "data after padding", id="AfterPadding"),
    pytest.param("=", 0, "padding first", id="PaddingFirst"),
    pytest.param("YWI=x", 4, "trailing garbage after one pad character", id="TrailingGarbage"),
]


@pytest.mark.parametrize(("text", "offset", "reason"), DECODE_ERRORS)
def test_base64_errors(text: str, offset: int, reason: str) -> None:
    with pytest.raises(GoError) as raised:
        gobase64.std_decode(text)
    assert str(raised.value) == f"illegal base64 data at input byte {offset}", reason


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_base64_round_trip(data: bytes) -> None:
    """Go decodes what Python encodes."""
    assert gobase64.std_decode(base64.b64encode(data).decode()) == data


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("QWERTYqwerty0189+/=\r\n!é")), max_size=20) | st.text(max_size=12)
)
def test_base64_agrees_with_python(text: str) -> None:
    """Python's validating decoder as the oracle, once CR/LF are removed.

    Python rejects: Go rejects too. Python accepts canonical input: Go decodes
    the same bytes. Python also accepts surplus padding ("0000="), which Go
    rejects; there only crossfn's error may be raised.
    """
    stripped = text.replace("\r", "").replace("\n", "")
    try:
        want: bytes | None = (
            base64.b64decode(stripped.encode(), validate=True) if stripped.isascii() else None
        )
    except ValueError:
        want = None
    if want is None:
        with pytest.raises(GoError):
            gobase64.std_decode(text)
    elif base64.b64encode(want).decode() == stripped:
        assert gobase64.std_decode(text) == want
    else:
        with contextlib.suppress(GoError):
            gobase64.std_decode(text)
