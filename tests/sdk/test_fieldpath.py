"""crossplane-runtime fieldpath semantics (upstream pt-3), table by table."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from crossfn import errors
from crossfn.sdk import fieldpath

NotFound = errors.FieldNotFoundError
Plain = errors.FieldPathError


@pytest.mark.parametrize(
    ("path", "want"),
    [
        pytest.param("metadata.name", ("metadata", "name"), id="Dotted"),
        pytest.param("spec.containers[0].name", ("spec", "containers", 0, "name"), id="Index"),
        pytest.param(
            "metadata.annotations['crossplane.io/x']",
            ("metadata", "annotations", "crossplane.io/x"),
            id="QuotedKey",
        ),
        pytest.param("data[.config.yml]", ("data", ".config.yml"), id="PeriodInsideBrackets"),
        pytest.param("spec.items[0][8]", ("spec", "items", 0, 8), id="AdjacentIndexes"),
        pytest.param("[42]", (42,), id="LeadingIndex"),
        pytest.param("a[01]", ("a", 1), id="LeadingZeroIndex"),
        pytest.param("a[4294967295]", ("a", 4294967295), id="MaxUint32Index"),
        pytest.param("a[4294967296]", ("a", "4294967296"), id="BeyondUint32IsField"),
        pytest.param("a[-1]", ("a", "-1"), id="NegativeIsField"),
        pytest.param("a['0']", ("a", "0"), id="QuotedNumberIsField"),
        pytest.param("a[\"x\"].'y'", ("a", "x", "y"), id="QuotesTrimmedEverywhere"),
        pytest.param("a[0]b", ("a", 0, "b"), id="NoDotAfterBracket"),
        pytest.param("a.*.b", ("a", "*", "b"), id="StarIsAField"),
        pytest.param("", (), id="Empty"),
    ],
)
def test_parse(path: str, want: tuple[fieldpath.Segment, ...]) -> None:
    """Paths parse into fields and indexes as Go's lexer does."""
    assert fieldpath.parse(path) == want


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param(".a", "unexpected '.' at position 0", id="LeadingPeriod"),
        pytest.param("a.", "unexpected '.' at position 1", id="TrailingPeriod"),
        pytest.param("a..b", "unexpected '.' at position 2", id="DoublePeriod"),
        pytest.param("metadata..uid", "unexpected '.' at position 9", id="DoublePeriodLater"),
        pytest.param("a.[0]", "unexpected '[' at position 2", id="PeriodBracket"),
        pytest.param("a[]", "unexpected ']' at position 2", id="EmptyBrackets"),
        pytest.param("a[0", "unterminated '[' at position 1", id="Unterminated"),
        pytest.param("a]b", "unexpected ']' at position 1", id="StrayClose"),
        pytest.param("a[b[c]]", "unexpected '[' at position 3", id="NestedBracket"),
        pytest.param("é..b", "unexpected '.' at position 3", id="PositionsAreBytes"),
    ],
)
def test_parse_errors(path: str, message: str) -> None:
    """Parse errors carry Go's text and byte position."""
    with pytest.raises(Plain) as e:
        fieldpath.parse(path)
    assert str(e.value) == f'cannot parse path "{path}": {message}'
    assert not isinstance(e.value, NotFound)


@pytest.mark.parametrize(
    ("path", "printed"),
    [
        pytest.param(
            "metadata.annotations['crossplane.io/x']",
            "metadata.annotations[crossplane.io/x]",
            id="DottedKeyBracketed",
        ),
        pytest.param("a[*].b", "a[*].b", id="WildcardBracketed"),
        pytest.param("[0].a", "[0].a", id="LeadingIndex"),
        pytest.param("'a'.b", "a.b", id="QuotesGone"),
    ],
)
def test_format_segments(path: str, printed: str) -> None:
    """Messages print parsed segments, not the raw path."""
    assert fieldpath.format_segments(fieldpath.parse(path)) == printed


READ_OBJ: dict[str, Any] = {
    "spec": {"s": "str", "n": None, "arr": [1, {"k": "v"}, None], "m": {"a.b": "dot", "x": {"y": True}}}
}


@pytest.mark.parametrize(
    ("path", "want", "error", "not_found"),
    [
        pytest.param("spec.missing", None, "spec.missing: no such field", True, id="MissingField"),
        pytest.param(
            "spec.missing.deeper", None, "spec.missing: no such field", True, id="OnlyFirstMissingReported"
        ),
        pytest.param("spec.n", None, None, False, id="PresentNull"),
        pytest.param("spec.n.x", None, "spec.n: expected map, got nil", True, id="ThroughNull"),
        pytest.param("spec.s.x", None, "spec.s: not an object", False, id="ThroughString"),
        pytest.param("spec.s[0]", None, "spec.s: not an array", False, id="IndexIntoString"),
        pytest.param("spec.arr[3]", None, "spec.arr[3]: no such element", True, id="BeyondEnd"),
        pytest.param(
            "spec.arr[2].k", None, "spec.arr[2]: expected map, got nil", True, id="ThroughNullElement"
        ),
        pytest.param("spec.arr.k", None, "spec.arr: not an object", False, id="FieldOfList"),
        pytest.param("spec.arr[*]", None, "spec.arr: not an object", False, id="NoWildcardReads"),
        pytest.param("spec.m[a.b]", "dot", None, False, id="DottedKey"),
        pytest.param("spec.m.a.b", None, "spec.m.a: no such field", True, id="DottedKeyUnbracketed"),
        pytest.param("spec.m['x'].y", True, None, False, id="QuotedKey"),
        pytest.param('spec.m["x"][y]', True, None, False, id="BracketedKey"),
        pytest.param("spec.arr[1][k]", "v", None, False, id="IndexThenKey"),
        pytest.param("[0]", None, ": not an array", False, id="RootIsNotAList"),
        pytest.param("", None, None, False, id="EmptyPathReadsNull"),
    ],
)
def test_get_value(path: str, want: Any, error: str | None, not_found: bool) -> None:
    """Reads follow Go's getValueFromInterface, including which errors are NotFound."""
    if error is None:
        assert fieldpath.get_value(READ_OBJ, path) == want
        return
    with pytest.raises(Plain) as e:
        fieldpath.get_value(READ_OBJ, path)
    assert str(e.value) == error
    assert isinstance(e.value, NotFound) is not_found


@pytest.mark.parametrize(
    ("getter", "obj", "path", "want", "error"),
    [
        pytest.param(fieldpath.get_string, {"a": "x"}, "a", "x", None, id="StringOK"),
        pytest.param(fieldpath.get_string, {"a": None}, "a", None, "a: not a string", id="NullIsNotAString"),
        pytest.param(
            fieldpath.get_string, {"a": {"b": 1}}, "'a'.b", None, "'a'.b: not a string", id="RawPathInMessage"
        ),
        pytest.param(fieldpath.get_bool, {"a": False}, "a", False, None, id="BoolOK"),
        pytest.param(fieldpath.get_bool, {"a": 0}, "a", None, "a: not a bool", id="ZeroIsNotABool"),
        pytest.param(fieldpath.get_integer, {"a": 5}, "a", 5, None, id="Int64OK"),
        pytest.param(
            fieldpath.get_integer, {"a": 5.0}, "a", None, "a: not a (int64) number", id="Float64IsNotInt64"
        ),
        pytest.param(
            fieldpath.get_integer, {"a": True}, "a", None, "a: not a (int64) number", id="BoolIsNotInt64"
        ),
    ],
)
def test_typed_reads(getter: Any, obj: Any, path: str, want: Any, error: str | None) -> None:
    """Typed getters are strict about Go types and print the raw path."""
    if error is None:
        assert getter(obj, path) == want
        return
    with pytest.raises(Plain, match=None) as e:
        getter(obj, path)
    assert str(e.value) == error


@pytest.mark.parametrize(
    ("target", "path", "want", "error"),
    [
        pytest.param(
            {"spec": {}}, "spec.a[2].b", {"spec": {"a": [None, None, {"b": 1}]}}, None, id="CreateList"
        ),
        pytest.param(
            {"spec": {"a": [1]}}, "spec.a[3]", {"spec": {"a": [1, None, None, 1]}}, None, id="GrowList"
        ),
        pytest.param(
            {"spec": {"a": [1]}}, "spec.a[0][1]", None, "spec.a[0] is not an array", id="ScalarElement"
        ),
        pytest.param({"spec": {"a": "str"}}, "spec.a.b", None, "spec.a is not an object", id="ThroughString"),
        pytest.param(
            {"spec": {"a": {"b": 1}}}, "spec.a[0]", None, "spec.a is not an array", id="IndexIntoObject"
        ),
        pytest.param({}, "spec[0]", {"spec": [1]}, None, id="CreateListAtRoot"),
        pytest.param({}, "a[-1]", {"a": {"-1": 1}}, None, id="NegativeIsKey"),
        pytest.param({}, "a.*.b", {"a": {"*": {"b": 1}}}, None, id="StarIsKey"),
        pytest.param({"s": {"a": None}}, "s.a.b", None, "s.a is not an object", id="NullFieldNotReplaced"),
        pytest.param(
            {"s": {"a": [None]}}, "s.a[0].b", {"s": {"a": [{"b": 1}]}}, None, id="NullElementReplaced"
        ),
        pytest.param({}, "[0]", None, " is not an array", id="RootIsObject"),
        pytest.param({}, "a[1025]", None, "index 1025 is greater than max allowed index 1024", id="IndexCap"),
        pytest.param({"x": 1}, "", {"x": 1}, None, id="EmptyPathNoOp"),
    ],
)
def test_set_value(target: dict[str, Any], path: str, want: Any, error: str | None) -> None:
    """Writes create and grow containers as Go's setValue does."""
    if error is None:
        fieldpath.set_value(target, path, 1)
        assert target == want
        return
    with pytest.raises(Plain) as e:
        fieldpath.set_value(target, path, 1)
    assert str(e.value) == error


def test_set_value_index_1024_allowed() -> None:
    """Index 1024 itself is allowed and makes a 1025-element list."""
    obj: dict[str, Any] = {}
    fieldpath.set_value(obj, "a[1024]", "v")
    assert len(obj["a"]) == 1025


@pytest.mark.parametrize(
    ("value", "want", "error"),
    [
        pytest.param(30.0, 30, None, id="WholeFloatBecomesInt"),
        pytest.param(-0.0, 0, None, id="NegativeZeroBecomesZero"),
        pytest.param(2.5, 2.5, None, id="FractionStaysFloat"),
        pytest.param(1e21, 1e21, None, id="ExponentFormStaysFloat"),
        pytest.param(2.0**63, 2.0**63, None, id="BeyondInt64StaysFloat"),
        pytest.param(3.236032273592521e16, 32360322735925210, None, id="BeyondFloatPrecisionUsesGoDigits"),
        pytest.param({"a": [1.0, "x\udce2"]}, {"a": [1, "x\ufffd"]}, None, id="NestedAndInvalidUTF8"),
        pytest.param(
            float("nan"), None, "cannot marshal value to JSON: json: unsupported value: NaN", id="NaN"
        ),
        pytest.param(
            float("inf"), None, "cannot marshal value to JSON: json: unsupported value: +Inf", id="Inf"
        ),
        pytest.param(
            float("-inf"), None, "cannot marshal value to JSON: json: unsupported value: -Inf", id="MinusInf"
        ),
    ],
)
def test_json_round_trip(value: Any, want: Any, error: str | None) -> None:
    """Values are normalised as a Go JSON round trip would (upstream pt-4)."""
    if error is None:
        got = fieldpath.json_round_trip(value)
        assert got == want
        assert json.dumps(got) == json.dumps(want)  # int vs float shows in the dump
        return
    with pytest.raises(Plain) as e:
        fieldpath.json_round_trip(value)
    assert str(e.value) == error


POLICIES = {
    "Replace": None,
    "MergeObjects": fieldpath.MergeOptions(keep_map_values=True),
    "MergeObjectsAppendArrays": fieldpath.MergeOptions(keep_map_values=True, append_slice=True),
    "ForceMergeObjects": fieldpath.MergeOptions(),
    "ForceMergeObjectsAppendArrays": fieldpath.MergeOptions(append_slice=True),
}
MISSING = object()
ERR_MAP = "failed to merge values: cannot append two slices with different type ([]interface {}, map[string]interface {})"
ERR_STR = "failed to merge values: cannot append two slices with different type ([]interface {}, string)"
BIG_DST = {"x": 1, "y": {"p": 1, "q": 2}, "l": [1, 2], "s": "keep", "e": "nonempty", "z": 0}
BIG_SRC = {"x": 2, "y": {"p": 9, "r": 3}, "l": [2, 3], "n": None, "e": "", "z": 5, "new": "v"}
BIG_MERGE = {
    "e": "nonempty",
    "l": [1, 2],
    "new": "v",
    "s": "keep",
    "x": 1,
    "y": {"p": 1, "q": 2, "r": 3},
    "z": 5,
}
BIG_FORCE = {
    "e": "",
    "l": [2, 3],
    "n": None,
    "new": "v",
    "s": "keep",
    "x": 2,
    "y": {"p": 9, "q": 2, "r": 3},
    "z": 5,
}
DEEP_DST = {"x": {"k": {"deep": 1, "keep": 2}}}
DEEP_SRC = {"x": {"k": {"deep": 3}}}
DEEP_FORCE = {"x": {"k": {"deep": 3, "keep": 2}}}
# (case id, dst, src, [Replace, MergeObjects, MergeObjectsAppendArrays, ForceMergeObjects, ForceMergeObjectsAppendArrays])
MATRIX: list[tuple[str, Any, Any, list[Any]]] = [
    ("Missing", MISSING, {"a": 1}, [{"a": 1}] * 5),
    (
        "Objects",
        BIG_DST,
        BIG_SRC,
        [BIG_SRC, BIG_MERGE, {**BIG_MERGE, "l": [1, 2, 2, 3]}, BIG_FORCE, {**BIG_FORCE, "l": [1, 2, 2, 3]}],
    ),
    (
        "ListsDedup",
        [1, 2, {"k": 1}],
        [2, 3, {"k": 1}, {"k": 2}],
        [
            [2, 3, {"k": 1}, {"k": 2}],
            [1, 2, {"k": 1}],
            [1, 2, {"k": 1}, 3, {"k": 2}],
            [2, 3, {"k": 1}, {"k": 2}],
            [1, 2, {"k": 1}, 3, {"k": 2}],
        ],
    ),
    (
        "DuplicatesWithinSrcKept",
        [1, 1, 2],
        [1, 3, 3],
        [[1, 3, 3], [1, 1, 2], [1, 1, 2, 3, 3], [1, 3, 3], [1, 1, 2, 3, 3]],
    ),
    ("EmptySrcList", [1, 2], [], [[], [1, 2], [1, 2], [], [1, 2]]),
    ("BothEmptyLists", [], [], [[], [], None, [], None]),
    ("Strings", "x", "y", ["y", "x", "x", "y", "y"]),
    ("EmptyDstString", "", "y", ["y"] * 5),
    ("ZeroDst", 0, 5, [5] * 5),
    ("ZeroSrc", 5, 0, [0, 5, 5, 0, 0]),
    ("Bools", True, False, [False, True, True, False, False]),
    ("ObjectOverString", "x", {"k": 1}, [{"k": 1}, "x", "x", {"k": 1}, {"k": 1}]),
    ("StringOverObject", {"k": 1}, "x", ["x", {"k": 1}, {"k": 1}, "x", "x"]),
    ("ListOverObject", {"k": 1}, [1], [[1], {"k": 1}, ERR_MAP, [1], ERR_MAP]),
    ("ListOverString", "x", [1], [[1], "x", ERR_STR, [1], ERR_STR]),
    ("StringOverList", [1], "x", ["x", [1], [1], "x", "x"]),
    ("NullSrc", {"k": 1}, None, [None] * 5),
    ("EmptyObjectSrc", {"k": 1}, {}, [{}, {"k": 1}, {"k": 1}, {"k": 1}, {"k": 1}]),
    ("Deep", DEEP_DST, DEEP_SRC, [DEEP_SRC, DEEP_DST, DEEP_DST, DEEP_FORCE, DEEP_FORCE]),
]


@pytest.mark.parametrize(
    ("dst", "src", "policy", "want"),
    [
        pytest.param(dst, src, policy, wants[i], id=f"{case}{policy}")
        for case, dst, src, wants in MATRIX
        for i, policy in enumerate(POLICIES)
    ],
)
def test_merge_value_matrix(dst: Any, src: Any, policy: str, want: Any) -> None:
    """The verified top-level merge matrix of upstream pt-3.6."""
    obj: dict[str, Any] = {} if dst is MISSING else {"t": copy.deepcopy(dst)}
    if isinstance(want, str) and want.startswith("failed to merge"):
        with pytest.raises(Plain) as e:
            fieldpath.merge_value(obj, "t", copy.deepcopy(src), POLICIES[policy])
        assert str(e.value) == want
        return
    fieldpath.merge_value(obj, "t", copy.deepcopy(src), POLICIES[policy])
    assert obj["t"] == want


def test_merge_dedup_is_type_strict() -> None:
    """A float64 1 in dst does not equal the int64 1 from src, so it is appended again (upstream pt-4)."""
    obj: dict[str, Any] = {"t": [1.0]}
    fieldpath.merge_value(obj, "t", [1], POLICIES["ForceMergeObjectsAppendArrays"])
    assert obj["t"] == [1, 1]


@pytest.mark.parametrize(
    ("obj", "error"),
    [
        pytest.param({"spec": {"a": "s"}}, None, id="NoConflict"),
        pytest.param({"spec": "str"}, "spec: not an object", id="MergeReadsFirst"),
    ],
)
def test_merge_reader_error_wording(obj: dict[str, Any], error: str | None) -> None:
    """Under a merge policy the reader's wording wins; under Replace the writer's (upstream pt-3.6)."""
    if error is None:
        fieldpath.merge_value(obj, "spec.a", "v", POLICIES["MergeObjects"])
        assert obj == {"spec": {"a": "s"}}
        return
    with pytest.raises(Plain) as e:
        fieldpath.merge_value(obj, "spec.a", "v", POLICIES["MergeObjects"])
    assert str(e.value) == error
    with pytest.raises(Plain) as e:
        fieldpath.merge_value(obj, "spec.a", "v", None)
    assert str(e.value) == "spec is not an object"


@pytest.mark.parametrize(
    ("obj", "path", "want", "error", "not_found"),
    [
        pytest.param(
            {"a": [{"n": ""}, {"n": ""}, {"m": 1}]},
            "a[*].n",
            ["a[0].n", "a[1].n"],
            None,
            False,
            id="ListLeavesThatExist",
        ),
        pytest.param(
            {"a": {"x": {"n": 1}, "y": {"n": 2}}}, "a[*].n", ["a.x.n", "a.y.n"], None, False, id="ObjectKeys"
        ),
        pytest.param(
            {"a": [[1, 2], [3]]}, "a[*][*]", ["a[0][0]", "a[0][1]", "a[1][0]"], None, False, id="Nested"
        ),
        pytest.param({"a": []}, "a[*].n", [], None, False, id="EmptyList"),
        pytest.param({}, "a[*].n", [], None, False, id="MissingParent"),
        pytest.param(
            {"a": None},
            "a[*].n",
            None,
            'cannot expand wildcards for segments: "a[*].n": wildcard field "a" is not found in the path',
            True,
            id="NullParent",
        ),
        pytest.param(
            {"a": "s"},
            "a[*]",
            None,
            'cannot expand wildcards for segments: "a[*]": "a": unexpected wildcard usage',
            False,
            id="ScalarParent",
        ),
        pytest.param(
            {"a": [{"b": "s"}]},
            "a[*].b.c",
            None,
            'cannot expand wildcards for segments: "a[*].b.c": "a[0].b.c": cannot expand wildcards: a[0].b: not an object',
            False,
            id="DeepConflict",
        ),
        pytest.param(
            {"a": {"*": {"n": 1}}},
            "a[*].n",
            None,
            'cannot expand wildcards for segments: "a[*].n": "a": cannot expand a wildcard over an object with a field named "*"',
            False,
            id="StarKeyDivergence",
        ),
    ],
)
def test_expand_wildcards(
    obj: Any, path: str, want: list[str] | None, error: str | None, not_found: bool
) -> None:
    """Wildcards expand only over existing leaves (upstream pt-3.7); a literal "*" key is our clear error
    (upstream pt-9 item 9)."""
    if error is None:
        assert sorted(fieldpath.expand_wildcards(obj, path)) == want
        return
    with pytest.raises(Plain) as e:
        fieldpath.expand_wildcards(obj, path)
    assert str(e.value) == error
    assert isinstance(e.value, NotFound) is not_found
