"""The claim reconciler against an in-memory API:
upstream controllers-2.2–controllers-2.6's steps, texts and writes.

test_claims.py proves the same against the real API server (server-side apply,
garbage collection); these cases pin exact texts and the failure paths quickly.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest

from crossfn import errors
from crossfn.controller.claim import _claim_sync, _claims
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _controller, _events
from crossfn.schemas import xrd as xrd_schemas

from .composite_fixtures import GROUP, T0, XR_API, Events
from .fake_api import FakeApi
from .fake_informers import FakeInformers

CLAIM_KIND = "Bucket"


def xrd(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": f"xbuckets.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": {"kind": "XBucket", "plural": "xbuckets"},
            "claimNames": {"kind": CLAIM_KIND, "plural": "buckets"},
            "versions": [{"name": "v1", "served": True, "referenceable": True}],
            **spec,
        },
    }


def claim(name: str = "c", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": XR_API,
        "kind": CLAIM_KIND,
        "metadata": {"name": name, "namespace": "team"},
        "spec": {"size": "s", **spec},
    }


def xr(
    name: str = "existing", claim_ref: dict[str, str] | None = None, ready: bool = False, **status: Any
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": XR_API,
        "kind": "XBucket",
        "metadata": {"name": name},
        "spec": {"size": "s"},
    }
    if claim_ref is not None:
        obj["spec"]["claimRef"] = claim_ref
    conditions = [{"type": "Ready", "status": "True" if ready else "False", "reason": "Available" if ready else "Creating",
                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]  # fmt: skip
    obj["status"] = {"conditions": conditions, **status}
    return obj


def ref_to(name: str, namespace: str = "team") -> dict[str, str]:
    return {"apiVersion": XR_API, "kind": CLAIM_KIND, "namespace": namespace, "name": name}


def setup(the_xrd: dict[str, Any] | None = None) -> tuple[FakeApi, Events, _claims.ClaimReconciler]:
    api = FakeApi({(XR_API, "XBucket"): False, (XR_API, CLAIM_KIND): True})
    rec = Events()
    reconciler = _claims.ClaimReconciler(
        api, None, rec, xrd=the_xrd or xrd(), clock=lambda: T0, rng=random.Random(1)
    )
    return api, rec, reconciler


def stored(api: FakeApi, kind: str, name: str) -> dict[str, Any]:
    [found] = [o for o in api.of_kind(kind) if o["metadata"]["name"] == name]
    return found


def conditions(obj: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c["reason"], c.get("message", ""))
        for c in obj.get("status", {}).get("conditions", [])
    }


async def test_a_new_claim_creates_and_binds_its_xr() -> None:
    api, rec, reconciler = setup()
    api.put({**claim(writeConnectionSecretToRef={"name": "s"}, compositeDeletePolicy="Foreground"),
             "metadata": {"name": "c", "namespace": "team",
                          "labels": {"app": "web", "app.kubernetes.io/name": "x"},
                          "annotations": {"note": "kept", "kubectl.kubernetes.io/last-applied-configuration": "{}"}}})  # fmt: skip
    result = await reconciler.reconcile("team/c")
    assert result == _controller.Result(), "no requeue: the XR watch re-triggers the claim"
    c = stored(api, CLAIM_KIND, "c")
    [x] = api.of_kind("XBucket")
    name = x["metadata"]["name"]
    assert (
        name.startswith("c-") and len(name) == 7 and all(ch in _claim_sync.NAME_ALPHABET for ch in name[2:])
    ), "a generated name: <claim>-<5 of SimpleNameGenerator's characters>"
    assert c["spec"]["resourceRef"] == {"apiVersion": XR_API, "kind": "XBucket", "name": name}, (
        "no namespace for a cluster XR"
    )
    assert c["metadata"]["finalizers"] == [_claims.FINALIZER]
    assert x["spec"] == {"size": "s", "claimRef": ref_to("c")}, "claim-only keys stay on the claim"
    assert x["metadata"]["labels"] == {
        "app": "web",
        "crossplane.io/claim-name": "c",
        "crossplane.io/claim-namespace": "team",
    }, "Kubernetes' reserved labels are not copied; Crossplane's claim labels are added"
    assert x["metadata"]["annotations"] == {"note": "kept"}
    assert api.writes().index(("update", CLAIM_KIND, "c")) < api.writes().index(("apply", "XBucket", name)), (
        "the claim names its XR before the XR exists, so no XR is ever leaked"
    )
    assert conditions(c) == {"Synced": ("True", "ReconcileSuccess", ""),
                             "Ready": ("False", "Waiting", "Claim is waiting for composite resource to become Ready")}  # fmt: skip
    assert rec.seen == [("Normal", "BindCompositeResource", "Successfully bound composite resource"),
                        ("Normal", "BindCompositeResource", "Composite resource is not yet ready")]  # fmt: skip


async def test_a_ready_xr_makes_a_ready_claim_with_its_status() -> None:
    api, rec, reconciler = setup()
    the_xr = xr("x1", ref_to("c"), ready=True, phase="Up", claimConditionTypes=["DatabaseReady"],
                connectionDetails={"lastPublishedTime": "2026-01-01T00:00:00Z"})  # fmt: skip
    the_xr["status"]["conditions"].append({"type": "DatabaseReady", "status": "False", "reason": "Provisioning",
                                           "message": "soon", "lastTransitionTime": "2026-01-01T00:00:00Z"})  # fmt: skip
    api.put(the_xr)
    api.put(claim(resourceRef={"apiVersion": XR_API, "kind": "XBucket", "name": "x1"}))
    await reconciler.reconcile("team/c")
    c = stored(api, CLAIM_KIND, "c")
    assert c["status"]["phase"] == "Up", "the XR's status is the claim's"
    assert "claimConditionTypes" not in c["status"] and "connectionDetails" not in c["status"], (
        "the XR's machinery stays"
    )
    assert conditions(c) == {"Synced": ("True", "ReconcileSuccess", ""), "DatabaseReady": ("False", "Provisioning", "soon"),
                             "Ready": ("True", "Available", "")}, "claimConditionTypes pass through"  # fmt: skip
    [passed] = [x for x in c["status"]["conditions"] if x["type"] == "DatabaseReady"]
    assert passed["observedGeneration"] == c["metadata"]["generation"], "rewritten to the claim's generation"
    assert rec.seen == [], "an XR already bound to this claim is not announced again"


@dataclasses.dataclass(frozen=True)
class BindCase:
    id: str
    reason: str
    existing: Callable[[], dict[str, Any]]
    want_bound: bool
    want_message: str = ""


BIND_CASES = [
    BindCase("AdoptsAnUnboundXR", "an XR named by resourceRef and bound to no claim is adopted",
             lambda: xr("x1"), want_bound=True),
    BindCase("RefusesAnotherClaimsXR", "an XR bound to another claim is never touched",
             lambda: xr("x1", ref_to("other")), want_bound=False,
             want_message='refusing to operate on composite resource "x1" that is not bound to this claim: bound to claim "other"'),
    BindCase("RefusesASameNamedClaimElsewhere", "a claim of the same name in another namespace is another claim",
             lambda: xr("x1", ref_to("c", namespace="elsewhere")), want_bound=False,
             want_message='refusing to operate on composite resource "x1" that is not bound to this claim: bound to claim "c"'),
]  # fmt: skip


@pytest.mark.parametrize("case", BIND_CASES, ids=lambda c: c.id)
async def test_binding_an_existing_xr(case: BindCase) -> None:
    api, rec, reconciler = setup()
    api.put(case.existing())
    api.put(claim(resourceRef={"apiVersion": XR_API, "kind": "XBucket", "name": "x1"}))
    before = stored(api, "XBucket", "x1")
    result = await reconciler.reconcile("team/c")
    assert result.requeue_after is None, case.reason
    after = stored(api, "XBucket", "x1")
    c = stored(api, CLAIM_KIND, "c")
    if case.want_bound:
        assert after["spec"]["claimRef"] == ref_to("c"), case.reason
        assert ("patch", "XBucket", "x1") in api.writes(), (
            f"{case.reason}: its managed fields are reset first"
        )
        assert ("Normal", "BindCompositeResource", "Successfully bound composite resource") in rec.seen, (
            case.reason
        )
        return
    assert after == before, case.reason
    assert conditions(c)["Synced"] == ("False", "ReconcileError", case.want_message), case.reason
    assert rec.seen == [("Warning", "BindCompositeResource", case.want_message)], case.reason
    assert "finalizers" not in c["metadata"], f"{case.reason}: nothing else happens"


async def test_an_xr_kind_that_is_not_served_is_reported() -> None:
    api, rec, reconciler = setup()
    api.put(claim())
    api.fail(
        "apply", "XBucket", _api.NoKindMatch('no matches for kind "XBucket" in version "example.org/v1"')
    )
    with pytest.raises(errors.CrossfnError):
        await reconciler.reconcile("team/c")
    want = ('cannot bind and sync claim with composite resource: cannot apply composite resource: '
            'no matches for kind "XBucket" in version "example.org/v1"')  # fmt: skip
    assert conditions(stored(api, CLAIM_KIND, "c"))["Synced"] == ("False", "ReconcileError", want)
    assert rec.seen == [("Warning", "BindCompositeResource", want)]


async def test_a_paused_claim_only_says_so() -> None:
    api, rec, reconciler = setup()
    api.put(
        {
            **claim(),
            "metadata": {"name": "c", "namespace": "team", "annotations": {"crossplane.io/paused": "true"}},
        }
    )
    await reconciler.reconcile("team/c")
    message = "Reconciliation (including deletion) is paused via the pause annotation"
    assert conditions(stored(api, CLAIM_KIND, "c")) == {"Synced": ("False", "ReconcilePaused", message)}
    assert rec.seen == [("Normal", "ReconciliationPaused", message)]
    assert api.of_kind("XBucket") == []


@dataclasses.dataclass(frozen=True)
class DeleteCase:
    id: str
    reason: str
    policy: str | None
    want_propagation_requeue: bool


DELETE_CASES = [
    DeleteCase("Background", "the XR is deleted and the claim goes at once", "Background", False),
    DeleteCase("Unset", "no policy means Background", None, False),
    DeleteCase("Foreground", "the claim waits until the XR and what it composed are gone", "Foreground", True),
]  # fmt: skip


@pytest.mark.parametrize("case", DELETE_CASES, ids=lambda c: c.id)
async def test_deleting_a_claim(case: DeleteCase) -> None:
    api, rec, reconciler = setup()
    spec = {"compositeDeletePolicy": case.policy} if case.policy else {}
    api.put(claim(**spec))
    await reconciler.reconcile("team/c")
    [x] = api.of_kind("XBucket")
    name = x["metadata"]["name"]
    x["metadata"]["finalizers"] = ["composite.apiextensions.crossplane.io"]  # as the XR controller adds it
    api.objects[(XR_API, "XBucket", "", name)] = x
    await api.delete(XR_API, CLAIM_KIND, "c", "team")
    rec.seen.clear()
    result = await reconciler.reconcile("team/c")
    assert ("delete", "XBucket", name) in api.writes(), case.reason
    if case.want_propagation_requeue:
        assert result.requeue_after == _claims.FOREGROUND_WAIT_SECONDS, case.reason
        assert conditions(stored(api, CLAIM_KIND, "c"))["Ready"] == ("False", "Deleting", ""), case.reason
        assert await reconciler.reconcile("team/c") == result, (
            f"{case.reason}: still waiting while the XR is deleted"
        )
        assert api.writes().count(("delete", "XBucket", name)) == 1, f"{case.reason}: deleted once"
        del api.objects[(XR_API, "XBucket", "", name)]  # the garbage collector finished
        await reconciler.reconcile("team/c")
    assert api.of_kind(CLAIM_KIND) == [], f"{case.reason}: the finalizer is removed and the claim goes"
    assert rec.seen == [("Normal", "DeleteCompositeResource", "Successfully deleted composite resource")], (
        case.reason
    )


async def test_a_failed_xr_delete_is_reported() -> None:
    api, rec, reconciler = setup()
    api.put(claim())
    await reconciler.reconcile("team/c")
    await api.delete(XR_API, CLAIM_KIND, "c", "team")
    api.fail("delete", "XBucket", _api.Forbidden("forbidden", status=403))
    rec.seen.clear()
    with pytest.raises(errors.CrossfnError):
        await reconciler.reconcile("team/c")
    assert rec.seen == [
        ("Warning", "DeleteCompositeResource", "cannot delete bound composite resource: forbidden")
    ]
    assert stored(api, CLAIM_KIND, "c")["metadata"]["finalizers"] == [_claims.FINALIZER], "the claim stays"


@dataclasses.dataclass(frozen=True)
class PatchCase:
    id: str
    reason: str
    claim_spec: dict[str, Any]
    existing_spec: dict[str, Any]
    enforced: bool
    want_spec: dict[str, Any]


REF = {"name": "r"}
PATCH_CASES = [
    PatchCase("StripsMachinery", "claim-only and XR machinery keys never reach the XR",
              {"size": "s", "compositeDeletePolicy": "Background", "resourceRef": REF, "writeConnectionSecretToRef": REF,
               "resourceRefs": [], "claimRef": REF, "compositionRevisionRef": REF}, {}, False, {"size": "s"}),
    PatchCase("PropagatesSelection", "Composition selection is the claim's to choose",
              {"compositionRef": REF, "compositionSelector": {"matchLabels": {"a": "b"}}, "compositionUpdatePolicy": "Manual",
               "compositionRevisionSelector": {"matchLabels": {"c": "d"}}}, {}, False,
              {"compositionRef": REF, "compositionSelector": {"matchLabels": {"a": "b"}}, "compositionUpdatePolicy": "Manual",
               "compositionRevisionSelector": {"matchLabels": {"c": "d"}}}),
    PatchCase("EnforcedComposition", "an enforced Composition is not the claim's to choose",
              {"compositionRef": REF}, {}, True, {}),
    PatchCase("ManualRevision", "under the XR's Manual policy the claim pins the revision",
              {"compositionRevisionRef": REF}, {"compositionUpdatePolicy": "Manual"}, False, {"compositionRevisionRef": REF}),
]  # fmt: skip


@pytest.mark.parametrize("case", PATCH_CASES, ids=lambda c: c.id)
def test_composite_patch_spec(case: PatchCase) -> None:
    existing = {"metadata": {"name": "x"}, "spec": case.existing_spec}
    patch = _claim_sync.composite_patch(
        claim(**case.claim_spec) | {"spec": case.claim_spec}, existing, api_version=XR_API, kind="XBucket",
        name="x", enforced=case.enforced,
    )  # fmt: skip
    assert patch["spec"] == {**case.want_spec, "claimRef": ref_to("c")}, case.reason


def test_the_external_name_is_kept_on_the_xr_and_learned_by_the_claim() -> None:
    existing = {"apiVersion": XR_API, "kind": "XBucket",
                "metadata": {"name": "x", "annotations": {"crossplane.io/external-name": "ext"}},
                "spec": {"compositionRef": REF, "compositionUpdatePolicy": "Automatic", "compositionRevisionRef": {"name": "r-2"},
                         "compositionRevisionSelector": {"matchLabels": {"a": "b"}}}}  # fmt: skip
    patch = _claim_sync.composite_patch(
        claim(), existing, api_version=XR_API, kind="XBucket", name="x", enforced=False
    )
    assert patch["metadata"]["annotations"] == {"crossplane.io/external-name": "ext"}
    c = claim()
    _claim_sync.learn_from_composite(c, existing, enforced=False)
    assert c["metadata"]["annotations"] == {"crossplane.io/external-name": "ext"}
    assert c["spec"]["compositionRef"] == REF and c["spec"]["compositionRevisionRef"] == {"name": "r-2"}
    assert c["spec"]["compositionRevisionSelector"] == {"matchLabels": {"a": "b"}}


async def test_no_free_name_after_ten_tries() -> None:
    class Taken(FakeApi):
        async def get(
            self, api_version: str, kind: str, name: str, namespace: str = ""
        ) -> dict[str, Any] | None:
            return {"metadata": {"name": name}}

    with pytest.raises(errors.CrossfnError) as raised:
        await _claim_sync.generate_name(Taken(), XR_API, "XBucket", "c", random.Random(1))
    assert (
        str(raised.value)
        == "cannot generate a name for composite resource: cannot generate a name for a resource"
    )


def test_xr_events_enqueue_the_claims_they_name() -> None:
    informers = FakeInformers()
    reconciler = _claims.ClaimReconciler(FakeApi(), informers, Events(), xrd=xrd())
    seen: list[str] = []
    reconciler.set_enqueue(seen.append)
    reconciler.start()
    informers.informer(XR_API, "XBucket").fire(
        "MODIFIED", xr("x", ref_to("new")), xr("x", ref_to("old", "ns2"))
    )
    informers.informer(XR_API, "XBucket").fire("ADDED", xr("unclaimed"))
    informers.informer(XR_API, "XBucket").fire("ADDED", {**xr("odd"), "spec": {"claimRef": "team/c"}})
    informers.informer(XR_API, CLAIM_KIND).fire("ADDED", claim("mine"))
    assert seen == ["ns2/old", "team/new", "team/mine"], (
        "both claimRefs of an update, and claims themselves; a claimRef that is not an object names no claim"
    )
    reconciler.stop()
    informers.informer(XR_API, CLAIM_KIND).fire("ADDED", claim("late"))
    assert seen[-1] == "team/mine", "a stopped reconciler hears nothing"


@pytest.mark.parametrize(
    ("the_xrd", "want"),
    [(xrd(), True), ({**xrd(), "spec": {**xrd()["spec"], "scope": "Cluster"}}, False),
     ({**xrd(), "spec": {k: v for k, v in xrd()["spec"].items() if k != "claimNames"}}, False)],
    ids=["Legacy", "Modern", "NoClaimNames"],
)  # fmt: skip
def test_offers_claim(the_xrd: dict[str, Any], want: bool) -> None:
    assert xrd_schemas.offers_claim(the_xrd) is want


@dataclasses.dataclass(frozen=True)
class MalformedCase:
    id: str
    reason: str
    claim: dict[str, Any]
    want: str


BIND = "cannot bind and sync claim with composite resource: "
MALFORMED = [
    MalformedCase("SpecNotObject", "a claim's spec is an object", {**claim(), "spec": "x"},
                  BIND + "spec must be an object, not a string"),
    MalformedCase("ResourceRefNumber", "a ref must be an object", claim(resourceRef=5),
                  BIND + "spec.resourceRef must be an object, not a number"),
    MalformedCase("ResourceRefNameList", "a ref's name must be a string", claim(resourceRef={"name": ["x"]}),
                  BIND + "spec.resourceRef.name must be a string, not an array"),
    MalformedCase("SecretRefString", "the Secret ref must be an object", claim(writeConnectionSecretToRef="s"),
                  BIND + "spec.writeConnectionSecretToRef must be an object, not a string"),
    MalformedCase("UnknownDeletePolicy", "the policy is Background or Foreground", claim(compositeDeletePolicy="Later"),
                  BIND + 'spec.compositeDeletePolicy must be Background or Foreground, not "Later"'),
]  # fmt: skip


@pytest.mark.parametrize("case", MALFORMED, ids=lambda c: c.id)
async def test_malformed_fields_are_reported(case: MalformedCase) -> None:
    api, rec, reconciler = setup()
    api.put(case.claim)
    with pytest.raises(errors.CrossfnError) as raised:  # a user's mistake, never another exception
        await reconciler.reconcile("team/c")
    assert str(raised.value) == case.want, case.reason
    assert conditions(stored(api, CLAIM_KIND, "c"))["Synced"] == ("False", "ReconcileError", case.want), (
        case.reason
    )
    assert ("Warning", "BindCompositeResource", case.want) in rec.seen, case.reason
    assert api.of_kind("XBucket") == [], f"{case.reason}: no XR is made"


async def test_events_come_from_the_claim_controller() -> None:
    api = FakeApi({(XR_API, "XBucket"): False, (XR_API, CLAIM_KIND): True})
    recorder = _events.EventRecorder(api, host="h")
    reconciler = _claims.ClaimReconciler(api, None, recorder, xrd=xrd(), clock=lambda: T0)
    api.put(claim())
    await reconciler.reconcile("team/c")
    await recorder.flush()
    sources = {e["source"]["component"] for e in api.of_kind("Event")}
    assert sources == {"offered/compositeresourcedefinition.apiextensions.crossplane.io"}, (
        "Crossplane's claim controller records through the offered controller's recorder"
    )
    for e in api.of_kind("Event"):
        assert e["metadata"]["annotations"] == {
            "controller": "claim/xbuckets.example.org",
            "external-name": "",
        }, "annotated with the claim controller's name and the claim's external name"
