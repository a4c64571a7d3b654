"""Claims against a real kube-apiserver and kube-controller-manager (envtest).

A claim creates and binds its XR, its spec reaches the composed resources and
the XR's readiness comes back, and deleting it follows each
``compositeDeletePolicy``: Background lets the claim go at once and the
garbage collector finish, Foreground keeps the claim until the XR and what it
composed are gone. The faults (an XR bound to another claim, an XR kind the
API server does not serve) end in a condition and an Event, never a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossfn import errors
from crossfn.controller.claim import _claims
from crossfn.controller.composite import _composite, _sources
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _controller, _events, _informer
from crossfn.schemas import xrd as xrd_schemas

from . import claim_fixtures as cf
from .test_composite import apply_crd, condition, mark_ready, until

pytestmark = pytest.mark.cluster


@pytest.fixture
async def namespace() -> AsyncIterator[str]:
    yield f"h3c-{uuid.uuid4().hex[:8]}"


async def test_claim_binds_propagates_and_reports_ready(
    kube: Any, crossplane_crds: list[str], namespace: str
) -> None:
    world = cf.ClaimWorld(kube, namespace)
    await world.start()
    await world.create_claim("db", labels={"team": "a", "app.kubernetes.io/name": "db"})
    xr = await world.settle("db")
    name = xr["metadata"]["name"]
    claim = await world.claim("db")
    assert claim is not None
    assert claim["spec"]["resourceRef"] == {"apiVersion": cf.API_VERSION, "kind": cf.XR_KIND, "name": name}
    assert claim["metadata"]["finalizers"] == [_claims.FINALIZER]
    assert xr["spec"]["claimRef"] == {
        "apiVersion": cf.API_VERSION,
        "kind": cf.CLAIM_KIND,
        "namespace": namespace,
        "name": "db",
    }
    assert {k: v for k, v in xr["metadata"]["labels"].items() if k != "crossplane.io/composite"} == {
        "team": "a", "crossplane.io/claim-name": "db", "crossplane.io/claim-namespace": namespace,
    }, "the claim's labels, without Kubernetes' reserved ones, plus Crossplane's claim labels"  # fmt: skip
    assert condition(claim, "Synced")[:2] == ("True", "ReconcileSuccess")
    assert condition(claim, "Ready") == (
        "False",
        "Waiting",
        "Claim is waiting for composite resource to become Ready",
    )
    [instance] = await world.composed(name)
    assert instance["spec"]["size"] == "s"

    await mark_ready(kube, instance)
    await world.reconcile_xr(name)
    await world.reconcile_claim("db")
    assert condition(await world.claim("db"), "Ready")[:2] == ("True", "Available"), (
        "the XR's readiness reaches the claim"
    )

    claim = await world.claim("db")
    assert claim is not None
    claim["spec"]["size"] = "m"
    del claim["metadata"]["labels"]["team"]
    await kube.update(claim)
    await world.reconcile_claim("db")
    await world.reconcile_xr(name)
    changed = await world.xr(name)
    assert changed is not None and changed["spec"]["size"] == "m", "a claim's spec change reaches its XR"
    assert "team" not in changed["metadata"]["labels"], (
        "a label removed from the claim leaves the XR (server-side apply)"
    )
    assert [c["spec"]["size"] for c in await world.composed(name)] == ["m"], "and the composed resource"
    events = await world.events("db", namespace)
    assert events.count(("Normal", "BindCompositeResource", "Successfully bound composite resource")) == 1
    [bound] = [
        e for e in await world.raw_events("db", namespace) if e["message"].startswith("Successfully bound")
    ]
    assert bound["source"]["component"] == "offered/compositeresourcedefinition.apiextensions.crossplane.io"
    assert bound["metadata"]["annotations"] == {
        "controller": f"claim/{world.xrd['metadata']['name']}",
        "external-name": "",
    }, "Crossplane's claim annotations; composite-name only once the claim was bound when read"
    xr_events = await world.raw_events(name, "default")
    assert xr_events, "the XR has events too"
    for e in xr_events:
        assert e["source"]["component"] == "defined/compositeresourcedefinition.apiextensions.crossplane.io"
        assert e["metadata"]["annotations"] == {"controller": f"composite/{world.xrd['metadata']['name']}"}


@pytest.mark.parametrize("policy", ["Background", "Foreground"])
async def test_claim_deletion(
    kube: Any, crossplane_crds: list[str], controller_manager: Any, namespace: str, policy: str
) -> None:
    world = cf.ClaimWorld(kube, namespace)
    await world.start()
    await world.create_claim("db", compositeDeletePolicy=policy)
    xr = await world.settle("db")
    name = xr["metadata"]["name"]
    assert len(await world.composed(name)) == 1
    await kube.delete(cf.API_VERSION, cf.CLAIM_KIND, "db", namespace)
    await world.reconcile_claim("db")
    if policy == "Background":
        assert await world.claim("db") is None, "Background: the claim goes at once"
    else:
        claim = await world.claim("db")
        assert claim is not None, "Foreground: the claim waits for its XR"
        assert condition(claim, "Ready")[:2] == ("False", "Deleting")
        assert (await world.xr(name) or {}).get("metadata", {}).get("deletionTimestamp"), (
            "its XR is being deleted"
        )
    deadline = time.monotonic() + 90  # kube-controller-manager's GC learns new kinds on a 30 s resync
    claim_gone_with_composed: list[int] = []
    while time.monotonic() < deadline:
        with contextlib.suppress(_api.Conflict):  # the controller requeues a Conflict silently
            if await world.xr(name) is not None:
                await world.reconcile_xr(name)
            if await world.claim("db") is not None:
                await world.reconcile_claim("db")
                if await world.claim("db") is None:
                    claim_gone_with_composed.append(len(await world.composed(name)))
        if (
            await world.claim("db") is None
            and await world.xr(name) is None
            and await world.composed(name) == []
        ):
            break
        await asyncio.sleep(0.25)
    else:
        raise AssertionError(
            f"left: claim {await world.claim('db')}, XR {await world.xr(name)}, {await world.composed(name)}"
        )
    if policy == "Foreground":
        assert claim_gone_with_composed == [0], (
            "Foreground: the claim went only after what its XR composed was gone"
        )
    events = await world.events("db", namespace)
    assert ("Normal", "DeleteCompositeResource", "Successfully deleted composite resource") in events


async def test_an_xr_bound_to_another_claim_is_refused(
    kube: Any, crossplane_crds: list[str], namespace: str
) -> None:
    world = cf.ClaimWorld(kube, namespace)
    await world.start()
    await world.create_claim("first")
    await world.reconcile_claim("first")
    taken = await world.xr_of("first")
    assert taken is not None
    name = taken["metadata"]["name"]
    await world.create_claim(
        "second", resourceRef={"apiVersion": cf.API_VERSION, "kind": cf.XR_KIND, "name": name}
    )
    second = await world.claim("second")
    assert second is not None
    second["metadata"].setdefault("annotations", {})["crossplane.io/external-name"] = "ext-2"
    await kube.update(second)
    result = await world.reconcile_claim("second")
    assert result.requeue_after is None, "a human must act: no requeue"
    want = f'refusing to operate on composite resource "{name}" that is not bound to this claim: bound to claim "first"'
    assert condition(await world.claim("second"), "Synced") == ("False", "ReconcileError", want)
    assert ("Warning", "BindCompositeResource", want) in await world.events("second", namespace)
    [refused] = [e for e in await world.raw_events("second", namespace) if e["message"] == want]
    assert refused["metadata"]["annotations"] == {
        "controller": f"claim/{world.xrd['metadata']['name']}",
        "external-name": "ext-2",
        "composite-name": name,
    }, "a claim that names its XR when read carries composite-name; the external name is the claim's"
    xr = await world.xr(name)
    assert xr is not None and xr["spec"]["claimRef"]["name"] == "first", "the XR stays with its claim"


async def test_a_claim_whose_xr_kind_is_not_served(
    kube: Any, crossplane_crds: list[str], namespace: str
) -> None:
    """A claim CRD left behind by an XRD whose XR CRD is gone: the claim says so, the controller carries on."""
    xrd = cf.the_xrd()
    suffix = uuid.uuid4().hex[:5]
    xrd["metadata"]["name"] = f"xh3orphans{suffix}.{cf.GROUP}"
    xrd["spec"]["names"] = {"kind": f"XH3Orphan{suffix}", "plural": f"xh3orphans{suffix}"}
    xrd["spec"]["claimNames"] = {"kind": f"H3Orphan{suffix}", "plural": f"h3orphans{suffix}"}
    claim_crd = xrd_schemas.claim_crd_from_xrd(xrd)
    assert claim_crd is not None
    await apply_crd(kube, claim_crd)
    await kube.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}, field_manager="h3-test"
    )
    api_version, kind = xrd_schemas.claim_type(xrd)
    await kube.create(
        {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {"name": "lost", "namespace": namespace},
            "spec": {},
        }
    )
    reconciler = _claims.ClaimReconciler(kube, None, _events.EventRecorder(kube, "crossfn/h3-test"), xrd=xrd)
    with pytest.raises(errors.CrossfnError):
        await reconciler.reconcile(f"{namespace}/lost")
    claim = await kube.get(api_version, kind, "lost", namespace)
    status, reason, message = condition(claim, "Synced")
    assert (status, reason) == ("False", "ReconcileError")
    assert message.startswith(
        "cannot bind and sync claim with composite resource: cannot apply composite resource: "
    ), message
    assert f"XH3Orphan{suffix}" in message, "the message names the kind that is not served"

    async def warned() -> bool:
        items, _ = await kube.list("v1", "Event", namespace)
        return any(e["reason"] == "BindCompositeResource" and e["type"] == "Warning" for e in items)

    await until(warned, what="a Warning event on the claim")


async def test_watches_carry_a_claim_to_ready(kube: Any, crossplane_crds: list[str], namespace: str) -> None:
    """Under real controllers and informers: no reconcile is called by hand."""
    world = cf.ClaimWorld(kube, namespace)
    await world.start()
    informers = _informer.InformerFactory(kube)
    recorder = _events.NoEvents()
    xrs = _composite.CompositeReconciler(
        kube, informers, recorder, world.xr_reconciler._runner, _sources.api_sources(kube, informers), xrd=world.xrd
    )  # fmt: skip
    claims = _claims.ClaimReconciler(kube, informers, recorder, xrd=world.xrd)
    xr_controller = _controller.Controller("composite/h3", xrs.reconcile, workers=2)
    claim_controller = _controller.Controller("claim/h3", claims.reconcile, workers=2)
    xrs.set_enqueue(xr_controller.enqueue)
    claims.set_enqueue(claim_controller.enqueue)
    xrs.start()
    claims.start()
    xr_controller.start()
    claim_controller.start()
    try:
        await world.create_claim("db")

        async def composed() -> bool:
            xr = await world.xr_of("db")
            return xr is not None and len(await world.composed(xr["metadata"]["name"])) == 1

        await until(composed, what="the claim's XR to compose")
        xr = await world.xr_of("db")
        assert xr is not None
        [instance] = await world.composed(xr["metadata"]["name"])
        await mark_ready(kube, instance)

        async def ready() -> bool:
            return condition(await world.claim("db"), "Ready")[:2] == ("True", "Available")

        await until(ready, timeout=10, what="the claim to turn Ready through the XR watch")
    finally:
        xrs.stop()
        claims.stop()
        await xr_controller.stop(grace=5)
        await claim_controller.stop(grace=5)
        await informers.stop()
