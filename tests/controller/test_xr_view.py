"""The XR view: one schema decided at construction, every machinery field read and written in its place."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.controller.runtime import _xr

LEGACY = engine.CompositeSchema.LEGACY
MODERN = engine.CompositeSchema.MODERN

MACHINERY: dict[str, Any] = {
    "compositionRef": {"name": "c"},
    "compositionSelector": {"matchLabels": {"tier": "gold"}},
    "compositionRevisionRef": {"name": "c-1"},
    "compositionRevisionSelector": {"matchLabels": {"channel": "stable"}},
    "compositionUpdatePolicy": "Manual",
    "resourceRefs": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "a"}],
    "claimRef": {"apiVersion": "example.org/v1", "kind": "Bucket", "namespace": "team", "name": "b"},
}


def legacy_xr(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.org/v1", "kind": "XBucket", "metadata": {"name": "b-x"}, "spec": spec}


def modern_xr(**machinery: Any) -> dict[str, Any]:
    meta = {"name": "b", "namespace": "team"}
    return {
        "apiVersion": "example.org/v1",
        "kind": "XBucket",
        "metadata": meta,
        "spec": {"crossplane": machinery},
    }


@dataclasses.dataclass(frozen=True)
class ReadCase:
    id: str
    reason: str
    obj: dict[str, Any]
    schema: engine.CompositeSchema
    want: dict[str, Any]


_ALL_SET: dict[str, Any] = {
    "composition_ref": "c",
    "composition_selector": {"tier": "gold"},
    "composition_revision_ref": "c-1",
    "composition_revision_selector": {"channel": "stable"},
    "composition_update_policy": "Manual",
    "resource_refs": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "a"}],
}
_NONE_SET: dict[str, Any] = {
    "composition_ref": None,
    "composition_selector": None,
    "composition_revision_ref": None,
    "composition_revision_selector": None,
    "composition_update_policy": "Automatic",
    "resource_refs": [],
    "claim_ref": None,
}

READ_CASES = [
    ReadCase("LegacyUnderSpec", "a legacy XR keeps the machinery directly under spec",
             legacy_xr(**MACHINERY), LEGACY, {**_ALL_SET, "claim_ref": MACHINERY["claimRef"]}),
    ReadCase("ModernUnderSpecCrossplane", "a modern XR keeps it under spec.crossplane, and has no claim",
             modern_xr(**MACHINERY), MODERN, {**_ALL_SET, "claim_ref": None}),
    ReadCase("ModernIgnoresSpec", "a modern XR never reads fields a legacy XR would hold",
             legacy_xr(**MACHINERY), MODERN, _NONE_SET),
    ReadCase("LegacyIgnoresSpecCrossplane", "a legacy XR never reads spec.crossplane",
             {**legacy_xr(), "spec": {"crossplane": MACHINERY}}, LEGACY, _NONE_SET),
    ReadCase("EmptySelector", "an empty selector is a selector that matches everything, not none",
             modern_xr(compositionSelector={}), MODERN, {**_NONE_SET, "composition_selector": {}}),
    ReadCase("WrongTypesReadUnset", "getters are lenient: a wrongly typed field reads as unset",
             modern_xr(compositionRef=5, resourceRefs={"a": 1}, compositionRevisionSelector="x"), MODERN, _NONE_SET),
    ReadCase("ClaimRefWithoutName", "a claim ref that names no claim is still a claim ref (bound to none)",
             legacy_xr(claimRef={"kind": "Bucket"}), LEGACY, {**_NONE_SET, "claim_ref": {"kind": "Bucket"}}),
    ReadCase("EmptyClaimRef", "an empty claim ref is none",
             legacy_xr(claimRef={}), LEGACY, _NONE_SET),
    ReadCase("NoSpec", "an XR without spec reads every field as unset", {"metadata": {"name": "b"}}, MODERN, _NONE_SET),
]  # fmt: skip


@pytest.mark.parametrize("case", READ_CASES, ids=lambda c: c.id)
def test_reads(case: ReadCase) -> None:
    before = copy.deepcopy(case.obj)
    xr = _xr.XR(case.obj, case.schema)
    got = {name: getattr(xr, name) for name in case.want}
    assert got == case.want, case.reason
    assert case.obj == before, "reading never creates a field"


@dataclasses.dataclass(frozen=True)
class WriteCase:
    id: str
    reason: str
    write: Callable[[_xr.XR], None]
    field: str
    want: Any


WRITE_CASES = [
    WriteCase("CompositionRef", "the selection writes the Composition's name",
              lambda xr: xr.set_composition_ref("c"), "compositionRef", {"name": "c"}),
    WriteCase("RevisionRef", "the selection writes the revision's name",
              lambda xr: xr.set_composition_revision_ref("c-2"), "compositionRevisionRef", {"name": "c-2"}),
    WriteCase("RevisionSelector", "the XRD's default revision selector is copied as matchLabels",
              lambda xr: xr.set_composition_revision_selector({"a": "b"}), "compositionRevisionSelector",
              {"matchLabels": {"a": "b"}}),
    WriteCase("ResourceRefs", "compose writes the refs it applied",
              lambda xr: xr.set_resource_refs([{"name": "a"}]), "resourceRefs", [{"name": "a"}]),
]  # fmt: skip


@pytest.mark.parametrize("case", WRITE_CASES, ids=lambda c: c.id)
@pytest.mark.parametrize(
    ("schema", "path"), [(LEGACY, ("spec",)), (MODERN, ("spec", "crossplane"))], ids=["Legacy", "Modern"]
)
def test_writes_land_where_the_schema_keeps_them(
    case: WriteCase, schema: engine.CompositeSchema, path: tuple[str, ...]
) -> None:
    obj: dict[str, Any] = {"metadata": {"name": "b"}}
    case.write(_xr.XR(obj, schema))
    found: Any = obj
    for key in path:
        found = found[key]
    assert found == {case.field: case.want}, case.reason


@dataclasses.dataclass(frozen=True)
class CheckCase:
    id: str
    reason: str
    obj: dict[str, Any]
    schema: engine.CompositeSchema
    check: str
    want: str


CHECK_CASES = [
    CheckCase("ModernSpecNotObject", "the machinery's parent must be an object",
              {"spec": "x"}, MODERN, "check_selection_fields", "spec must be an object, not a string"),
    CheckCase("ModernMachineryNotObject", "spec.crossplane must be an object",
              {"spec": {"crossplane": []}}, MODERN, "check_selection_fields",
              "spec.crossplane must be an object, not an array"),
    CheckCase("RefName", "a ref's name must be a string, with the modern path",
              modern_xr(compositionRevisionRef={"name": 1}), MODERN, "check_selection_fields",
              "spec.crossplane.compositionRevisionRef.name must be a string, not a number"),
    CheckCase("LegacyLabel", "a selector label must be a string, with the legacy path",
              legacy_xr(compositionSelector={"matchLabels": {"a": True}}), LEGACY, "check_selection_fields",
              "spec.compositionSelector.matchLabels.a must be a string, not a boolean"),
    CheckCase("Policy", "the update policy is Automatic or Manual",
              modern_xr(compositionUpdatePolicy="Sometimes"), MODERN, "check_selection_fields",
              'spec.crossplane.compositionUpdatePolicy must be Automatic or Manual, not "Sometimes"'),
    CheckCase("ResourceRefsNotList", "resourceRefs must be a list",
              modern_xr(resourceRefs={}), MODERN, "check_composition_fields",
              "spec.crossplane.resourceRefs must be a list, not an object"),
    CheckCase("ResourceRefNotObject", "each resource ref must be an object",
              legacy_xr(resourceRefs=[{"name": "a"}, "b"]), LEGACY, "check_composition_fields",
              "spec.resourceRefs[1] must be an object, not a string"),
    CheckCase("LegacyClaimRef", "a legacy XR's claimRef must be an object",
              legacy_xr(claimRef=3), LEGACY, "check_composition_fields", "spec.claimRef must be an object, not a number"),
]  # fmt: skip


@pytest.mark.parametrize("case", CHECK_CASES, ids=lambda c: c.id)
def test_checks_name_the_field(case: CheckCase) -> None:
    with pytest.raises(errors.InputError) as raised:
        getattr(_xr.XR(case.obj, case.schema), case.check)()
    assert str(raised.value) == case.want, case.reason


def test_checks_pass_fields_of_the_other_schema() -> None:
    xr = _xr.XR(legacy_xr(compositionRef=5, resourceRefs="x", claimRef=3), MODERN)
    xr.check_selection_fields()
    xr.check_composition_fields()  # a modern XR has no such fields under spec: nothing to refuse
    _xr.XR(modern_xr(claimRef=3, writeConnectionSecretToRef=3), MODERN).check_composition_fields()


@pytest.mark.parametrize(
    ("scope", "override", "want", "reason"),
    [
        ("LegacyCluster", None, LEGACY, "a LegacyCluster XRD's XRs are legacy"),
        ("Namespaced", None, MODERN, "a namespaced XRD's XRs are modern"),
        ("Cluster", None, MODERN, "a v2 cluster-scoped XRD's XRs are modern"),
        ("LegacyCluster", MODERN, MODERN, "the controller's setting wins over the scope"),
    ],
    ids=["LegacyCluster", "Namespaced", "Cluster", "Override"],
)
def test_schema_is_decided_from_the_xrd(
    scope: str, override: engine.CompositeSchema | None, want: engine.CompositeSchema, reason: str
) -> None:
    xrd = {"apiVersion": "apiextensions.crossplane.io/v2", "spec": {"scope": scope}}
    assert _xr.XR.schema_for(xrd, override) is want, reason


def test_identity_finalizers_and_renew() -> None:
    xr = _xr.XR(modern_xr(), MODERN)
    assert (xr.api_version, xr.kind, xr.name, xr.namespace, xr.key) == (
        "example.org/v1", "XBucket", "b", "team", "team/b",
    )  # fmt: skip
    assert _xr.XR(legacy_xr(), LEGACY).key == "b-x", "a cluster-scoped XR's key is its name"
    assert xr.add_finalizer("f") and not xr.add_finalizer("f"), "a finalizer is added once"
    assert xr.obj["metadata"]["finalizers"] == ["f"]
    assert xr.remove_finalizer("f") and not xr.remove_finalizer("f"), "and removed once"
    assert not xr.deleting
    renewed = xr.renew({**modern_xr(), "metadata": {"name": "b", "deletionTimestamp": "t"}})
    assert renewed.schema is MODERN and renewed.deleting, (
        "a renewed view keeps the schema, reads the new object"
    )


def test_status_writes() -> None:
    xr = _xr.XR(legacy_xr(), LEGACY)
    xr.set_connection_details_published("2026-11-27T00:00:00Z")
    xr.set_condition({"type": "Synced", "status": "True", "reason": "ReconcileSuccess"})
    assert xr.obj["status"]["connectionDetails"] == {"lastPublishedTime": "2026-11-27T00:00:00Z"}
    assert xr.condition("Synced")["status"] == "True"
    assert xr.condition("Ready") == {"type": "Ready", "status": "Unknown"}


@pytest.mark.parametrize(
    ("schema", "status", "want", "reason"),
    [
        (LEGACY, {"claimConditionTypes": ["DatabaseReady"]}, ["DatabaseReady"], "a legacy XR lists them"),
        (LEGACY, {"claimConditionTypes": "DatabaseReady"}, [], "not a list reads as none"),
        (MODERN, {"claimConditionTypes": ["DatabaseReady"]}, [], "a modern XR has no claim"),
    ],
    ids=["Legacy", "NotAList", "Modern"],
)
def test_claim_condition_types(
    schema: engine.CompositeSchema, status: dict[str, Any], want: list[str], reason: str
) -> None:
    assert _xr.XR({**legacy_xr(), "status": status}, schema).claim_condition_types == want, reason
