"""The XR reconciler against a real kube-apiserver (envtest), with the built-ins in-process.

One :class:`~crossfn.controller.composite._composite.CompositeReconciler` is driven
directly (``reconcile(key)``) for a v2 namespaced, a v2 cluster-scoped and a
legacy v1 XRD, composing through function-patch-and-transform and
function-auto-ready. kube-controller-manager runs, so foreground deletion and
owner-reference garbage collection happen as in a cluster. The realtime test
runs the reconciler under a real Controller and informers instead.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from crossfn import engine, errors, functions
from crossfn.controller.composite import _composite, _selection, _sources
from crossfn.controller.crds import _crds
from crossfn.controller.kube import _api
from crossfn.controller.revisions import _revisions
from crossfn.controller.runtime import _controller, _events, _informer, _xr
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.schemas import xrd as xrd_schemas
from crossfn.sdk import response

from .e2e_support import AUTO_READY_PACKAGE, PAT_PACKAGE, function
from .fake_clock import FakeClock

pytestmark = pytest.mark.cluster

GROUP = "h3.example.org"
COMPOSED_GROUP = "h3test.example.org"
FIELD_MANAGER = "h3-test"


def composed_crd(kind: str, plural: str, scope: str) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "string", "enum": ["s", "m", "l"]}}},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{COMPOSED_GROUP}"},
        "spec": {
            "group": COMPOSED_GROUP,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
            "scope": scope,
            "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                          "schema": {"openAPIV3Schema": schema}}],
        },
    }  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Variant:
    id: str
    scope: str
    kind: str
    composed_kind: str

    @property
    def plural(self) -> str:
        return self.kind.lower() + "s"

    @property
    def namespaced(self) -> bool:
        return self.scope == "Namespaced"

    def xrd(self) -> dict[str, Any]:
        legacy = self.scope == "LegacyCluster"
        schema = {
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {"size": {"type": "string"}}}},
        }
        return {
            "apiVersion": f"apiextensions.crossplane.io/{'v1' if legacy else 'v2'}",
            "kind": "CompositeResourceDefinition",
            "metadata": {"name": f"{self.plural}.{GROUP}"},
            "spec": {
                "group": GROUP, "scope": self.scope,
                "names": {"kind": self.kind, "plural": self.plural},
                "versions": [{"name": "v1", "served": True, "referenceable": True, "schema": {"openAPIV3Schema": schema}}],
            },
        }  # fmt: skip


NAMESPACED = Variant("Namespaced", "Namespaced", "XH3Ns", "Bucket")
VARIANTS = [NAMESPACED, Variant("Cluster", "Cluster", "XH3Cluster", "ClusterBucket"),
            Variant("Legacy", "LegacyCluster", "XH3Legacy", "ClusterBucket")]  # fmt: skip


def pt_input(variant: Variant, names: tuple[str, ...]) -> dict[str, Any]:
    return {
        "apiVersion": "pt.fn.crossplane.io/v1beta1",
        "kind": "Resources",
        "resources": [
            {"name": name,
             "base": {"apiVersion": f"{COMPOSED_GROUP}/v1", "kind": variant.composed_kind, "spec": {"size": "s"}},
             "patches": [{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.size", "toFieldPath": "spec.size"}]
             if name == "bucket" else []}
            for name in names
        ],
    }  # fmt: skip


def fatal(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.fatal(rsp, "this function always fails")


def undeclared_status(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.set_desired_composite_status(rsp, {"undeclared": "x"})


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if await check():
                return
        except _api.ApiError as exc:  # a new kind's storage may still be initializing (HTTP 429)
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}: {exc}") from exc
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def apply_crd(kube: Any, crd: dict[str, Any]) -> None:
    await kube.apply(crd, field_manager=FIELD_MANAGER, force=True)

    async def established() -> bool:
        return _crds.is_established(
            await kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", crd["metadata"]["name"])
        )

    await until(established, what=f"CRD {crd['metadata']['name']} to be established")
    spec = crd["spec"]
    api_version = f"{spec['group']}/{spec['versions'][0]['name']}"

    async def served() -> bool:
        await kube.list(api_version, spec["names"]["kind"])  # raises while its storage initializes
        return True

    await until(served, what=f"{spec['names']['kind']} to be served")


class World:
    """One variant's CRDs, a Composition with a valid revision, and a reconciler; names unique per test."""

    def __init__(self, kube: Any, variant: Variant, namespace: str) -> None:
        self.kube = kube
        self.variant = variant
        self.namespace = namespace if variant.namespaced else ""
        self.event_namespace = namespace if variant.namespaced else "default"
        self.api_version = f"{GROUP}/v1"
        self.composition = f"h3-{variant.id.lower()}-{uuid.uuid4().hex[:6]}"
        self.revision_number = 0
        runner = engine.build_runner(engine.InProcessRunner({
            "function-patch-and-transform": functions.load("patch-and-transform"),
            "function-auto-ready": functions.load("auto-ready"),
            "function-fatal": fatal,
            "function-undeclared-status": undeclared_status,
        }))  # fmt: skip
        self.recorder = _events.EventRecorder(kube, "crossfn/h3-test")
        self.reconciler = _composite.CompositeReconciler(
            kube, None, self.recorder, runner, _sources.api_sources(kube, None),
            xrd=variant.xrd(), settings=_composite.CompositeSettings(),
        )  # fmt: skip

    async def start(self, pipeline: list[dict[str, Any]] | None = None) -> None:
        await self.prepare()
        await self.publish(pipeline or self.pipeline(("bucket", "extra")))

    async def prepare(self) -> None:
        """The CRDs and the namespace, no Composition yet."""
        await apply_crd(self.kube, xrd_schemas.crd_from_xrd(self.variant.xrd()))
        await apply_crd(self.kube, composed_crd("Bucket", "buckets", "Namespaced"))
        await apply_crd(self.kube, composed_crd("ClusterBucket", "clusterbuckets", "Cluster"))
        if self.namespace:
            await self.kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}},
                                  field_manager=FIELD_MANAGER)  # fmt: skip

    def pipeline(self, names: tuple[str, ...]) -> list[dict[str, Any]]:
        return [
            {
                "step": "pt",
                "functionRef": {"name": "function-patch-and-transform"},
                "input": pt_input(self.variant, names),
            },
            {"step": "ready", "functionRef": {"name": "function-auto-ready"}},
        ]

    async def publish(self, pipeline: list[dict[str, Any]]) -> None:
        """The Composition and its next revision (what the revision controller would make), ValidPipeline=True."""
        spec = {"compositeTypeRef": {"apiVersion": self.api_version, "kind": self.variant.kind},
                "mode": "Pipeline", "pipeline": pipeline}  # fmt: skip
        comp = await self.kube.apply(
            {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": self.composition}, "spec": spec},
            field_manager=FIELD_MANAGER, force=True,
        )  # fmt: skip
        self.revision_number += 1
        rev = {
            "apiVersion": "apiextensions.crossplane.io/v1", "kind": "CompositionRevision",
            "metadata": {"name": f"{self.composition}-{self.revision_number}",
                         "labels": {_selection.LABEL_COMPOSITION_NAME: self.composition},
                         "ownerReferences": [{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
                                              "name": self.composition, "uid": comp["metadata"]["uid"],
                                              "controller": True, "blockOwnerDeletion": True}]},
            "spec": {**copy.deepcopy(spec), "revision": self.revision_number},
        }  # fmt: skip
        await self.kube.apply(rev, field_manager=FIELD_MANAGER, force=True)
        rev["status"] = {"conditions": [{"type": "ValidPipeline", "status": "True", "reason": "ValidPipeline",
                                         "lastTransitionTime": "2026-01-01T00:00:00Z"}]}  # fmt: skip
        await self.kube.apply(rev, field_manager=FIELD_MANAGER, force=True, status=True)

    async def create_xr(self, name: str, **machinery: Any) -> dict[str, Any]:
        """An XR on this world's Composition (other tests' Compositions are compatible too), unless told otherwise."""
        spec: dict[str, Any] = {"size": "s"}
        machinery = machinery or {"compositionRef": {"name": self.composition}}
        if machinery:
            if self.variant.scope == "LegacyCluster":
                spec.update(machinery)
            else:
                spec["crossplane"] = machinery
        meta = {"name": name, **({"namespace": self.namespace} if self.namespace else {})}
        created: dict[str, Any] = await self.kube.create(
            {"apiVersion": self.api_version, "kind": self.variant.kind, "metadata": meta, "spec": spec}
        )
        return created

    def key(self, name: str) -> str:
        return f"{self.namespace}/{name}" if self.namespace else name

    async def xr(self, name: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = await self.kube.get(
            self.api_version, self.variant.kind, name, self.namespace
        )
        return found

    async def composed(self, name: str) -> list[dict[str, Any]]:
        items, _ = await self.kube.list(f"{COMPOSED_GROUP}/v1", self.variant.composed_kind, self.namespace or None,
                                        labels={"crossplane.io/composite": name})  # fmt: skip
        return sorted(
            items, key=lambda o: o["metadata"]["annotations"]["crossplane.io/composition-resource-name"]
        )

    async def events(self, name: str) -> list[tuple[str, str, str]]:
        await self.recorder.flush()
        items, _ = await self.kube.list("v1", "Event", self.event_namespace)
        return [
            (e["type"], e["reason"], e["message"]) for e in items if e["involvedObject"].get("name") == name
        ]

    async def reconcile(self, name: str) -> _controller.Result:
        return await self.reconciler.reconcile(self.key(name))


def condition(xr: dict[str, Any] | None, type_: str) -> tuple[str, str, str]:
    for c in ((xr or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == type_:
            return c["status"], c["reason"], c.get("message", "")
    return "Unknown", "", ""


@pytest.fixture
async def namespace() -> AsyncIterator[str]:
    yield f"h3-{uuid.uuid4().hex[:8]}"


async def mark_ready(kube: Any, obj: dict[str, Any]) -> None:
    meta = obj["metadata"]
    await kube.apply(
        {"apiVersion": obj["apiVersion"], "kind": obj["kind"],
         "metadata": {"name": meta["name"], **({"namespace": meta["namespace"]} if meta.get("namespace") else {})},
         "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Available",
                                    "lastTransitionTime": "2026-01-01T00:00:00Z"}]}},
        field_manager="provider", force=True, status=True,
    )  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
async def test_lifecycle(
    kube: Any, crossplane_crds: list[str], controller_manager: Any, namespace: str, variant: Variant
) -> None:
    world = World(kube, variant, namespace)
    await world.start()
    name = f"xr-{uuid.uuid4().hex[:6]}"
    await world.create_xr(name)
    await world.reconcile(name)

    xr = await world.xr(name)
    assert xr is not None
    uid = xr["metadata"]["uid"]
    assert xr["metadata"]["finalizers"] == [_composite.FINALIZER]
    assert xr["metadata"]["labels"]["crossplane.io/composite"] == name
    composed = await world.composed(name)
    assert [c["metadata"]["name"] for c in composed] == [
        engine.child_name(f"{name}-", uid, n) for n in ("bucket", "extra")
    ], "composed names are ChildName(<composite label>-, XR uid, resource name)"
    for c, resource_name in zip(composed, ("bucket", "extra"), strict=True):
        assert c["metadata"]["annotations"]["crossplane.io/composition-resource-name"] == resource_name
        assert c["metadata"]["labels"]["crossplane.io/composite"] == name
        assert c["metadata"].get("namespace", "") == world.namespace
        [owner] = c["metadata"]["ownerReferences"]
        assert owner == {"apiVersion": world.api_version, "kind": variant.kind, "name": name, "uid": uid,
                         "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    schema = (
        engine.CompositeSchema.LEGACY if variant.scope == "LegacyCluster" else engine.CompositeSchema.MODERN
    )
    refs = _xr.XR(xr, schema).resource_refs
    assert sorted(r["name"] for r in refs) == sorted(c["metadata"]["name"] for c in composed)
    assert condition(xr, "Synced")[:2] == ("True", "ReconcileSuccess")
    assert condition(xr, "Ready") == ("False", "Creating", "Unready resources: bucket, extra")

    for c in composed:
        await mark_ready(kube, c)
    await world.reconcile(name)
    assert condition(await world.xr(name), "Ready")[:2] == ("True", "Available"), (
        "auto-ready sees composed Ready=True"
    )

    xr = await world.xr(name)
    assert xr is not None
    xr["spec"]["size"] = "m"
    await kube.update(xr)
    await world.reconcile(name)
    assert [c["spec"]["size"] for c in await world.composed(name)] == ["m", "s"], (
        "a spec change reaches the patched resource"
    )

    await world.publish(world.pipeline(("bucket",)))
    await world.reconcile(name)

    async def extra_gone() -> bool:
        return [
            c["metadata"]["annotations"]["crossplane.io/composition-resource-name"]
            for c in await world.composed(name)
        ] == ["bucket"]

    await until(extra_gone, what="the dropped resource to be deleted")

    await kube.delete(world.api_version, variant.kind, name, world.namespace)
    await world.reconcile(name)

    async def all_gone() -> bool:
        return await world.xr(name) is None and await world.composed(name) == []

    try:
        # kube-controller-manager's garbage collector learns new kinds on a 30 s resync.
        await until(all_gone, timeout=75, what="the XR and its composed resources to go")
    except AssertionError:
        raise AssertionError(f"left: {await world.xr(name)} {await world.composed(name)}") from None


async def test_realtime_a_composed_resource_turning_ready_readies_its_xr_through_its_watch(
    kube: Any, crossplane_crds: list[str], namespace: str
) -> None:
    """The XR controller's clock never moves, so no requeue or poll ever fires: only watch events reconcile."""
    world = World(kube, NAMESPACED, namespace)
    await world.start()
    informers = _informer.InformerFactory(kube)
    reconciler = _composite.CompositeReconciler(
        kube, informers, _events.NoEvents(), world.reconciler._runner, _sources.api_sources(kube, informers),
        xrd=NAMESPACED.xrd(),
    )  # fmt: skip
    frozen = FakeClock()
    controller = _controller.Controller("composite/h3", reconciler.reconcile, workers=2, clock=frozen)
    reconciler.set_enqueue(controller.enqueue)
    reconciler.start()
    controller.start()
    try:
        name = f"xr-{uuid.uuid4().hex[:6]}"
        await world.create_xr(name)
        controller.enqueue(world.key(name))

        async def composed_twice() -> bool:
            return (
                len(await world.composed(name)) == 2
                and condition(await world.xr(name), "Synced")[0] == "True"
            )

        await until(composed_twice, what="the XR to compose")
        for c in await world.composed(name):
            await mark_ready(kube, c)

        async def ready() -> bool:
            return condition(await world.xr(name), "Ready")[0] == "True"

        # The timeout only ends a failing run: with the clock frozen, nothing but the watch can ready the XR.
        await until(ready, timeout=30.0, what="XR Ready=True after its composed resources turned ready")
    finally:
        reconciler.stop()
        await controller.stop(grace=5)
        await informers.stop()


async def test_xr_applied_with_its_composition_syncs_through_the_revision_watch(
    kube: Any, crossplane_crds: list[str], namespace: str
) -> None:
    """No revision yet, then a revision not checked yet: both resolve through the revision watch, not backoff.

    The XR controller's clock never moves, so its backoff and poll requeues never fire: the XR can
    become Synced only through a watch event.
    """
    world = World(kube, NAMESPACED, namespace)
    await world.prepare()
    for fn, package in (
        ("function-patch-and-transform", PAT_PACKAGE),
        ("function-auto-ready", AUTO_READY_PACKAGE),
    ):
        # The pipeline's Functions exist (the revision controller checks that), as the e2e tests install them.
        await kube.apply(function(fn, package), field_manager="e2e", force=True)
    # The API server's first create of a kind takes 2 s in envtest; that is no part of what is timed.
    await kube.delete(
        world.api_version, NAMESPACED.kind, (await world.create_xr("warm-up"))["metadata"]["name"], namespace
    )
    warm_up = {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "CompositionRevision",
               "metadata": {"name": f"warm-up-{uuid.uuid4().hex[:6]}"},
               "spec": {"compositeTypeRef": {"apiVersion": "warm.example.org/v1", "kind": "XWarm"}, "revision": 1}}  # fmt: skip
    await kube.delete(*_selection.REVISION, (await kube.create(warm_up))["metadata"]["name"])
    informers = _informer.InformerFactory(kube)
    reconciler = _composite.CompositeReconciler(
        kube, informers, _events.EventRecorder(kube, "crossfn/h3-test"), world.reconciler._runner,
        _sources.api_sources(kube, informers), xrd=NAMESPACED.xrd(),
    )  # fmt: skip
    frozen = FakeClock()
    xr_controller = _controller.Controller("composite/h3", reconciler.reconcile, workers=2, clock=frozen)
    reconciler.set_enqueue(xr_controller.enqueue)
    reconciler.start()
    controllers = [xr_controller]
    for name, other in (("revisions/h3", _revisions.CompositionReconciler(kube, informers, _events.NoEvents())),
                        ("revision/h3", _revisions.RevisionReconciler(kube, informers, _events.NoEvents()))):  # fmt: skip
        controller = _controller.Controller(name, other.reconcile, workers=2)
        other.watch(controller.enqueue)
        controllers.append(controller)
    for c in controllers:
        c.start()
    try:
        for kind in (_selection.COMPOSITION, _selection.REVISION, (world.api_version, NAMESPACED.kind)):
            await informers.informer(*kind).wait_synced()
        spec = {"compositeTypeRef": {"apiVersion": world.api_version, "kind": NAMESPACED.kind},
                "mode": "Pipeline", "pipeline": world.pipeline(("bucket",))}  # fmt: skip
        composition = {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
                       "metadata": {"name": world.composition}, "spec": spec}  # fmt: skip
        name = f"xr-{uuid.uuid4().hex[:6]}"
        await asyncio.gather(
            world.create_xr(name), kube.apply(composition, field_manager=FIELD_MANAGER, force=True)
        )

        async def synced() -> bool:
            return condition(await world.xr(name), "Synced")[0] == "True"

        # The timeout only ends a failing run: with the clock frozen, nothing but a watch event can sync the XR.
        await until(synced, timeout=30, what="the XR to become Synced through a watch event")
        assert len(await world.composed(name)) == 1
    finally:
        reconciler.stop()
        await asyncio.gather(*(c.stop(grace=5) for c in controllers))
        await informers.stop()


@dataclasses.dataclass(frozen=True)
class FaultCase:
    id: str
    reason: str
    pipeline: Callable[[World], list[dict[str, Any]]] | None
    machinery: dict[str, Any]
    size: str
    want_synced: str
    want_event: tuple[str, str, str]
    raises: bool = True
    exact: bool = True
    """Compare ``want_synced`` exactly; else as a prefix (the API server's own text follows)."""


FAULTS = [
    FaultCase("NoCompatibleComposition", "a selector that matches no Composition", None,
              {"compositionSelector": {"matchLabels": {"h3": "nothing-has-this"}}}, "s",
              "cannot select Composition: no compatible Compositions found",
              ("Warning", "SelectComposition", "cannot select Composition: no compatible Compositions found")),
    FaultCase("MissingFunction", "a step naming a Function nobody runs",
              lambda w: [{"step": "missing", "functionRef": {"name": "function-missing"}}], {}, "s",
              'cannot compose resources: cannot run Composition pipeline step "missing": '
              'cannot run Function "function-missing": no such in-process function',
              ("Warning", "ComposeResources", 'cannot compose resources: cannot run Composition pipeline step "missing": '
               'cannot run Function "function-missing": no such in-process function')),
    FaultCase("FatalResult", "a function returning Fatal",
              lambda w: [{"step": "doomed", "functionRef": {"name": "function-fatal"}}], {}, "s",
              'cannot compose resources: pipeline step "doomed" returned a fatal result: this function always fails',
              ("Warning", "ComposeResources",
               'cannot compose resources: pipeline step "doomed" returned a fatal result: this function always fails')),
    FaultCase("RejectedComposed", "the API server rejects a composed resource (422)", None, {}, "huge",
              "Unsynced resources: bucket", ("Warning", "ComposeResources", 'cannot apply composed resource "bucket": '),
              raises=False),
    FaultCase("UndeclaredStatus", "a function sets an XR status field its schema does not declare",
              lambda w: [{"step": "status", "functionRef": {"name": "function-undeclared-status"}}], {}, "s",
              "cannot compose resources: cannot apply composite resource status: ",
              ("Warning", "ComposeResources", "cannot compose resources: cannot apply composite resource status: "),
              exact=False),
]  # fmt: skip


@pytest.mark.parametrize("case", FAULTS, ids=lambda c: c.id)
async def test_faults(kube: Any, crossplane_crds: list[str], namespace: str, case: FaultCase) -> None:
    world = World(kube, NAMESPACED, namespace)
    await world.start(case.pipeline(world) if case.pipeline else None)
    name = f"xr-{uuid.uuid4().hex[:6]}"
    xr = await world.create_xr(name, **case.machinery)
    xr["spec"]["size"] = case.size
    await kube.update(xr)
    if case.raises:
        with pytest.raises(errors.CrossfnError):
            await world.reconcile(name)
    else:
        await world.reconcile(name)
    synced = condition(await world.xr(name), "Synced")
    assert synced[:2] == ("False", "ReconcileError"), case.reason
    assert synced[2] == case.want_synced if case.exact else synced[2].startswith(case.want_synced), (
        f"{case.reason}: {synced}"
    )
    events = await world.events(name)
    kind, reason, prefix = case.want_event
    assert any(e[:2] == (kind, reason) and e[2].startswith(prefix) for e in events), (
        f"{case.reason}: {events}"
    )


async def test_conflict_is_raised_as_is(kube: Any, crossplane_crds: list[str], namespace: str) -> None:
    world = World(kube, NAMESPACED, namespace)
    await world.start()
    name = f"xr-{uuid.uuid4().hex[:6]}"
    stale = await world.create_xr(name)
    await kube.update({**stale, "metadata": {**stale["metadata"], "labels": {"touched": "yes"}}})

    class StaleRead:
        """The reconciler's read returns the outdated object, as a lagging cache would."""

        def __getattr__(self, attr: str) -> Any:
            return getattr(kube, attr)

        async def get(self, api_version: str, kind: str, name_: str, namespace_: str = "") -> Any:
            if kind == NAMESPACED.kind:
                return copy.deepcopy(stale)
            return await kube.get(api_version, kind, name_, namespace_)

    reconciler = _composite.CompositeReconciler(
        StaleRead(), None, _events.NoEvents(), world.reconciler._runner, _sources.api_sources(kube, None), xrd=NAMESPACED.xrd()
    )  # fmt: skip
    with pytest.raises(_api.Conflict):
        await reconciler.reconcile(world.key(name))


async def test_reconcile_request_is_handled_once(
    kube: Any, crossplane_crds: list[str], namespace: str
) -> None:
    world = World(kube, NAMESPACED, namespace)
    await world.start()
    name = f"xr-{uuid.uuid4().hex[:6]}"
    xr = await world.create_xr(name)
    xr["metadata"]["annotations"] = {_composite.ANNOTATION_RECONCILE_REQUESTED: "token-1"}
    await kube.update(xr)
    for _ in range(3):
        await world.reconcile(name)
    handled = [e for e in await world.events(name) if e[1] == "ReconcileRequestHandled"]
    assert handled == [("Normal", "ReconcileRequestHandled", "Handling reconcile request")]
    items, _ = await kube.list("v1", "Event", namespace)
    [event] = [
        e for e in items if e["reason"] == "ReconcileRequestHandled" and e["involvedObject"]["name"] == name
    ]
    assert event["count"] == 1, "a handled token is remembered in status.lastHandledReconcileAt"
