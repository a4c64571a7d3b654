"""Sprig's list functions: Sprig's list_test.go cases, Go's nil slices, and the errors and panics of
anything that is not a slice."""

from __future__ import annotations

from typing import Any

import pytest
from sprigcases import G, call, show

from crossfn import errors
from crossfn.gocompat import gofunc, json, values

SPLIT = values.GoSlice(["foo", "bar", "baz"], elem="string")
"""What ``regexSplit "/" "foo/bar/baz" -1`` gives: a []string."""


def _lst(*items: Any) -> list[Any]:
    return list(items)


CASES = [
    pytest.param("list", (G(1), "a", "foo"), "[1 a foo]", "TestList", id="List"),
    pytest.param("tuple", (G(1), "a", "foo"), "[1 a foo]", "TestTuple", id="Tuple"),
    pytest.param("append", (_lst(G(1), G(2), G(3), G(4)), G(5)), "[1 2 3 4 5]", "TestPush", id="Append"),
    pytest.param("push", (SPLIT, "qux"), "[foo bar baz qux]", "TestPush: a []string", id="PushStrings"),
    pytest.param("mustPush", (SPLIT, "qux"), "[foo bar baz qux]", "TestMustPush", id="MustPush"),
    pytest.param("prepend", (_lst(G(1), G(2), G(3), G(4)), G(0)), "[0 1 2 3 4]", "TestPrepend", id="Prepend"),
    pytest.param("mustPrepend", (SPLIT, "qux"), "[qux foo bar baz]", "TestMustPrepend", id="MustPrepend"),
    pytest.param(
        "chunk", (G(3), _lst(*map(G, range(1, 10)))), "[[1 2 3] [4 5 6] [7 8 9]]", "TestChunk", id="Chunk"
    ),
    pytest.param(
        "chunk",
        (G(3), _lst(*map(G, range(1, 9)))),
        "[[1 2 3] [4 5 6] [7 8]]",
        "TestChunk: a short last",
        id="ChunkShort",
    ),
    pytest.param("chunk", (G(3), _lst(G(1), G(2))), "[[1 2]]", "TestChunk: one chunk", id="ChunkOne"),
    pytest.param("mustChunk", (G(3), _lst()), "[]", "TestMustChunk: nothing", id="ChunkEmpty"),
    pytest.param(
        "chunk",
        (G(-1), _lst(G(1), G(2))),
        "[]",
        "Go's float arithmetic makes no chunk here",
        id="ChunkNegativeNone",
    ),
    pytest.param("first", (_lst(G(1), G(2), G(3)),), "1", "TestFirst", id="First"),
    pytest.param("first", (_lst(),), "<no value>", "TestFirst: empty is nil", id="FirstEmpty"),
    pytest.param(
        "mustFirst", (values.GoSlice(["foo", "bar"], elem="string"),), "foo", "TestMustFirst", id="MustFirst"
    ),
    pytest.param("last", (_lst(G(1), G(2), G(3)),), "3", "TestLast", id="Last"),
    pytest.param("mustLast", (_lst(),), "<no value>", "TestMustLast: empty", id="LastEmpty"),
    pytest.param("initial", (_lst(G(1), G(2), G(3)),), "[1 2]", "TestInitial", id="Initial"),
    pytest.param("initial", (_lst(),), "[]", "TestInitial: empty", id="InitialEmpty"),
    pytest.param("mustInitial", (SPLIT,), "[foo bar]", "TestMustInitial", id="MustInitial"),
    pytest.param("rest", (_lst(G(1), G(2), G(3)),), "[2 3]", "TestRest", id="Rest"),
    pytest.param("rest", (_lst(),), "[]", "TestRest: empty", id="RestEmpty"),
    pytest.param("mustRest", (SPLIT,), "[bar baz]", "TestMustRest", id="MustRest"),
    pytest.param("reverse", (_lst(G(1), G(2), G(3), G(4)),), "[4 3 2 1]", "TestReverse", id="Reverse"),
    pytest.param("reverse", (_lst(),), "[]", "TestReverse: empty", id="ReverseEmpty"),
    pytest.param("mustReverse", (SPLIT,), "[baz bar foo]", "TestMustReverse", id="MustReverse"),
    pytest.param("compact", (_lst(G(1), G(0), "", "hello"),), "[1 hello]", "TestCompact", id="Compact"),
    pytest.param("compact", (_lst("", ""),), "[]", "TestCompact: all empty", id="CompactAll"),
    pytest.param(
        "mustCompact",
        (values.GoSlice(["foo", "", "bar"], elem="string"),),
        "[foo bar]",
        "TestMustCompact",
        id="MustCompact",
    ),
    pytest.param("uniq", (_lst(G(1), G(1), G(1), G(1), G(2), G(2)),), "[1 2]", "TestUniq", id="Uniq"),
    pytest.param("uniq", (_lst("foo", G(1), G(1), "foo"),), "[foo 1]", "TestUniq: mixed", id="UniqMixed"),
    pytest.param(
        "uniq",
        (_lst(G(1), 1, 1.0),),
        "[1 1 1]",
        "DeepEqual tells int, int64 and float64 apart",
        id="UniqTypes",
    ),
    pytest.param(
        "mustUniq",
        (values.GoSlice(["foo", "foo", "bar"], elem="string"),),
        "[foo bar]",
        "TestMustUniq",
        id="MustUniq",
    ),
    pytest.param("without", (_lst(G(1), G(2), G(3), G(4)), G(1)), "[2 3 4]", "TestWithout", id="Without"),
    pytest.param(
        "without",
        (_lst(G(1), G(1), G(1), G(1), G(2)), G(1)),
        "[2]",
        "TestWithout: all of them",
        id="WithoutAll",
    ),
    pytest.param(
        "without", (_lst(G(1), G(2), G(3)),), "[1 2 3]", "TestWithout: nothing to omit", id="WithoutNothing"
    ),
    pytest.param("mustWithout", (SPLIT, "foo"), "[bar baz]", "TestMustWithout", id="MustWithout"),
    pytest.param("has", (G(1), _lst(G(1), G(2), G(3))), "true", "TestHas", id="Has"),
    pytest.param("has", (G(4), _lst(G(1), G(2), G(3))), "false", "TestHas: absent", id="HasNot"),
    pytest.param("has", ("bar", None), "false", "TestHas: nil", id="HasNil"),
    pytest.param("mustHas", ("bar", SPLIT), "true", "TestMustHas", id="MustHas"),
    pytest.param("slice", (_lst(G(1), G(2), G(3)),), "[1 2 3]", "TestSlice", id="Slice"),
    pytest.param(
        "slice", (_lst(G(1), G(2), G(3)), G(0), G(1)), "[1]", "TestSlice: both bounds", id="SliceBoth"
    ),
    pytest.param("slice", (_lst(G(1), G(2), G(3)), G(1)), "[2 3]", "TestSlice: from", id="SliceFrom"),
    pytest.param("mustSlice", (SPLIT, G(1), G(2)), "[bar]", "TestMustSlice", id="MustSlice"),
    pytest.param("slice", (_lst(),), "<no value>", "an empty list gives nil", id="SliceEmpty"),
    pytest.param(
        "slice",
        (_lst(G(1), G(2), G(3)), "1", 2.9),
        "[2]",
        "indexes go through cast.ToInt: 2.9 is 2",
        id="SliceCast",
    ),
    pytest.param("concat", (_lst(G(1), G(2), G(3)),), "[1 2 3]", "TestConcat", id="Concat"),
    pytest.param(
        "concat",
        (_lst(G(1), G(2), G(3)), _lst(G(4), G(5)), _lst()),
        "[1 2 3 4 5]",
        "TestConcat: empty",
        id="ConcatEmpty",
    ),
    pytest.param("concat", (_lst(G(1)), _lst(None)), "[1 <nil>]", "TestConcat: nil element", id="ConcatNil"),
    pytest.param(
        "concat", (_lst(G(1)), _lst(_lst("foo"))), "[1 [foo]]", "TestConcat: nested", id="ConcatNested"
    ),
    pytest.param("sortAlpha", (None,), "[<nil>]", "not a slice: its strval", id="SortAlphaNil"),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), CASES)
def test_lists(name: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    assert show(call(name, *args)) == want, reason


NIL_SLICES = [
    pytest.param("rest", (_lst(),), "null", "rest of nothing is a nil []interface {}", id="Rest"),
    pytest.param("initial", (_lst(),), "null", "initial of nothing too", id="Initial"),
    pytest.param("concat", (), "null", "concat of nothing too", id="Concat"),
    pytest.param("compact", (_lst(),), "[]", "compact starts from an empty, not nil, slice", id="Compact"),
    pytest.param("list", (), "[]", "a variadic call without arguments passes an empty slice", id="List"),
    pytest.param("regexFindAll", ("x", "abc", G(-1)), "null", "no match is a nil []string", id="FindAll"),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), NIL_SLICES)
def test_nil_slices_in_json(name: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    """A nil slice prints as [] but encodes as null; templates feed results to toJson."""
    assert json.marshal(call(name, *args)) == want, reason


ERRORS = [
    pytest.param("mustFirst", ("x",), "Cannot find first on type string", id="First"),
    pytest.param("mustLast", (G(1),), "Cannot find last on type int", id="Last"),
    pytest.param("mustRest", (1,), "Cannot find rest on type int64", id="Rest"),
    pytest.param("mustInitial", ({},), "Cannot find initial on type map", id="Initial"),
    pytest.param("mustPush", ("x", G(1)), "Cannot push on type string", id="Push"),
    pytest.param("mustPrepend", (1.5, G(1)), "Cannot prepend on type float64", id="Prepend"),
    pytest.param("mustChunk", (G(2), True), "Cannot chunk type bool", id="Chunk"),
    pytest.param("mustReverse", ("x",), "Cannot find reverse on type string", id="Reverse"),
    pytest.param("mustCompact", ("x",), "Cannot compact on type string", id="Compact"),
    pytest.param("mustUniq", ("x",), "Cannot find uniq on type string", id="Uniq"),
    pytest.param("mustWithout", ("x", G(1)), "Cannot find without on type string", id="Without"),
    pytest.param("mustHas", (G(1), "x"), "Cannot find has on type string", id="Has"),
    pytest.param("mustSlice", ("x",), "list should be type of slice or array but string", id="Slice"),
]


@pytest.mark.parametrize(("name", "args", "message"), ERRORS)
def test_must_errors_and_plain_panics(name: str, args: tuple[Any, ...], message: str) -> None:
    """The must form returns the error; the plain form panics with the same text."""
    with pytest.raises(errors.GoError) as returned:
        call(name, *args)
    assert str(returned.value) == message
    assert not isinstance(returned.value, gofunc.Panic)
    plain = name[4].lower() + name[5:]
    with pytest.raises(gofunc.Panic) as panicked:
        call(plain, *args)
    assert str(panicked.value) == message


PANICS = [
    pytest.param(
        "first",
        (None,),
        "runtime error: invalid memory address or nil pointer dereference",
        "reflect.TypeOf(nil).Kind()",
        id="FirstNil",
    ),
    pytest.param(
        "mustFirst",
        (None,),
        "runtime error: invalid memory address or nil pointer dereference",
        "the must form panics on nil too",
        id="MustFirstNil",
    ),
    pytest.param(
        "concat",
        (_lst(G(1)), "x"),
        "Cannot concat type string as list",
        "concat has no must form",
        id="ConcatString",
    ),
    pytest.param(
        "slice",
        (_lst(G(1), G(2)), G(1), G(5)),
        "reflect.Value.Slice: slice index out of bounds",
        "beyond the end",
        id="SliceBounds",
    ),
    pytest.param(
        "slice",
        (_lst(G(1), G(2)), G(2), G(1)),
        "reflect.Value.Slice: slice index out of bounds",
        "reversed",
        id="SliceReversed",
    ),
    pytest.param(
        "chunk",
        (G(0), _lst(G(1), G(2))),
        "runtime error: makeslice: len out of range",
        "a zero size",
        id="ChunkZero",
    ),
    pytest.param(
        "chunk",
        (G(-2), _lst(G(1), G(2), G(3), G(4))),
        "runtime error: makeslice: len out of range",
        "a negative size",
        id="ChunkNegative",
    ),
]


@pytest.mark.parametrize(("name", "args", "message", "reason"), PANICS)
def test_panics(name: str, args: tuple[Any, ...], message: str, reason: str) -> None:
    with pytest.raises(gofunc.Panic) as raised:
        call(name, *args)
    assert str(raised.value) == message, reason


def test_typed_slices_keep_their_type() -> None:
    """slice of a []string is a []string; the others build []interface {}; sortAlpha and keys give []string."""
    assert values.type_name(call("slice", SPLIT, G(1))) == "[]string"
    assert values.type_name(call("rest", SPLIT)) == "[]interface {}"
    assert values.type_name(call("sortAlpha", [G(1)])) == "[]string"
    assert values.type_name(call("chunk", G(1), [G(1)])) == "[][]interface {}"
    assert values.type_name(call("until", G(2))) == "[]int"


def test_inputs_are_not_modified() -> None:
    """Sprig copies: append, prepend and reverse leave the list they were given alone."""
    original = [G(1), G(2)]
    call("append", original, G(3))
    call("prepend", original, G(0))
    call("reverse", original)
    assert original == [G(1), G(2)]
