"""Property tests: fieldpath never raises anything but crossfn's own errors, whatever the input."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from crossfn import errors
from crossfn.gocompat import json as gojson
from crossfn.gocompat import values
from crossfn.sdk import fieldpath

_PATH_CHARS = st.sampled_from(list("ab.[]*'\"01-é"))
paths = st.one_of(st.text(_PATH_CHARS, max_size=12), st.text(max_size=8))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "*", "0"]), children, max_size=3)
    ),
    max_leaves=10,
)
objects = st.dictionaries(st.sampled_from(["a", "b", "0"]), json_values, max_size=3)
policies = st.one_of(
    st.none(), st.builds(fieldpath.MergeOptions, keep_map_values=st.booleans(), append_slice=st.booleans())
)


@settings(max_examples=300, deadline=None)
@given(path=paths)
def test_parse_round_trips_or_raises_own_error(path: str) -> None:
    """Parsing either succeeds or raises FieldPathError; printing a parse re-parses to itself when no odd characters."""
    try:
        segs = fieldpath.parse(path)
    except errors.FieldPathError:
        return
    printed = fieldpath.format_segments(segs)
    if all(isinstance(s, int) or (not any(c in s for c in "[]'\"") and s) for s in segs):
        assert fieldpath.parse(printed) == segs


@settings(max_examples=300, deadline=None)
@given(obj=objects, path=paths)
def test_reads_raise_only_own_errors(obj: dict[str, Any], path: str) -> None:
    """Every read either returns a value or raises a FieldPathError."""
    for read in (fieldpath.get_value, fieldpath.get_string, fieldpath.get_bool, fieldpath.get_integer):
        with contextlib.suppress(errors.FieldPathError):
            read(obj, path)


@settings(max_examples=300, deadline=None)
@given(obj=objects, path=paths, value=json_values, policy=policies)
def test_writes_raise_only_own_errors_and_read_back(
    obj: dict[str, Any], path: str, value: Any, policy: fieldpath.MergeOptions | None
) -> None:
    """A successful Replace write reads back the round-tripped value; failures are FieldPathErrors."""
    try:
        fieldpath.merge_value(obj, path, copy.deepcopy(value), policy)
    except errors.FieldPathError:
        return
    if policy is None and fieldpath.parse(path):
        assert values.strict_equal(fieldpath.get_value(obj, path), fieldpath.json_round_trip(value))


@settings(max_examples=300, deadline=None)
@given(obj=objects, path=paths)
def test_wildcards_raise_only_own_errors(obj: dict[str, Any], path: str) -> None:
    """Expansion returns paths that exist, or raises a FieldPathError."""
    try:
        expanded = fieldpath.expand_wildcards(obj, path)
    except errors.FieldPathError:
        return
    for p in expanded:
        try:
            fieldpath.get_value(obj, p)
        except errors.FieldPathError as exc:
            # Keys holding brackets or quotes do not survive printing; Go has the same limit.
            assert any(c in p for c in "[]'\""), exc


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_round_trip_matches_go_json(value: Any) -> None:
    """json_round_trip equals a real Go-JSON marshal and integer-preserving unmarshal, or fails like it."""
    try:
        got = fieldpath.json_round_trip(value)
    except errors.FieldPathError as exc:
        assert "unsupported value" in str(exc)
        return
    assert values.strict_equal(got, gojson.unmarshal(gojson.marshal(value), integers=True))
