"""Sprig's dict functions: Sprig's dict_test.go and issue_188_test.go cases, mergo's merge rules,
copystructure's deep copy, and dig's panics."""

from __future__ import annotations

from typing import Any

import pytest
from sprigcases import G, call, show

from crossfn import errors
from crossfn.gocompat import gofunc, values


def test_dict() -> None:
    """TestDict: keys by strval, a missing last value is ""."""
    assert call("dict", G(1), G(2), "three", "four", G(5)) == {"1": G(2), "three": "four", "5": ""}
    d = call("dict", "I", "shot", "the", "albatross")
    assert (d["the"], d["I"]) == ("albatross", "shot")


CASES = [
    pytest.param("get", ({"one": G(1)}, "one"), "1", "TestGet", id="Get"),
    pytest.param("get", ({}, "two"), "", "TestGet: absent is the empty string", id="GetAbsent"),
    pytest.param("get", (None, "two"), "", "a nil map reads as empty", id="GetNil"),
    pytest.param("hasKey", ({"one": G(1)}, "one"), "true", "TestHasKey", id="HasKey"),
    pytest.param(
        "pluck", ("two", {"two": G(1)}, {"one": G(1)}, {"two": G(3)}), "[1 3]", "TestPluck", id="Pluck"
    ),
    pytest.param(
        "keys", ({"foo": G(1), "bar": G(2)},), "[bar foo]", "TestKeys: in byte order here", id="Keys"
    ),
    pytest.param("keys", ({},), "[]", "TestKeys: empty", id="KeysEmpty"),
    pytest.param(
        "keys",
        ({"foo": G(1)}, {"bar": G(2)}, {"bar": G(3)}),
        "[foo bar bar]",
        "TestKeys: every map's keys",
        id="KeysMany",
    ),
    pytest.param("pick", ({"one": G(1), "two": G(222222)}, "two"), "map[two:222222]", "TestPick", id="Pick"),
    pytest.param(
        "pick",
        ({"one": G(1), "two": G(2)}, "one", "two", "three"),
        "map[one:1 two:2]",
        "TestPick: absent ignored",
        id="PickAbsent",
    ),
    pytest.param("omit", ({"one": G(1), "two": G(222222)}, "one"), "map[two:222222]", "TestOmit", id="Omit"),
    pytest.param("omit", ({"one": G(1), "two": G(2)}, "one", "two"), "map[]", "TestOmit: all", id="OmitAll"),
    pytest.param(
        "values", ({"a": G(1), "b": G(2)},), "[1 2]", "TestValues: by the keys' order here", id="Values"
    ),
    pytest.param("unset", ({"one": G(1), "two": G(2)}, "two"), "map[one:1]", "TestUnset", id="Unset"),
    pytest.param("unset", (None, "two"), "map[]", "deleting from a nil map does nothing", id="UnsetNil"),
    pytest.param("set", ({"one": G(1)}, "two", G(2)), "map[one:1 two:2]", "TestSet", id="Set"),
    pytest.param(
        "deepCopy",
        ({"foo": {"bar": "baz"}, "qux": True},),
        "map[foo:map[bar:baz] qux:true]",
        "TestDeepCopy",
        id="DeepCopy",
    ),
    pytest.param(
        "mustDeepCopy", ({"a": G(1), "b": G(2)},), "map[a:1 b:2]", "TestMustDeepCopy", id="MustDeepCopy"
    ),
    pytest.param("dig", ("a", "b", "c", "", {"a": {"b": {"c": G(1)}}}), "1", "TestDig", id="Dig"),
    pytest.param(
        "dig", ("a", "b", "z", "2", {"a": {"b": {"c": G(1)}}}), "2", "TestDig: missing key", id="DigDefault"
    ),
    pytest.param("dig", ("a", "", {"a": G(1)}), "1", "TestDig: one key", id="DigOne"),
    pytest.param("dig", ("z", "2", {"a": G(1)}), "2", "TestDig: one missing key", id="DigOneDefault"),
]


@pytest.mark.parametrize(("name", "args", "want", "reason"), CASES)
def test_dicts(name: str, args: tuple[Any, ...], want: str, reason: str) -> None:
    assert show(call(name, *args)) == want, reason


def _merge_fixture() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """TestMerge's maps: dst, src1, src2."""
    dst = {
        "a": "one",
        "c": G(3),
        "d": {"f": G(5)},
        "g": values.GoSlice([G(8), G(9)], elem="int"),
        "i": "eye",
        "k": {"l": True},
    }
    src1 = {
        "a": G(1),
        "b": G(2),
        "d": {"e": "four"},
        "g": values.GoSlice([G(6), G(7)], elem="int"),
        "i": "aye",
        "j": "jay",
        "k": {"l": False},
    }
    src2 = {"h": G(10), "i": "i", "j": "j"}
    return dst, src1, src2


def test_merge() -> None:
    """TestMerge: empty and missing keys filled, maps merged deeply, slices never merged."""
    dst, src1, src2 = _merge_fixture()
    result = call("merge", dst, src1, src2)
    assert result is dst
    assert dst == {
        "a": "one",
        "b": G(2),
        "c": G(3),
        "d": {"e": "four", "f": G(5)},
        "g": [G(8), G(9)],
        "h": G(10),
        "i": "eye",
        "j": "jay",
        "k": {"l": True},
    }


def test_merge_overwrite() -> None:
    """TestMergeOverwrite: the sources win, maps still merge deeply."""
    dst, src1, src2 = _merge_fixture()
    call("mergeOverwrite", dst, src1, src2)
    assert dst == {
        "a": G(1),
        "b": G(2),
        "c": G(3),
        "d": {"e": "four", "f": G(5)},
        "g": [G(6), G(7)],
        "h": G(10),
        "i": "i",
        "j": "j",
        "k": {"l": False},
    }


MERGES = [
    pytest.param({"a": ""}, {"a": "x"}, False, {"a": "x"}, "merge fills an empty value", id="FillsEmpty"),
    pytest.param({"a": G(0)}, {"a": G(3)}, False, {"a": G(3)}, "zero is empty", id="FillsZero"),
    pytest.param({"a": "x"}, {"a": None}, False, {"a": "x"}, "merge skips a nil source value", id="SkipsNil"),
    pytest.param({"a": "x"}, {"a": None}, True, {"a": None}, "mergeOverwrite writes it", id="OverwritesNil"),
    pytest.param(
        {"a": "x"}, {"a": ""}, True, {"a": ""}, "mergeOverwrite writes empty values too", id="OverwritesEmpty"
    ),
    pytest.param(
        {"a": "x"},
        {"a": {"b": G(1)}},
        False,
        {"a": "x"},
        "a map does not replace a non-empty scalar",
        id="MapOverScalar",
    ),
    pytest.param(
        {"a": "x"},
        {"a": {"b": G(1)}},
        True,
        {"a": {"b": G(1)}},
        "unless overwriting",
        id="MapOverScalarOverwrite",
    ),
    pytest.param({"a": []}, {"a": [G(1)]}, False, {"a": [G(1)]}, "an empty slice is filled", id="EmptySlice"),
    pytest.param({}, {"a": [G(1)]}, False, {"a": [G(1)]}, "a missing slice is added", id="MissingSlice"),
    pytest.param(
        None, {"a": G(1)}, False, {"a": G(1)}, "a nil destination becomes a new map", id="NilDestination"
    ),
]


@pytest.mark.parametrize(("dst", "src", "overwrite", "want", "reason"), MERGES)
def test_merge_rules(
    dst: Any, src: dict[str, Any], overwrite: bool, want: dict[str, Any], reason: str
) -> None:
    assert call("mergeOverwrite" if overwrite else "merge", dst, src) == want, reason


def test_merge_shares_nested_maps() -> None:
    """TestIssue188: a merged nested map is the source's own, so a later merge changes both; deepCopy avoids it."""
    target: dict[str, Any] = {}
    one = {"foo": {"bar": "baz"}, "qux": True}
    two = {"foo": {"bar": "baz2"}, "qux": False}
    call("mergeOverwrite", target, one)
    call("mergeOverwrite", target, two)
    assert show(one) == "map[foo:map[bar:baz2] qux:true]"
    target, one = {}, {"foo": {"bar": "baz"}, "qux": True}
    call("mergeOverwrite", target, call("deepCopy", one))
    call("mergeOverwrite", target, two)
    assert show(one) == "map[foo:map[bar:baz] qux:true]"


def test_merge_type_mismatch() -> None:
    """mergo refuses to merge a map into a pointer: merge gives "", mustMerge the error."""
    version = call("semver", "1.2.3")
    assert call("merge", {"v": version}, {"v": {"a": G(1)}}) == ""
    with pytest.raises(errors.GoError) as raised:
        call("mustMerge", {"v": version}, {"v": {"a": G(1)}})
    assert str(raised.value) == "src and dst must be of same type"


def test_deep_copy() -> None:
    """copystructure: copies all the way down, keeps nil slices nil, zeroes a *semver.Version, panics on nil."""
    nested = {"a": [{"b": G(1)}], "s": values.GoSlice(elem="string", nil=True)}
    copied = call("deepCopy", nested)
    assert copied == nested
    assert copied["a"][0] is not nested["a"][0]
    assert values.is_nil(copied["s"])
    assert show(call("deepCopy", call("semver", "1.2.3"))) == "0.0.0"
    assert call("deepCopy", "text") == "text"
    with pytest.raises(gofunc.Panic) as raised:
        call("deepCopy", None)
    assert str(raised.value) == "reflect: call of reflect.Value.Type on zero Value"


PANICS = [
    pytest.param("dig", ("a", {}), "dig needs at least three arguments", "too few arguments", id="DigFew"),
    pytest.param(
        "dig",
        ("a", "", "x"),
        "interface conversion: interface {} is string, not map[string]interface {}",
        "the last argument is no map",
        id="DigNotMap",
    ),
    pytest.param(
        "dig",
        ("a", "", None),
        "interface conversion: interface {} is nil, not map[string]interface {}",
        "nil is no map",
        id="DigNil",
    ),
    pytest.param(
        "dig",
        (G(1), "", {}),
        "interface conversion: interface {} is int, not string",
        "a key is no string",
        id="DigKey",
    ),
    pytest.param(
        "dig",
        ("a", "b", "", {"a": G(1)}),
        "interface conversion: interface {} is int, not map[string]interface {}",
        "a step is no map",
        id="DigStep",
    ),
    pytest.param(
        "set", (None, "a", G(1)), "assignment to entry in nil map", "setting in a nil map", id="SetNil"
    ),
]


@pytest.mark.parametrize(("name", "args", "message", "reason"), PANICS)
def test_panics(name: str, args: tuple[Any, ...], message: str, reason: str) -> None:
    with pytest.raises(gofunc.Panic) as raised:
        call(name, *args)
    assert str(raised.value) == message, reason


def test_self_containing_map_is_a_stack_overflow() -> None:
    """Go recurses forever merging or copying a map that contains itself; here that is a panic, not a traceback."""
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    with pytest.raises(gofunc.Panic) as raised:
        call("deepCopy", cyclic)
    assert "stack exceeds" in str(raised.value)
    with pytest.raises(errors.GoError):
        call("mustToJson", cyclic)
