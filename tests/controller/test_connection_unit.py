"""Connection Secrets against an in-memory API: publishing an XR's
(upstream controllers-4) and propagating to a claim (upstream controllers-2.8).

test_connection.py proves the chain end to end on the real API server.
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.controller.claim import _connection as claim_connection
from crossfn.controller.composite import _composite, _connection
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

from . import composite_fixtures as fx
from .fake_api import FakeApi

XR_UID = "xr-uid"
CLAIM_UID = "claim-uid"
TYPE = "connection.crossplane.io/v1alpha1"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def xr(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.org/v1",
        "kind": "XBucket",
        "metadata": {"name": "x", "uid": XR_UID},
        "spec": {"writeConnectionSecretToRef": {"name": "xs", "namespace": "sys"}, **spec},
    }


def claim() -> dict[str, Any]:
    return {
        "apiVersion": "example.org/v1",
        "kind": "Bucket",
        "metadata": {"name": "c", "namespace": "team", "uid": CLAIM_UID},
        "spec": {"writeConnectionSecretToRef": {"name": "cs"}},
    }


def owner(uid: str, kind: str = "XBucket", name: str = "x") -> dict[str, Any]:
    return {
        "apiVersion": "example.org/v1",
        "kind": kind,
        "name": name,
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def secret(
    name: str,
    namespace: str,
    data: dict[str, str],
    *,
    owners: list[dict[str, Any]] | None = None,
    type_: str = TYPE,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if owners is not None:
        meta["ownerReferences"] = owners
    return {"apiVersion": "v1", "kind": "Secret", "metadata": meta, "type": type_, "data": data}


def data_of(api: FakeApi, name: str) -> dict[str, str]:
    [s] = [o for o in api.of_kind("Secret") if o["metadata"]["name"] == name]
    return dict(s.get("data") or {})


@dataclasses.dataclass(frozen=True)
class PublishCase:
    id: str
    reason: str
    existing: dict[str, Any] | None
    details: dict[str, bytes]
    keys: tuple[str, ...]
    want_written: bool
    want_data: dict[str, str] | None
    want_error: str = ""


PUBLISH_CASES = [
    PublishCase("Creates", "an absent Secret is created with every key", None, {"a": b"1", "b": b"2"}, (), True,
                {"a": b64("1"), "b": b64("2")}),
    PublishCase("FiltersKeys", "only the XRD's connectionSecretKeys are published", None, {"a": b"1", "b": b"2"}, ("a",),
                True, {"a": b64("1")}),
    PublishCase("Additive", "a key the pipeline no longer returns is kept", secret("xs", "sys", {"old": b64("0")}, owners=[owner(XR_UID)]),
                {"a": b"1"}, (), True, {"old": b64("0"), "a": b64("1")}),
    PublishCase("NoOp", "nothing changed, nothing written", secret("xs", "sys", {"a": b64("1")}, owners=[owner(XR_UID)]),
                {"a": b"1"}, (), False, {"a": b64("1")}),
    PublishCase("AdoptsUncontrolledConnectionSecret", "an uncontrolled connection Secret may be taken over",
                secret("xs", "sys", {}), {"a": b"1"}, (), True, {"a": b64("1")}),
    PublishCase("RefusesAnotherOwner", "a Secret controlled by someone else is never written",
                secret("xs", "sys", {"x": b64("theirs")}, owners=[owner("someone-else")]), {"a": b"1"}, (), False,
                {"x": b64("theirs")}, f'cannot apply connection secret: existing secret is not controlled by UID "{XR_UID}"'),
    PublishCase("RefusesUncontrolledOpaque", "an uncontrolled Secret of another type is never written",
                secret("xs", "sys", {"x": b64("theirs")}, type_="Opaque"), {"a": b"1"}, (), False,
                {"x": b64("theirs")}, 'cannot apply connection secret: refusing to modify uncontrolled secret of type "Opaque"'),
]  # fmt: skip


@pytest.mark.parametrize("case", PUBLISH_CASES, ids=lambda c: c.id)
async def test_publish(case: PublishCase) -> None:
    api = FakeApi()
    if case.existing is not None:
        api.put(case.existing)
    if case.want_error:
        with pytest.raises(errors.CrossfnError) as raised:
            await _connection.publish(api, xr(), case.details, case.keys)
        assert str(raised.value) == case.want_error, case.reason
    else:
        assert await _connection.publish(api, xr(), case.details, case.keys) is case.want_written, case.reason
    assert data_of(api, "xs") == case.want_data, case.reason
    if case.want_written:
        [s] = api.of_kind("Secret")
        assert s["metadata"]["ownerReferences"] == [owner(XR_UID)] and s["type"] == TYPE, (
            f"{case.reason}: the XR controls it"
        )


async def test_an_xr_without_a_secret_ref_publishes_nothing() -> None:
    api = FakeApi()
    assert await _connection.publish(api, {**xr(), "spec": {}}, {"a": b"1"}) is False
    assert api.writes() == []


@dataclasses.dataclass(frozen=True)
class PropagateCase:
    id: str
    reason: str
    xr_secret: dict[str, Any] | None
    claim_secret: dict[str, Any] | None
    want_written: bool
    want_data: dict[str, str] | None
    want_error: str = ""


XR_SECRET = secret("xs", "sys", {"a": b64("1"), "b": b64("2")}, owners=[owner(XR_UID)])
PROPAGATE_CASES = [
    PropagateCase("Creates", "the claim's Secret is an exact copy", XR_SECRET, None, True, {"a": b64("1"), "b": b64("2")}),
    PropagateCase("Replaces", "stale keys go: the claim's Secret is replaced, not merged", XR_SECRET,
                  secret("cs", "team", {"stale": b64("x")}, owners=[owner(CLAIM_UID, "Bucket", "c")]), True,
                  {"a": b64("1"), "b": b64("2")}),
    PropagateCase("NoOp", "equal data is not written", XR_SECRET,
                  secret("cs", "team", {"a": b64("1"), "b": b64("2")}, owners=[owner(CLAIM_UID, "Bucket", "c")]), False,
                  {"a": b64("1"), "b": b64("2")}),
    PropagateCase("MissingXRSecret", "the XR's Secret must exist", None, None, False, None,
                  'cannot get composite resource\'s connection secret: secret "sys/xs" not found'),
    PropagateCase("XRSecretNotTheXRs", "a claim cannot exfiltrate a Secret its XR does not control",
                  secret("xs", "sys", {"a": b64("1")}, owners=[owner("other")]), None, False, None,
                  "cannot establish control of existing connection secret"),
    PropagateCase("ClaimSecretOfAnother", "the claim's target Secret belongs to someone else", XR_SECRET,
                  secret("cs", "team", {"x": b64("theirs")}, owners=[owner("other", "Bucket", "d")]), False, {"x": b64("theirs")},
                  f'cannot create or update connection secret: existing secret is not controlled by UID "{CLAIM_UID}"'),
]  # fmt: skip


@pytest.mark.parametrize("case", PROPAGATE_CASES, ids=lambda c: c.id)
async def test_propagate(case: PropagateCase) -> None:
    api = FakeApi()
    for s in (case.xr_secret, case.claim_secret):
        if s is not None:
            api.put(s)
    if case.want_error:
        with pytest.raises(errors.CrossfnError) as raised:
            await claim_connection.propagate(api, claim(), xr())
        assert str(raised.value) == case.want_error, case.reason
    else:
        assert await claim_connection.propagate(api, claim(), xr()) is case.want_written, case.reason
    if case.want_data is None:
        assert [s for s in api.of_kind("Secret") if s["metadata"]["name"] == "cs"] == [], case.reason
        return
    assert data_of(api, "cs") == case.want_data, case.reason
    [cs] = [s for s in api.of_kind("Secret") if s["metadata"]["name"] == "cs"]
    if case.want_written:
        assert (
            cs["metadata"]["ownerReferences"] == [owner(CLAIM_UID, "Bucket", "c")] and cs["type"] == TYPE
        ), case.reason


def details_fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Publish two keys; the XRD lets only ``password`` through."""
    response.set_desired_composite_connection_details(rsp, {"password": b"hunter2", "internal": b"x"})


async def test_the_xr_reconciler_publishes_a_legacy_xrs_details() -> None:
    the_xrd = fx.xrd("LegacyCluster", connectionSecretKeys=["password"])
    api = FakeApi({(fx.XR_API, "XBucket"): False})
    comp = api.put(fx.composition())
    api.put(fx.revision(comp, writeConnectionSecretsToNamespace="sys"))
    rec = fx.Events()
    runner = engine.build_runner(engine.InProcessRunner({"fn": details_fn}))
    reconciler = _composite.CompositeReconciler(
        api, None, rec, runner, engine.Sources(), xrd=the_xrd, settings=_composite.CompositeSettings(), clock=lambda: fx.T0
    )  # fmt: skip
    api.put(fx.xr(namespace=""))
    await reconciler.reconcile("b")
    [x] = api.of_kind("XBucket")
    uid = x["metadata"]["uid"]
    want = {"name": uid, "namespace": "sys"}
    assert x["spec"]["writeConnectionSecretToRef"] == want, "the default of upstream core-2.1 step 10"
    assert data_of(api, uid) == {"password": b64("hunter2")}, "only the XRD's connectionSecretKeys"
    assert x["status"]["connectionDetails"] == {"lastPublishedTime": "2026-01-01T12:00:00Z"}
    published = ("Normal", "PublishConnectionSecret", "Successfully published connection details")
    assert rec.seen.count(published) == 1
    await reconciler.reconcile("b")
    assert rec.seen.count(published) == 1, "an unchanged Secret is not published again"
    [x] = api.of_kind("XBucket")
    assert x["status"]["connectionDetails"] == {"lastPublishedTime": "2026-01-01T12:00:00Z"}, (
        "the time is kept"
    )


async def test_a_foreign_xr_secret_fails_the_reconcile_with_a_clear_condition() -> None:
    the_xrd = fx.xrd("LegacyCluster")
    api = FakeApi({(fx.XR_API, "XBucket"): False})
    comp = api.put(fx.composition())
    api.put(fx.revision(comp))
    api.put(secret("taken", "sys", {"x": b64("theirs")}, owners=[owner("someone-else")]))
    rec = fx.Events()
    runner = engine.build_runner(engine.InProcessRunner({"fn": details_fn}))
    reconciler = _composite.CompositeReconciler(
        api, None, rec, runner, engine.Sources(), xrd=the_xrd, clock=lambda: fx.T0
    )
    api.put(fx.xr(namespace="", writeConnectionSecretToRef={"name": "taken", "namespace": "sys"}))
    with pytest.raises(errors.CrossfnError):
        await reconciler.reconcile("b")
    [x] = api.of_kind("XBucket")
    uid = x["metadata"]["uid"]
    want = f'cannot publish connection details: cannot apply connection secret: existing secret is not controlled by UID "{uid}"'
    [synced] = [c for c in x["status"]["conditions"] if c["type"] == "Synced"]
    assert (synced["status"], synced["reason"], synced["message"]) == ("False", "ReconcileError", want)
    assert ("Warning", "PublishConnectionSecret", want) in rec.seen
    assert data_of(api, "taken") == {"x": b64("theirs")}, "the Secret is untouched"
