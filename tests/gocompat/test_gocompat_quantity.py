"""Kubernetes quantity parsing and AsApproximateFloat64 (upstream pt-6.9), with properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crossfn.errors import GoError
from crossfn.gocompat import quantity

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

PARSE = [
    pytest.param("1000m", 1.0, "milli", id="Milli"),
    pytest.param("1Ki", 1024.0, "binary SI", id="Kibi"),
    pytest.param("1.5Gi", 1610612736.0, "a binary fraction takes the decimal path", id="FractionalGibi"),
    pytest.param("100M", 1e8, "decimal SI", id="Mega"),
    pytest.param("1e3", 1000.0, "decimal exponent", id="Exponent"),
    pytest.param("0", 0.0, "the special case", id="Zero"),
    pytest.param("-", 0.0, "a bare sign is zero in Kubernetes", id="BareSign"),
    pytest.param("1.", 1.0, "1. is accepted", id="TrailingPoint"),
    pytest.param(".5", 0.5, "a leading point is accepted", id="LeadingPoint"),
    pytest.param("007", 7.0, "leading zeros are ignored", id="LeadingZeros"),
    pytest.param("-1.5k", -1500.0, "negative", id="Negative"),
    pytest.param("1.G", 1e9, "1.G is accepted", id="PointSuffix"),
    pytest.param("0.1n", 1e-9, "below 1n rounds up to 1n", id="RoundUpToNano"),
    pytest.param("1e-20", 1e-9, "tiny values round up to 1n", id="TinyRoundsUp"),
    pytest.param("1.5n", 2e-9, "fractions of 1n round up", id="NanoFractionRoundsUp"),
    pytest.param("16Ei", 9.223372036854776e18, "binary SI is capped at 2^63-1", id="BinaryCap"),
    pytest.param("250u", 0.00025, "micro", id="Micro"),
    pytest.param("1E", 1e18, "exa", id="Exa"),
    pytest.param("+2Mi", 2097152.0, "explicit plus", id="Plus"),
    pytest.param(
        "119627332Mi",
        125438349279232.02,
        "too many digits for the int64 path: the amount is rounded "
        "to scale 9 and multiplied by Go's Pow10(-9), which is approximate",
        id="ApproximateBinary",
    ),
]


@pytest.mark.parametrize(("text", "want", "reason"), PARSE)
def test_parse(text: str, want: float, reason: str) -> None:
    assert quantity.parse(text).approximate_float() == want, reason


ERRORS = [
    pytest.param("", FORMAT_ERROR, "empty", id="Empty"),
    pytest.param("1000 blabla", FORMAT_ERROR, "a space", id="Space"),
    pytest.param("1.5.5", FORMAT_ERROR, "two points", id="TwoPoints"),
    pytest.param("abc", FORMAT_ERROR, "no number", id="Letters"),
    pytest.param("1ki", "unable to parse quantity's suffix", "suffixes are case-sensitive", id="BadSuffix"),
    pytest.param("1e", "unable to parse quantity's suffix", "an exponent needs digits", id="BareExponent"),
    pytest.param(
        "1Mi5", "unable to parse quantity's suffix", "digits after a binary suffix", id="DigitsAfterSuffix"
    ),
]


@pytest.mark.parametrize(("text", "want", "reason"), ERRORS)
def test_parse_errors(text: str, want: str, reason: str) -> None:
    with pytest.raises(GoError) as raised:
        quantity.parse(text)
    assert str(raised.value) == want, reason


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("0123456789.+-eEinumkKMGTP x")), max_size=14) | st.text(max_size=10)
)
def test_parse_fails_only_with_go_errors(text: str) -> None:
    """Any text parses or fails with one of Kubernetes' three messages."""
    try:
        q = quantity.parse(text)
    except GoError as e:
        assert str(e) in (
            FORMAT_ERROR,
            "unable to parse numeric part of quantity",
            "unable to parse quantity's suffix",
        )
        return
    assert isinstance(q.approximate_float(), float)


@settings(max_examples=300, deadline=None)
@given(st.integers(-(10**15), 10**15), st.sampled_from(["", "k", "M", "G", "Ki", "Mi", "Gi"]))
def test_integers_with_suffix(n: int, suffix: str) -> None:
    """An integer with an SI suffix is n times the suffix's factor, up to the float approximation."""
    factor = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}[suffix]
    want = n * factor
    if suffix.endswith("i") and abs(want) > 2**63 - 1:
        want = (2**63 - 1) * (1 if want > 0 else -1)
    assert math.isclose(
        quantity.parse(f"{n}{suffix}").approximate_float(), float(want), rel_tol=1e-15, abs_tol=0
    )


CANONICAL = [
    pytest.param("1.5", "1500m", "Kubernetes' documented example", id="DecimalFraction"),
    pytest.param("1.5Gi", "1536Mi", "Kubernetes' documented example", id="BinaryFraction"),
    pytest.param("1024Ki", "1Mi", "the largest binary suffix", id="BinaryPromote"),
    pytest.param("0.5Gi", "512Mi", "binary fractions that are whole", id="BinaryHalf"),
    pytest.param("1000", "1k", "the largest decimal suffix", id="DecimalPromote"),
    pytest.param("12e2", "1200", "exponents are multiples of three", id="ExponentMultipleOfThree"),
    pytest.param("1000e3", "1e6", "exponent form keeps its family", id="ExponentForm"),
    pytest.param(
        "1.5e-3", "1500e-6", "negative exponents round down to a multiple of three", id="NegativeExponent"
    ),
    pytest.param("0.1n", "1n", "rounded up to 1n", id="RoundedUp"),
    pytest.param("-1.5Ki", "-1536", "no binary suffix divides it", id="NegativeBinary"),
    pytest.param(
        "1.1Ki", "1126400m", "a binary value that is not whole shows as decimal", id="BinaryNotWhole"
    ),
    pytest.param("0.5Ki", "512", "binary below 1024 shows as decimal", id="SmallBinary"),
    pytest.param("100m", "100m", "canonical text is kept", id="KeptText"),
    pytest.param("+1Ki", "+1Ki", "kept text keeps even its plus sign", id="KeptPlus"),
    pytest.param("-", "0", "zero", id="Zero"),
    pytest.param("8Ei", "9223372036854775807", "the capped value has no binary suffix", id="Capped"),
    pytest.param(
        "1000E",
        "1",
        "past E there is no DecimalSI suffix; Kubernetes prints the mantissa alone",
        id="PastExa",
    ),
]


@pytest.mark.parametrize(("text", "want", "reason"), CANONICAL)
def test_canonical_string(text: str, want: str, reason: str) -> None:
    assert str(quantity.parse(text)) == want, reason


@settings(max_examples=300, deadline=None)
@given(st.integers(-(10**9), 10**9), st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "e3", "e-2"]))
def test_canonical_string_parses_to_the_same_value(n: int, suffix: str) -> None:
    """The canonical text is a quantity of exactly the same value (below 1e21, where suffixes run out)."""
    q = quantity.parse(f"{n}{suffix}")
    again = quantity.parse(str(q))
    assert again.unscaled * 10 ** (again.exponent + 30) == q.unscaled * 10 ** (q.exponent + 30)


BOUNDED = [
    pytest.param(
        "1e-999999999",
        1e-9,
        "a sub-nano exponent rounds up to 1n without building 10^999999990",
        id="SubNanoExponent",
    ),
    pytest.param(
        "-1e-2147483647", -1e-9, "the smallest exponent Kubernetes accepts, negative", id="MinExponent"
    ),
    pytest.param(
        "0e-2147483647", 0.0, "zero is never rounded up, whatever the exponent", id="ZeroTinyExponent"
    ),
    pytest.param(
        "1000000000000000000001e-30",
        2e-9,
        "a long mantissa reaches the rounding: 1.000..1n is 2n",
        id="LongMantissaRoundsUp",
    ),
    pytest.param("0.00000000000000000000001Ki", 1e-9, "a binary amount below 1n is 1n", id="TinyBinary"),
    pytest.param(
        "0.0000000001Ki",
        1.03e-7,
        "binary amounts are multiplied before they are rounded",
        id="BinaryThenRounded",
    ),
    pytest.param(
        "9" * 5000, math.inf, "5,000 digits: an amount no float holds, answered at once", id="ManyDigits"
    ),
    pytest.param(
        "0." + "0" * 100_000 + "1", 1e-9, "100,000 fraction digits round up to 1n", id="LongFraction"
    ),
    pytest.param(
        "1" * 100_000 + "Ki", 9.223372036854776e18, "a huge binary amount is capped", id="HugeBinary"
    ),
    pytest.param("1e2147483647", math.inf, "the largest exponent Kubernetes accepts", id="MaxExponent"),
]


@pytest.mark.parametrize(("text", "want", "reason"), BOUNDED)
def test_parse_is_bounded(text: str, want: float, reason: str) -> None:
    """Exponents and digit counts that once took hours answer Kubernetes' value at once."""
    assert quantity.parse(text).approximate_float() == pytest.approx(want, rel=1e-12), reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param("1e4294967297", "2^32+1 once wrapped to 1e1", id="WrapsInt32"),
        pytest.param("1e-2147483648", "-2^31 cannot be negated into a scale", id="MinInt32"),
        pytest.param("1e" + "9" * 5000, "5,000 exponent digits", id="LongExponent"),
    ],
)
def test_exponents_outside_int32_are_refused(text: str, reason: str) -> None:
    """Kubernetes refuses a decimal exponent outside ±(2^31-1) with its suffix error."""
    with pytest.raises(GoError) as raised:
        quantity.parse(text)
    assert str(raised.value) == "unable to parse quantity's suffix", reason
