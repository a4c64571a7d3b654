"""go-yaml's natural key order, shared by the v2 emitter and yaml.v3: the two differ only after an equal digit."""

from __future__ import annotations

import pytest

from crossfn.gocompat import _yaml_order


@pytest.mark.parametrize(
    ("a", "b", "v2", "v3", "reason"),
    [
        pytest.param("a2", "a10", True, True, "digit runs compare by value", id="DigitsByValue"),
        pytest.param("a10", "a2", False, False, "the larger run sorts after", id="DigitsByValueReversed"),
        pytest.param("_x", "A", True, True, "a non-letter sorts before a letter", id="NonLetterFirst"),
        pytest.param("B", "a", True, True, "two letters compare by code point", id="LettersByCodePoint"),
        pytest.param(
            "a1.5", "a1b", True, False, "after an equal digit v3 puts the letter first", id="AfterDigit"
        ),
        pytest.param(
            "a1b", "a1.5", False, True, "the same pair the other way round", id="AfterDigitReversed"
        ),
        pytest.param(
            "a.5", "ab", True, True, "after a non-digit both put the non-letter first", id="AfterNonDigit"
        ),
        pytest.param("a1", "a01", True, True, "equal values: the shorter run sorts first", id="LeadingZero"),
        pytest.param("10", "100", True, True, "a prefix sorts first", id="Prefix"),
        pytest.param("ab", "ab", False, False, "a key is not less than itself", id="Equal"),
        pytest.param(
            "x\u0663",
            "x4",
            False,
            False,
            "a Unicode digit is a digit but Go takes its value as code point minus '0' (Arabic-Indic three is 1587)",
            id="UnicodeDigit",
        ),
    ],
)
def test_key_order(a: str, b: str, v2: bool, v3: bool, reason: str) -> None:
    assert _yaml_order.v2_less(a, b) is v2, reason
    assert _yaml_order.v3_less(a, b) is v3, reason
