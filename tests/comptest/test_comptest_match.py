"""Chainsaw-style partial matching (``crossfn.comptest._match``): maps partial, arrays whole, scalars typed."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.comptest import _match

_BUCKET = {
    "apiVersion": "s3.aws.upbound.io/v1beta1",
    "kind": "Bucket",
    "metadata": {"annotations": {"crossplane.io/composition-resource-name": "bucket"}, "generateName": "x-"},
    "spec": {"forProvider": {"region": "us-east1", "tags": ["a", "b"], "size": 3, "public": False}},
}


@pytest.mark.parametrize(
    ("expected", "actual", "want", "reason"),
    [
        pytest.param({"spec": {"forProvider": {"region": "us-east1"}}}, _BUCKET, [],
                     "a nested partial map matches; keys the expectation omits are ignored", id="NestedMapPartial"),
        pytest.param({}, _BUCKET, [], "an empty expectation matches anything", id="EmptyMatchesAll"),
        pytest.param({"spec": {"forProvider": {"location": "x"}}}, _BUCKET, ["spec.forProvider.location: missing"],
                     "a key the actual object lacks is reported missing", id="MissingKey"),
        pytest.param({"spec": {"forProvider": {"region": "us-west1"}}}, _BUCKET,
                     ['spec.forProvider.region: want "us-west1", got "us-east1"'],
                     "a different string names the path and both values", id="DifferentString"),
        pytest.param({"spec": {"forProvider": {"size": "3"}}}, _BUCKET,
                     ['spec.forProvider.size: want "3" (string), got 3 (number)'],
                     "YAML types count: a string never equals a number, and the failure says so", id="StringVsNumber"),
        pytest.param({"spec": {"forProvider": {"public": "false"}}}, _BUCKET,
                     ['spec.forProvider.public: want "false" (string), got false (boolean)'],
                     "a quoted boolean is a string", id="StringVsBoolean"),
        pytest.param({"spec": {"forProvider": {"size": 3.0}}}, _BUCKET, [],
                     "numbers compare by value: 3 and 3.0 are the same JSON number", id="IntEqualsWholeFloat"),
        pytest.param({"spec": {"forProvider": {"public": 0}}}, _BUCKET,
                     ["spec.forProvider.public: want 0 (number), got false (boolean)"],
                     "a boolean is not a number", id="NumberVsBoolean"),
        pytest.param({"spec": {"forProvider": {"tags": ["a", "b"]}}}, _BUCKET, [],
                     "an array with the same items in order matches", id="ArrayEqual"),
        pytest.param({"spec": {"forProvider": {"tags": ["a"]}}}, _BUCKET,
                     ['spec.forProvider.tags: want 1 items, got 2: ["a", "b"]'],
                     "arrays are not partial: the length must be the same", id="ArrayShorter"),
        pytest.param({"spec": {"forProvider": {"tags": ["b", "a"]}}}, _BUCKET,
                     ['spec.forProvider.tags[0]: want "b", got "a"', 'spec.forProvider.tags[1]: want "a", got "b"'],
                     "array items are compared in order", id="ArrayOrder"),
        pytest.param({"items": [{"name": "a"}]}, {"items": [{"name": "a", "extra": 1}]}, [],
                     "maps inside arrays match partially", id="ArrayOfPartialMaps"),
        pytest.param({"spec": {"forProvider": "x"}}, _BUCKET,
                     ['spec.forProvider: want "x" (string), got {"public": false, "region": "us-east1", "size": 3, '
                      '"tags": ["a", "b"]} (object)'],
                     "a scalar where an object is", id="ScalarVsObject"),
        pytest.param({"spec": {"forProvider": {"region": {"name": "x"}}}}, _BUCKET,
                     ['spec.forProvider.region: want an object, got string "us-east1"'],
                     "an object where a scalar is", id="ObjectVsScalar"),
        pytest.param({"spec": {"forProvider": {"tags": []}}}, {"spec": {"forProvider": {"tags": "a"}}},
                     ['spec.forProvider.tags: want an array, got string "a"'],
                     "an array where a scalar is", id="ArrayVsScalar"),
        pytest.param({"metadata": {"annotations": {"crossplane.io/composition-resource-name": "other"}}}, _BUCKET,
                     ['metadata.annotations[crossplane.io/composition-resource-name]: want "other", got "bucket"'],
                     "keys with dots print in brackets, as Crossplane's field paths do", id="DottedKey"),
        pytest.param({"spec": {"x": None}}, {"spec": {"x": None}}, [], "null matches null", id="NullEqual"),
        pytest.param({"spec": {"x": None}}, {"spec": {}}, ["spec.x: missing"],
                     "an expected null still needs the key", id="NullMissing"),
    ],
)  # fmt: skip
def test_mismatches(expected: dict[str, Any], actual: dict[str, Any], want: list[str], reason: str) -> None:
    assert [str(m) for m in _match.mismatches(expected, actual)] == want, reason


_XR = {"apiVersion": "example.org/v1", "kind": "XBucket", "metadata": {"name": "xr"}}
_EAST = {**_BUCKET, "spec": {"forProvider": {"region": "us-east1"}}}
_WEST = {
    **_BUCKET,
    "metadata": {"annotations": {"crossplane.io/composition-resource-name": "west"}},
    "spec": {"forProvider": {"region": "us-west1", "acl": "private"}},
}


@pytest.mark.parametrize(
    ("expected", "want_doc", "want", "reason"),
    [
        pytest.param({"apiVersion": "v1", "kind": "Secret"}, None, [],
                     "nothing of the expected type: nothing to diff against", id="NoSameType"),
        pytest.param({"apiVersion": _BUCKET["apiVersion"], "kind": "Bucket",
                      "spec": {"forProvider": {"region": "us-west2", "acl": "private"}}}, _WEST,
                     ['spec.forProvider.region: want "us-west2", got "us-west1"'],
                     "among same-type candidates, the one with the fewest mismatches", id="FewestMismatches"),
        pytest.param({"apiVersion": _BUCKET["apiVersion"], "kind": "Bucket",
                      "metadata": {"annotations": {"crossplane.io/composition-resource-name": "bucket"}},
                      "spec": {"forProvider": {"region": "us-west1", "acl": "private"}}}, _EAST,
                     ['spec.forProvider.region: want "us-west1", got "us-east1"', "spec.forProvider.acl: missing"],
                     "a candidate with the expected composition resource name wins over a closer one",
                     id="SameResourceNameWins"),
        pytest.param({"kind": "XBucket", "metadata": {"name": "other"}}, _XR,
                     ['metadata.name: want "other", got "xr"'],
                     "no candidate has the name: fall back to every same-type candidate", id="NoNameMatch"),
    ],
)  # fmt: skip
def test_closest(
    expected: dict[str, Any], want_doc: dict[str, Any] | None, want: list[str], reason: str
) -> None:
    got = _match.closest(expected, [_XR, _EAST, _WEST])
    if want_doc is None:
        assert got is None, reason
        return
    assert got is not None, reason
    doc, found = got
    assert doc is want_doc, reason
    assert [str(m) for m in found] == want, reason


@pytest.mark.parametrize(
    ("obj", "want", "reason"),
    [
        pytest.param(_XR, 'XBucket "xr"', "the name when there is one", id="Name"),
        pytest.param(_BUCKET, 'Bucket "bucket"', "else the composition resource name", id="ResourceName"),
        pytest.param({"kind": "Bucket", "metadata": {"generateName": "x-"}}, 'Bucket "x-"',
                     "else the generateName", id="GenerateName"),
        pytest.param({"kind": "Context"}, "Context", "else only the kind", id="KindOnly"),
    ],
)  # fmt: skip
def test_describe(obj: dict[str, Any], want: str, reason: str) -> None:
    assert _match.describe(obj) == want, reason
