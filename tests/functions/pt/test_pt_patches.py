"""Conformance: patches_test.go (upstream pt-10.2): field and combine patches, PatchSets, transform chains."""

from __future__ import annotations

from typing import Any

import pytest
from ptcases import inp

from crossfn import errors
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.functions.patch_and_transform import patches, transforms

CD = {"apiVersion": "example.org/v1", "kind": "CD"}


def _patch(**fields: Any) -> ptinput.Patch:
    return ptinput.decode(inp(resources=[{"name": "t", "patches": [fields]}])).resources[0].patches[0]


OWNER_REFS = {"metadata": {"ownerReferences": [{"name": ""}, {"name": ""}]}}


@pytest.mark.parametrize(
    ("patch", "source", "target", "want", "error"),
    [
        pytest.param(
            {"fromFieldPath": "metadata.labels", "toFieldPath": "metadata.labels"},
            {"metadata": {"labels": {"test": "blah"}}},
            {**CD, "metadata": {"name": "cd"}},
            {**CD, "metadata": {"name": "cd", "labels": {"test": "blah"}}},
            None,
            id="ValidFromCompositeFieldPath",
        ),
        pytest.param(
            {"fromFieldPath": "metadata.name", "toFieldPath": "metadata.ownerReferences[*].name"},
            {"metadata": {"name": "test"}},
            {**CD, **OWNER_REFS},
            {**CD, "metadata": {"ownerReferences": [{"name": "test"}, {"name": "test"}]}},
            None,
            id="ValidFromFieldPathWithWildcards",
        ),
        pytest.param(
            {"fromFieldPath": "metadata.name", "toFieldPath": "metadata.ownerReferences[*].badField"},
            {"metadata": {"name": "test"}},
            {**CD, **OWNER_REFS},
            {**CD, **OWNER_REFS},
            "cannot expand ToFieldPath metadata.ownerReferences[*].badField",
            id="InvalidCompositeFieldPathPatchWithWildcards",
        ),
        pytest.param(
            {
                "fromFieldPath": "spec.parameters.allowedGroups",
                "toFieldPath": "spec.forProvider.accessRules[*].allowedGroups",
                "policy": {"toFieldPath": "ForceMergeObjectsAppendArrays"},
            },
            {"spec": {"parameters": {"allowedGroups": [12345678, 7891234]}}},
            {
                **CD,
                "spec": {
                    "forProvider": {
                        "accessRules": [
                            {"action": "Allow", "allowedGroups": [12345678]},
                            {"action": "Deny", "allowedGroups": [12345678]},
                        ]
                    }
                },
            },
            {
                **CD,
                "spec": {
                    "forProvider": {
                        "accessRules": [
                            {"action": "Allow", "allowedGroups": [12345678, 7891234]},
                            {"action": "Deny", "allowedGroups": [12345678, 7891234]},
                        ]
                    }
                },
            },
            None,
            id="ValidToFieldPathWithWildcardsAndMergePolicy",
        ),
        pytest.param(
            {"fromFieldPath": "metadata.labels"},
            {"metadata": {"labels": {"test": "blah"}}},
            dict(CD),
            {**CD, "metadata": {"labels": {"test": "blah"}}},
            None,
            id="DefaultToFieldCompositeFieldPathPatch",
        ),
    ],
)
def test_apply_from_field_path_patch(
    patch: dict[str, Any],
    source: dict[str, Any],
    target: dict[str, Any],
    want: dict[str, Any],
    error: str | None,
) -> None:
    """TestApplyFromFieldPathPatch."""
    if error is None:
        patches.apply_field(_patch(**patch), source, target)
    else:
        with pytest.raises(errors.CrossfnError) as e:
            patches.apply_field(_patch(**patch), source, target)
        assert str(e.value) == error
        assert not patches.is_not_found(e.value)
    assert target == want


COMBINE: dict[str, Any] = {
    "type": "CombineFromComposite",
    "toFieldPath": "metadata.labels.destination",
    "combine": {
        "strategy": "string",
        "variables": [
            {"fromFieldPath": "metadata.labels.source1"},
            {"fromFieldPath": "metadata.labels.source2"},
        ],
        "string": {"fmt": "%s-%s"},
    },
}


@pytest.mark.parametrize(
    ("patch", "source", "want", "error"),
    [
        pytest.param(
            {
                **COMBINE,
                "combine": {
                    **COMBINE["combine"],
                    "variables": [{"fromFieldPath": f"metadata.labels.source{i}"} for i in (1, 2, 3)],
                },
            },
            {"apiVersion": "example.org/v1", "kind": "XR"},
            {**CD, "metadata": {"labels": {"test": "blah"}}},
            "metadata: no such field",
            id="VariableFromFieldPathNotFound",
        ),
        pytest.param(
            COMBINE,
            {"metadata": {"labels": {"source1": "foo", "source2": "bar"}}},
            {**CD, "metadata": {"labels": {"test": "blah", "destination": "foo-bar"}}},
            None,
            id="ValidCombineFromComposite",
        ),
    ],
)
def test_apply_combine_from_variables_patch(
    patch: dict[str, Any], source: dict[str, Any], want: dict[str, Any], error: str | None
) -> None:
    """TestApplyCombineFromVariablesPatch: a missing variable is a not-found error and nothing is written."""
    target = {**CD, "metadata": {"labels": {"test": "blah"}}}
    if error is None:
        patches.apply_combine(_patch(**patch), source, target)
    else:
        with pytest.raises(errors.CrossfnError) as e:
            patches.apply_combine(_patch(**patch), source, target)
        assert str(e.value) == error
        assert patches.is_not_found(e.value)
    assert target == want


def _paths(t: ptinput.ComposedTemplate) -> list[tuple[str, str, int]]:
    return [(p.type, p.from_field_path, len(p.transforms)) for p in t.patches]


P = "FromCompositeFieldPath"


@pytest.mark.parametrize(
    ("res", "want", "error"),
    [
        pytest.param(
            inp(resources=[{"name": "a", "patches": [{"fromFieldPath": "x"}, {"fromFieldPath": "y"}]}]),
            [[(P, "x", 0), (P, "y", 0)]],
            None,
            id="NoCompositionPatchSets",
        ),
        pytest.param(
            inp(resources=[{"name": "a", "patches": [{"type": "PatchSet", "patchSetName": "patch-set-1"}]}]),
            None,
            "cannot find PatchSet by name patch-set-1",
            id="UndefinedPatchSet",
        ),
        pytest.param(
            inp(
                patchSets=[
                    {
                        "name": "patch-set-1",
                        "patches": [
                            {"fromFieldPath": "metadata.namespace"},
                            {"fromFieldPath": "spec.parameters.test"},
                        ],
                    },
                    {
                        "name": "patch-set-2",
                        "patches": [
                            {"fromFieldPath": "metadata.annotations.patch-test-1"},
                            {
                                "fromFieldPath": "metadata.annotations.patch-test-2",
                                "transforms": [{"type": "map", "map": {"k-1": "v-1", "k-2": "v-2"}}],
                            },
                        ],
                    },
                ],
                resources=[
                    {
                        "name": "a",
                        "patches": [
                            {"type": "PatchSet", "patchSetName": "patch-set-2"},
                            {"fromFieldPath": "metadata.name"},
                            {"type": "PatchSet", "patchSetName": "patch-set-1"},
                        ],
                    },
                    {"name": "b", "patches": [{"type": "PatchSet", "patchSetName": "patch-set-1"}]},
                ],
            ),
            [
                [
                    (P, "metadata.annotations.patch-test-1", 0),
                    (P, "metadata.annotations.patch-test-2", 1),
                    (P, "metadata.name", 0),
                    (P, "metadata.namespace", 0),
                    (P, "spec.parameters.test", 0),
                ],
                [(P, "metadata.namespace", 0), (P, "spec.parameters.test", 0)],
            ],
            None,
            id="DefinedPatchSets",
        ),
    ],
)
def test_composed_templates(res: dict[str, Any], want: list[Any] | None, error: str | None) -> None:
    """TestComposedTemplates: PatchSet patches are expanded in place, in order."""
    decoded = ptinput.decode(res)
    if error is not None:
        with pytest.raises(errors.CrossfnError) as e:
            patches.resolve_patch_sets(decoded)
        assert str(e.value) == error
        return
    assert [_paths(t) for t in patches.resolve_patch_sets(decoded)] == want


@pytest.mark.parametrize(
    ("chain", "value", "want"),
    [
        pytest.param([], {"a": {"b": [1.5]}}, {"a": {"b": [1.5]}}, id="NoTransforms"),
        pytest.param(
            [
                {"type": "convert", "convert": {"toType": "float64"}},
                {"type": "math", "math": {"type": "Multiply", "multiply": 2}},
            ],
            2,
            4.0,
            id="MathTransformWithConversionToFloat64",
        ),
        pytest.param(
            [
                {"type": "convert", "convert": {"toType": "int64"}},
                {"type": "math", "math": {"type": "Multiply", "multiply": 2}},
            ],
            2,
            4,
            id="MathTransformWithConversionToInt64",
        ),
    ],
)
def test_resolve_transforms(chain: list[dict[str, Any]], value: Any, want: Any) -> None:
    """TestResolveTransforms: outputs keep Go's number kind (float64 vs int64)."""
    got = transforms.resolve(chain, value)
    assert got == want
    assert type(got) is type(want)


@pytest.mark.parametrize(
    ("patch", "target", "error"),
    [
        pytest.param(
            {"fromFieldPath": "a", "toFieldPath": "b"},
            {"apiVersion": "v1"},
            'cannot patch to object: Object \'Kind\' is missing in \'{"apiVersion":"v1","b":1}\'',
            id="TargetWithoutKind",
        ),
        pytest.param(
            {
                "fromFieldPath": "a",
                "toFieldPath": "b",
                "transforms": [
                    {"type": "convert", "convert": {"toType": "float64"}},
                    {"type": "math", "math": {"type": "Multiply", "multiply": 2}},
                ],
            },
            {**CD, "b": [1]},
            None,
            id="NumbersNormalisedAfterWrite",
        ),
    ],
)
def test_target_round_trip(patch: dict[str, Any], target: dict[str, Any], error: str | None) -> None:
    """After a write the whole target is JSON round-tripped and must keep a kind (upstream pt-3.8)."""
    if error is not None:
        with pytest.raises(errors.CrossfnError) as e:
            patches.apply_field(_patch(**patch), {"a": 1.0}, target)
        assert str(e.value) == error
        return
    patches.apply_field(_patch(**patch), {"a": 1.0}, target)
    assert target["b"] == 2
    assert type(target["b"]) is int


@pytest.mark.parametrize(
    ("source", "want", "error"),
    [
        pytest.param(
            {**CD, "spec": {"n": 3.0, "f": 1.5, "l": [{"x": 2.0}]}},
            {**CD, "spec": {"n": 3, "f": 1.5, "l": [{"x": 2}]}},
            None,
            id="whole floats become integers, as a JSON round trip makes them",
        ),
        pytest.param(
            {"apiVersion": "v1", "data": {}},
            None,
            """Object 'Kind' is missing in '{"apiVersion":"v1","data":{}}'""",
            id="a base without kind fails as normalise_target does",
        ),
    ],
)
def test_normalised_copy(source: dict[str, Any], want: dict[str, Any] | None, error: str | None) -> None:
    """A template's base is copied by its round trip: the base never changes, the copy is remembered."""
    before = repr(source)
    normalised: dict[int, dict[str, Any]] = {}
    if error is not None:
        with pytest.raises(errors.CrossfnError) as exc:
            patches.normalised_copy(source, normalised)
        assert str(exc.value) == error
        assert normalised == {}
        return
    out = patches.normalised_copy(source, normalised)
    assert out == want
    assert normalised == {id(out): out}
    out["spec"]["l"][0]["x"] = "changed"
    out["spec"]["n"] = "changed"
    assert repr(source) == before, "the copy shares no container with the base"
