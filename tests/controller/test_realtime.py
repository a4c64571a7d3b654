"""Realtime compositions: which XRs an object wakes, and the watches the reconciler starts
(upstream controllers-1.6)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from crossfn import engine
from crossfn.controller.composite import _composite, _realtime, _selection
from crossfn.controller.runtime import _metrics
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

from . import composite_fixtures as fx
from .fake_api import FakeApi
from .fake_informers import FakeCache, FakeInformers


def owned(
    kind: str = "XBucket", api_version: str = "example.org/v1", *, labels: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cm", "namespace": "team", "labels": labels or {},
                     "ownerReferences": [{"apiVersion": api_version, "kind": kind, "name": "b", "uid": "u", "controller": True}]},
    }  # fmt: skip


@dataclasses.dataclass(frozen=True)
class DependantCase:
    id: str
    reason: str
    obj: dict[str, Any]
    want: set[str]
    namespaced: bool = True


CASES = [
    DependantCase("ControllerRef", "a composed resource wakes its controller XR", owned(), {"team/b"}),
    DependantCase("OtherVersion", "the owner's version does not matter, its group and kind do", owned(api_version="example.org/v2"), {"team/b"}),
    DependantCase("OtherKind", "another kind's composed resource wakes nothing", owned(kind="XOther"), set()),
    DependantCase("ClusterXR", "a cluster-scoped XR's key has no namespace", owned(), {"b"}, namespaced=False),
    DependantCase("LabelOnly", "an orphan with the composite label wakes the root XR",
                  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "team", "labels": {"crossplane.io/composite": "root"}}},
                  {"team/root"}),
    DependantCase("Required", "an object a function required wakes that XR",
                  {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "team", "labels": {"app": "x"}}},
                  {"team/needs-secret"}),
    DependantCase("RequiredOtherNamespace", "a selector's namespace must match",
                  {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "other", "labels": {"app": "x"}}},
                  set()),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_dependants(case: DependantCase) -> None:
    deps = _realtime.Dependencies("example.org/v1", "XBucket", namespaced=case.namespaced)
    deps.record("team/b", [{"apiVersion": "v1", "kind": "ConfigMap"}], [], {})
    sel = _realtime.Selector("v1", "Secret", namespace="team", labels=(("app", "x"),))
    deps.record("team/needs-secret", [], [sel], {})
    assert deps.dependants(case.obj) == case.want, case.reason


def test_forget() -> None:
    deps = _realtime.Dependencies("example.org/v1", "XBucket", namespaced=True)
    sel = _realtime.Selector("v1", "Secret", name="s")
    deps.record("team/b", [], [sel], {"s": fnv1.Requirements()})
    deps.forget("team/b")
    assert deps.dependants({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}) == set()
    assert deps.requirements("team/b") == {}


def test_record_replaces_what_the_xr_depended_on() -> None:
    """A second record drops the kinds and selectors the XR no longer has: their events wake nothing."""
    deps = _realtime.Dependencies("example.org/v1", "XBucket", namespaced=True)
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "team"}}
    orphan = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "x", "namespace": "team", "labels": {"crossplane.io/composite": "b"}}}  # fmt: skip
    deps.record(
        "team/b",
        [{"apiVersion": "v1", "kind": "ConfigMap"}],
        [_realtime.Selector("v1", "Secret", name="s")],
        {},
    )
    deps.record("team/c", [{"apiVersion": "v1", "kind": "ConfigMap"}], [], {})
    assert (deps.dependants(secret), deps.dependants(orphan)) == ({"team/b"}, {"team/b"})
    deps.record("team/b", [], [], {})
    assert deps.dependants(secret) == set(), "the selector was dropped"
    assert deps.dependants(orphan) == {"team/b"}, "another XR still composes ConfigMaps"
    deps.forget("team/c")
    assert deps.dependants(orphan) == set(), "no XR composes ConfigMaps any more"
    assert deps.kinds() == set()


class WatchMetrics(_metrics.NoMetrics):
    """Counts of ``engine_watches_*`` by (controller, type)."""

    def __init__(self) -> None:
        self.started: dict[tuple[str, str], int] = {}
        self.stopped: dict[tuple[str, str], int] = {}

    def watch_started(self, controller: str, type_: str) -> None:
        self.started[(controller, type_)] = self.started.get((controller, type_), 0) + 1

    def watch_stopped(self, controller: str, type_: str) -> None:
        self.stopped[(controller, type_)] = self.stopped.get((controller, type_), 0) + 1


def informed_setup(
    fn: Any = fx.two_configmaps, metrics: _metrics.Metrics | None = None
) -> tuple[FakeApi, FakeInformers, list[str], _composite.CompositeReconciler]:
    api = FakeApi({(fx.XR_API, "XBucket"): True})
    informers = FakeInformers()
    comp = api.put(fx.composition())
    informers.caches[_selection.COMPOSITION] = FakeCache([comp])
    informers.caches[_selection.REVISION] = FakeCache([api.put(fx.revision(comp))])
    queued: list[str] = []
    runner = engine.build_runner(engine.InProcessRunner({"fn": fn}))
    reconciler = _composite.CompositeReconciler(
        api,
        informers,
        fx.Events(),
        runner,
        engine.Sources(),
        xrd=fx.xrd(),
        clock=lambda: fx.T0,
        enqueue=queued.append,
        metrics=metrics,
    )
    return api, informers, queued, reconciler


async def test_composed_change_enqueues_its_xr() -> None:
    api, informers, queued, reconciler = informed_setup()
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    assert reconciler.dependency_kinds() == {("v1", "ConfigMap")}, (
        "the composed kind is watched after a compose"
    )
    assert queued == ["team/b"], "its writes, of kinds not watched before, are reconciled once more"
    queued.clear()
    cm = api.of_kind("ConfigMap")[0]
    informers.caches[("v1", "ConfigMap")].fire("MODIFIED", {**cm, "status": {"ready": True}}, cm)
    assert queued == ["team/b"], "a composed resource's change reconciles its XR"
    reconciler.stop()
    assert informers.caches[("v1", "ConfigMap")].handlers == [], "a stopped controller's handlers are removed"


CONTROLLER = f"composite/xbuckets.{fx.GROUP}"
CONFIGMAPS = ("v1", "ConfigMap")


async def test_watches_end_when_no_xr_needs_them() -> None:
    """A watch lives while some XR depends on its kind; once none does, the next collection stops it
    (Crossplane's watch garbage collector), and each start and stop is counted as a Dependency watch."""
    metrics = WatchMetrics()
    api, informers, _, reconciler = informed_setup(metrics=metrics)
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    assert informers.holders[CONFIGMAPS] == {CONTROLLER}, "the controller holds the composed kind's informer"
    assert metrics.started == {(CONTROLLER, "Dependency"): 1}
    assert reconciler.collect_watches() == [], "the XR still composes ConfigMaps: nothing stops"
    await api.delete(fx.XR_API, "XBucket", "b", "team")
    await reconciler.reconcile("team/b")
    assert reconciler.collect_watches() == [CONFIGMAPS], "the XR is gone: nothing needs ConfigMaps"
    assert CONFIGMAPS not in informers.holders, "released"
    assert informers.caches[CONFIGMAPS].handlers == [], "and no handler is left behind"
    assert metrics.stopped == {(CONTROLLER, "Dependency"): 1}
    assert reconciler.dependency_kinds() == set()


async def test_a_reconcile_finishing_after_stop_starts_no_watch() -> None:
    """The XR controller stops its watches before its last reconciles end; one of them reading a kind for
    the first time (the ownership check) or composing it must not start a watch nobody would release."""
    metrics = WatchMetrics()
    api, informers, _, reconciler = informed_setup(metrics=metrics)
    reconciler.stop()
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    assert CONFIGMAPS not in informers.holders, "no informer held after stop"
    assert metrics.started.get((CONTROLLER, "Dependency"), 0) == 0


async def test_the_revision_watch_is_counted() -> None:
    """The XR controller's CompositionRevision watch is Crossplane's ``type=CompositionRevision``."""
    metrics = WatchMetrics()
    _, _, _, reconciler = informed_setup(metrics=metrics)
    reconciler.start()
    reconciler.stop()
    assert metrics.started == {(CONTROLLER, "CompositionRevision"): 1}
    assert metrics.stopped == {(CONTROLLER, "CompositionRevision"): 1}


async def test_required_resource_is_watched() -> None:
    def needs_secret(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        response.require_resources(rsp, "creds", "v1", "Secret", match_name="s", namespace="team")

    api, informers, queued, reconciler = informed_setup(needs_secret)
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    assert ("v1", "Secret") in reconciler.dependency_kinds()
    queued.clear()  # the follow-up of its own writes
    informers.caches[("v1", "Secret")].fire(
        "ADDED", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "team"}}
    )
    informers.caches[("v1", "Secret")].fire(
        "ADDED", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t", "namespace": "team"}}
    )
    assert queued == ["team/b"], "only the required object wakes the XR"


async def test_new_revision_enqueues_automatic_xrs() -> None:
    _, informers, queued, reconciler = informed_setup()
    xrs = [
        {**fx.xr("auto"), "spec": {"crossplane": {"compositionRef": {"name": "c"}}}},
        {
            **fx.xr("manual"),
            "spec": {"crossplane": {"compositionRef": {"name": "c"}, "compositionUpdatePolicy": "Manual"}},
        },
        {**fx.xr("other"), "spec": {"crossplane": {"compositionRef": {"name": "d"}}}},
    ]
    informers.caches[(fx.XR_API, "XBucket")] = FakeCache(xrs)
    reconciler.start()
    comp = informers.caches[_selection.COMPOSITION].objects[0]
    informers.caches[_selection.REVISION].fire("ADDED", fx.revision(comp, 2))
    assert queued == ["team/auto"], "only Automatic XRs of that Composition move to a new revision"


async def test_xr_changes_enqueue_the_xr() -> None:
    _, informers, queued, reconciler = informed_setup()
    reconciler.start()
    informers.caches[(fx.XR_API, "XBucket")].fire("MODIFIED", fx.xr("b"))
    assert queued == ["team/b"], "the controller reconciles its XRs on every change"
    reconciler.stop()
    informers.caches[(fx.XR_API, "XBucket")].fire("MODIFIED", fx.xr("b"))
    assert queued == ["team/b"] and informers.caches[_selection.REVISION].handlers == [], (
        "a stopped controller hears nothing"
    )
