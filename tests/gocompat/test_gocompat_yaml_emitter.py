"""The one Go YAML emitter writes what sigs.k8s.io/yaml (go-yaml v2) writes.

Expected texts are go-yaml v2.4 output for the same data (the JSON round trip
``crossplane render`` and other Kubernetes tools do).
"""

from __future__ import annotations

from typing import Any

import hypothesis
import pytest
from hypothesis import strategies as st

from crossfn.gocompat import yaml_emitter, yaml_loader


@pytest.mark.parametrize(
    ("value", "want", "reason"),
    [
        pytest.param("True", '"True"', "YAML 1.1 booleans are quoted", id="BoolWordTrue"),
        pytest.param("False", '"False"', "condition statuses come out quoted", id="BoolWordFalse"),
        pytest.param("y", '"y"', "go-yaml v2 reads y as a boolean", id="BoolWordY"),
        pytest.param("off", '"off"', "on/off are booleans in YAML 1.1", id="BoolWordOff"),
        pytest.param("null", '"null"', "null words are quoted", id="NullWord"),
        pytest.param("~", '"~"', "the tilde is null", id="Tilde"),
        pytest.param("", '""', "the empty string would read as null", id="Empty"),
        pytest.param(
            "2024-01-01T00:00:00Z", '"2024-01-01T00:00:00Z"', "RFC 3339 times are timestamps", id="Timestamp"
        ),
        pytest.param("2024-1-2", '"2024-1-2"', "short date fields are timestamps too", id="ShortDate"),
        pytest.param("2024-02-30", "2024-02-30", "an impossible date is a plain string", id="BadDate"),
        pytest.param("2024-01-01 10:00:00", '"2024-01-01 10:00:00"', "space-separated times", id="SpaceTime"),
        pytest.param("123", '"123"', "digits are an int", id="IntString"),
        pytest.param("1_000", '"1_000"', "underscores are dropped before parsing", id="Underscores"),
        pytest.param("0x1F", '"0x1F"', "hex ints", id="Hex"),
        pytest.param("08", '"08"', "not octal, but a float", id="EightWithZero"),
        pytest.param("1.5", '"1.5"', "floats", id="FloatString"),
        pytest.param(".5", '".5"', "a leading dot float", id="DotFloat"),
        pytest.param("1e3", '"1e3"', "exponent floats", id="ExpFloat"),
        pytest.param(
            "1e400", "1e400", "overflowing floats fail to parse and stay strings", id="FloatOverflow"
        ),
        pytest.param(".inf", '".inf"', "infinity", id="Inf"),
        pytest.param("1:20", '"1:20"', "base-60 floats are quoted for other parsers", id="Base60"),
        pytest.param("<<", "<<", "the merge key is not resolved in output", id="Merge"),
        pytest.param(
            "Unready resources: a, b", "'Unready resources: a, b'", "': ' forbids plain", id="ColonSpace"
        ),
        pytest.param("a:b", "a:b", "a colon without a space is plain", id="ColonNoSpace"),
        pytest.param("- a", "'- a'", "a leading dash and space is an indicator", id="DashSpace"),
        pytest.param("-a", "-a", "a leading dash alone is fine", id="DashNoSpace"),
        pytest.param("#x", "'#x'", "a leading hash is a comment", id="Hash"),
        pytest.param("a #b", "'a #b'", "a hash after a space is a comment", id="SpaceHash"),
        pytest.param("a#b", "a#b", "a hash inside a word is plain", id="HashInWord"),
        pytest.param("*x", "'*x'", "a leading star is an alias", id="Star"),
        pytest.param("it's", "it's", "an inner quote is plain", id="InnerQuote"),
        pytest.param("'q'", "'''q'''", "single quotes double inside single quotes", id="LeadingQuote"),
        pytest.param(" lead", "' lead'", "a leading space forbids plain", id="LeadingSpace"),
        pytest.param("trail ", "'trail '", "a trailing space forbids plain", id="TrailingSpace"),
        pytest.param("---", "'---'", "a document marker", id="DocMarker"),
        pytest.param("tab\there", '"tab\\there"', "tabs are escaped in double quotes", id="Tab"),
        pytest.param("héllo wörld", "héllo wörld", "unicode in the BMP is written as is", id="Unicode"),
        pytest.param("smile 😀", '"smile \\U0001F600"', "characters beyond the BMP are escaped", id="Astral"),
        pytest.param("bell\x07", '"bell\\a"', "control characters are escaped", id="Control"),
        pytest.param(
            "a\nb", "|-\n  a\n  b", "line breaks make a literal block without a final newline", id="Literal"
        ),
        pytest.param("a\nb\n", "|\n  a\n  b", "a final newline is clipped", id="LiteralClip"),
        pytest.param("a\n\n", "|+\n  a\n", "two final newlines are kept", id="LiteralKeep"),
        pytest.param(
            " a\nb", "|2-\n   a\n  b", "a leading space needs an indentation hint", id="LiteralIndentHint"
        ),
        pytest.param(
            "a \nb", '"a \\nb"', "a space before a break forbids block style", id="LiteralSpaceBreak"
        ),
        pytest.param(True, "true", "booleans", id="Bool"),
        pytest.param(None, "null", "null", id="Null"),
        pytest.param(9001, "9001", "integers", id="Int"),
        pytest.param(3.0, "3", "whole floats print as integers after the JSON round trip", id="WholeFloat"),
        pytest.param(1.5, "1.5", "a fraction", id="Float"),
        pytest.param(1234567.5, "1.2345675e+06", "Go switches to exponent form at 1e6", id="FloatBig"),
        pytest.param(0.0001, "0.0001", "down to 1e-4 stays fixed", id="FloatSmall"),
        pytest.param(
            0.00001, "1e-05", "below 1e-4 is exponent form with two exponent digits", id="FloatTiny"
        ),
        pytest.param(-2.5e-10, "-2.5e-10", "negative exponent", id="FloatNegative"),
        pytest.param(1e21, "1e+21", "beyond int64 stays a float", id="FloatHuge"),
        pytest.param(2**63 - 1, "9223372036854775807", "the largest int64 is an integer", id="Int64Max"),
        pytest.param(12345678901234567890, "12345678901234567000",
                     "past int64 a number is a float64; JSON writes its digits, go-yaml reads a uint64", id="Uint64"),
        pytest.param(1.2345678901234567e19, "12345678901234567000", "the same number as a float", id="WholeFloatUint64"),
        pytest.param(1e20, "1e+20", "past uint64 the JSON digits read back as a float", id="WholeFloatPastUint64"),
        pytest.param(-12345678901234567890, "-1.2345678901234567e+19", "below int64 too", id="NegativePastInt64"),
        pytest.param(float("inf"), ".inf", "go-yaml's spelling of infinity", id="Infinity"),
        pytest.param("n", '"n"', "go-yaml v2 reads n as a boolean", id="BoolWordN"),
        pytest.param("0o17", '"0o17"', "Go's 0o octal", id="OctalO"),
        pytest.param("010", '"010"', "leading-zero octal", id="OctalZero"),
        pytest.param("+.5", '"+.5"', "a signed dot float", id="SignedDotFloat"),
        pytest.param(".5e400", ".5e400", "an overflowing dot float stays a string", id="DotFloatOverflow"),
        pytest.param("22:00", '"22:00"', "read as a string, but quoted as a base-60 float", id="Clock"),
        pytest.param("0x", "0x", "a prefix without digits is a string", id="HexPrefixOnly"),
    ],
)  # fmt: skip
def test_scalar_values(value: Any, want: str, reason: str) -> None:
    got = yaml_emitter.to_yaml({"k": value})
    assert got == f"k: {want}\n", reason


@pytest.mark.parametrize(
    ("doc", "want", "reason"),
    [
        pytest.param({}, "{}\n", "an empty document is a flow map", id="EmptyDoc"),
        pytest.param(
            {"b": 1, "a": {"d": [], "c": {}}},
            "a:\n  c: {}\n  d: []\nb: 1\n",
            "keys sort at every level; empty collections use flow style",
            id="SortedKeys",
        ),
        pytest.param(
            {"a10": 1, "a2": 2, "a1": 3, "B": 4, "a-b": 5, "ab": 6},
            "B: 4\na-b: 5\na1: 3\na2: 2\na10: 1\nab: 6\n",
            "go-yaml's natural order: numbers by value, non-letters before letters",
            id="NaturalKeyOrder",
        ),
        pytest.param(
            {"l": [{"a": 1, "b": [1, 2]}, [3, [4]], "s"]},
            "l:\n- a: 1\n  b:\n  - 1\n  - 2\n- - 3\n  - - 4\n- s\n",
            "sequences in maps are not indented; nested sequences are",
            id="NestedCollections",
        ),
        pytest.param(
            {"true": 1, "1": 2, "a b": 3},
            '"1": 2\na b: 3\n"true": 1\n',
            "keys follow the same quoting rules as values",
            id="QuotedKeys",
        ),
        pytest.param(
            {"m": {"k": "x\ny"}},
            "m:\n  k: |-\n    x\n    y\n",
            "a literal block is indented under its key",
            id="NestedLiteral",
        ),
    ],
)
def test_documents(doc: dict[str, Any], want: str, reason: str) -> None:
    assert yaml_emitter.to_yaml(doc) == want, reason


def test_long_plain_string_folds_at_column_80() -> None:
    """go-yaml v2.4 folds long plain scalars at the first space past column 80."""
    words = " ".join(["word"] * 30)
    got = yaml_emitter.to_yaml({"description": words})
    first, second = got.rstrip("\n").split("\n")
    assert 80 < len(first) <= 85, "breaks at the first space after column 80"
    assert second.startswith("  word"), "continuation lines are indented one level under the key"
    assert (first[len("description: ") :] + " " + second.strip()) == words, "folding keeps the text"


def test_long_single_quoted_string_folds() -> None:
    text = "Unready resources: " + ", ".join(f"resource-{i}" for i in range(12))
    got = yaml_emitter.to_yaml({"message": text})
    lines = got.rstrip("\n").split("\n")
    assert lines[0].startswith("message: 'Unready resources: ")
    assert len(lines) == 2 and lines[1].startswith("  resource-"), "folded once, indented"
    assert lines[1].endswith("'")


def test_keys_never_fold() -> None:
    key = "k" * 60 + " " + "k" * 40
    got = yaml_emitter.to_yaml({key: 1})
    assert got == f"{key}: 1\n", "simple keys are written on one line"


# Round trip: whatever the emitter writes must read back as the same data through the
# loader, which resolves scalars with the same go-yaml v2 rules.
_TEXT = st.text(alphabet=st.sampled_from(list("ab yZ09:#-,.'\"\n\t!&*?|>%@`[]{}é😀\u2028")), max_size=120)
_SCALARS = st.one_of(
    _TEXT, st.integers(-(2**62), 2**62), st.booleans(), st.none(),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
)  # fmt: skip
_DATA = st.recursive(
    _SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(_TEXT, children, max_size=4)),
    max_leaves=12,
)


@hypothesis.settings(max_examples=300, derandomize=True, deadline=None)
@hypothesis.given(st.dictionaries(_TEXT, _DATA, max_size=5))
def test_round_trip(doc: dict[str, Any]) -> None:
    text = yaml_emitter.to_yaml(doc)
    assert yaml_loader.load_all(text, as_json=True)[0] == doc, text


def test_long_key_uses_explicit_form() -> None:
    """go-yaml writes keys over 128 characters with ``? key`` / ``: value``; the result reads back."""
    key = "k" * 130
    text = yaml_emitter.to_yaml({key: {"a": 1}, "b": [1]})
    assert text.startswith("b:\n- 1\n? " + key + "\n:"), text
    assert yaml_loader.load_all(text, as_json=True)[0] == {key: {"a": 1}, "b": [1]}
