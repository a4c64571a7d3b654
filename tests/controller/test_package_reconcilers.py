"""The package reconcilers' decisions and failure reports, on the in-memory API (cluster tests: test_packages)."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from crossfn.controller.kube import _api
from crossfn.controller.packages import _functionrevisions, _package_runtime, _packages

from .fake_api import FakeApi

PKG = "pkg.crossplane.io/v1"
DRC = "pkg.crossplane.io/v1beta1"
NS = "crossplane-system"
PACKAGE = "xpkg.crossplane.io/acme/function-custom:v1"


class ApiCache:
    """An informer's read side over the fake API's objects of one kind."""

    def __init__(self, api: FakeApi, kind: str) -> None:
        self.api, self.kind = api, kind
        self.handlers: list[Callable[[str, dict[str, Any], dict[str, Any] | None], None]] = []

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return next((o for o in self.api.of_kind(self.kind) if o["metadata"]["name"] == name), None)

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        want = dict(labels or {}).items()
        return [o for o in self.api.of_kind(self.kind) if want <= (o["metadata"].get("labels") or {}).items()]

    def add_handler(self, fn: Callable[[str, dict[str, Any], dict[str, Any] | None], None]) -> None:
        self.handlers.append(fn)


class Events:
    def __init__(self) -> None:
        self.recorded: list[tuple[str, str, str, str]] = []

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        self.recorded.append((obj["metadata"]["name"], type, reason, message))


@dataclasses.dataclass
class World:
    api: FakeApi
    events: Events
    packages: _packages.FunctionPackageReconciler
    runtime: _package_runtime.FunctionRuntimeReconciler


NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture
def world() -> World:
    api = FakeApi(
        scopes={
            (PKG, "Function"): False,
            (PKG, "FunctionRevision"): False,
            (DRC, "DeploymentRuntimeConfig"): False,
        }
    )
    events = Events()
    functions, revisions = ApiCache(api, "Function"), ApiCache(api, "FunctionRevision")
    api.put(
        {"apiVersion": DRC, "kind": "DeploymentRuntimeConfig", "metadata": {"name": "default"}, "spec": {}}
    )
    api.put(
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "crossplane", "namespace": NS}}
    )
    return World(
        api, events,
        _packages.FunctionPackageReconciler(api, functions, revisions, events, clock=lambda: NOW),
        _package_runtime.FunctionRuntimeReconciler(api, revisions, functions, events, namespace=NS, clock=lambda: NOW),
    )  # fmt: skip


def _function(api: FakeApi, name: str = "fn", package: str = PACKAGE, **meta: Any) -> dict[str, Any]:
    return api.put(
        {
            "apiVersion": PKG,
            "kind": "Function",
            "metadata": {"name": name, **meta},
            "spec": {"package": package},
        }
    )


def _revision(
    api: FakeApi, name: str, *, function: str = "fn", state: str = "Active", number: int = 1, **spec: Any
) -> dict[str, Any]:
    return api.put({
        "apiVersion": PKG, "kind": "FunctionRevision",
        "metadata": {"name": name, "labels": {"pkg.crossplane.io/package": function}},
        "spec": {"desiredState": state, "image": PACKAGE, "revision": number,
                 "runtimeConfigRef": {"name": "default"}, **spec},
    })  # fmt: skip


def _conditions(obj: Mapping[str, Any] | None) -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c["reason"], c.get("message", ""))
        for c in ((obj or {}).get("status") or {}).get("conditions") or []
    }


async def test_paused_function_is_reported_once_and_left_alone(world: World) -> None:
    _function(world.api, annotations={"crossplane.io/paused": "true"})
    await world.packages.reconcile("fn")
    fn = world.api.objects[(PKG, "Function", "", "fn")]
    assert _conditions(fn) == {"Synced": ("False", "ReconcilePaused", "")}
    await world.packages.reconcile("fn")
    assert world.events.recorded == [("fn", "Normal", "ReconciliationPaused", _packages.PAUSED_MESSAGE)]
    assert world.api.of_kind("FunctionRevision") == []


async def test_unpausing_clears_the_pause_condition(world: World) -> None:
    _function(world.api, annotations={"crossplane.io/paused": "true"})
    await world.packages.reconcile("fn")
    await world.api.patch(
        PKG, "Function", "fn", "", {"metadata": {"annotations": {"crossplane.io/paused": None}}}
    )
    await world.packages.reconcile("fn")
    assert "Synced" not in _conditions(world.api.objects[(PKG, "Function", "", "fn")])


@pytest.mark.parametrize(
    "meta",
    [
        {"annotations": {"crossfn.io/endpoint": "127.0.0.1:9443"}},
        {},
    ],
    ids=["annotated", "built-in"],
)
async def test_functions_crossfn_runs_itself_are_not_touched(world: World, meta: dict[str, Any]) -> None:
    package = PACKAGE if meta else "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.2.1"
    _function(world.api, package=package, **meta)
    _revision(world.api, "fn-rev")
    world.api.calls.clear()
    await world.packages.reconcile("fn")
    await world.runtime.reconcile("fn-rev")
    assert world.api.writes() == []


async def test_revision_controlled_by_another_function_is_not_taken(world: World) -> None:
    _function(world.api)
    rev = _revision(world.api, _functionrevisions.revision_name("fn", PACKAGE))
    rev["metadata"]["ownerReferences"] = [
        {"kind": "Function", "name": "x", "uid": "other", "controller": True}
    ]
    world.api.objects[(PKG, "FunctionRevision", "", rev["metadata"]["name"])] = rev
    world.api.calls.clear()
    await world.packages.reconcile("fn")
    uid = world.api.objects[(PKG, "Function", "", "fn")]["metadata"]["uid"]
    assert world.events.recorded == [
        (
            "fn",
            "Warning",
            "InstallPackageRevision",
            f'cannot apply package revision: existing object is not controlled by UID "{uid}"',
        )
    ]
    assert world.api.writes() == []


async def test_always_pull_requeues_every_minute(world: World) -> None:
    fn = _function(world.api)
    await world.api.patch(PKG, "Function", "fn", "", {"spec": {"packagePullPolicy": "Always"}})
    del fn
    assert (await world.packages.reconcile("fn")).requeue_after == 60.0


@pytest.mark.parametrize(
    ("verb", "reason", "message"),
    [
        ("patch", "TransitionRevision", "cannot update inactive package revision: etcd is down"),
        ("delete", "GarbageCollect", "cannot garbage collect old package revision: etcd is down"),
    ],
    ids=["deactivating the old revision", "deleting the oldest revision"],
)
async def test_revision_write_failures_are_warnings(
    world: World, verb: str, reason: str, message: str
) -> None:
    _function(world.api)
    _revision(world.api, "fn-old", number=1)
    _revision(world.api, "fn-older", state="Inactive", number=0)
    world.api.fail(verb, "FunctionRevision", _api.ApiError("etcd is down", status=500))
    await world.packages.reconcile("fn")
    assert ("fn", "Warning", reason, message) in world.events.recorded


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ({}, "no deployment runtime config set"),
        ({"name": "default", "apiVersion": "example.org/v1", "kind": "Other"},
         "runtime config is set but is an unknown apiVersion and kind"),
        ({"name": "missing"},
         'cannot get referenced deployment runtime config: deploymentruntimeconfigs.pkg.crossplane.io "missing" not found'),
    ],
    ids=["no name", "apiVersion and kind both unknown", "missing config"],
)  # fmt: skip
async def test_builder_option_failures(world: World, ref: dict[str, Any], message: str) -> None:
    _function(world.api)
    _revision(world.api, "fn-rev", runtimeConfigRef=ref)
    result = await world.runtime.reconcile("fn-rev")
    want = f"cannot prepare runtime manifest builder options: {message}"
    assert result.requeue_after == _package_runtime.RETRY_SECONDS
    assert _conditions(world.api.objects[(PKG, "FunctionRevision", "", "fn-rev")])["RuntimeHealthy"] == (
        "False",
        "UnhealthyPackageRevision",
        want,
    )
    assert world.events.recorded[-1] == ("fn-rev", "Warning", "SyncPackage", want)


async def test_only_one_of_apiversion_and_kind_unknown_is_accepted(world: World) -> None:
    _function(world.api)
    _revision(
        world.api, "fn-rev", runtimeConfigRef={"name": "default", "apiVersion": "pkg.crossplane.io/v1alpha1"}
    )
    await world.runtime.reconcile("fn-rev")
    assert "endpoint" in world.api.objects[(PKG, "FunctionRevision", "", "fn-rev")]["status"]


async def test_missing_controller_service_account(world: World) -> None:
    del world.api.objects[("v1", "ServiceAccount", NS, "crossplane")]
    _function(world.api)
    _revision(world.api, "fn-rev")
    await world.runtime.reconcile("fn-rev")
    assert _conditions(world.api.objects[(PKG, "FunctionRevision", "", "fn-rev")])["RuntimeHealthy"][2] == (
        'cannot prepare runtime manifest builder options: cannot get Crossplane service account: serviceaccounts "crossplane" not found'
        f" (create ServiceAccount crossplane in namespace {NS}, or pass --service-account NAME of one that exists)"
    ), "Crossplane's words, then what to do about it"


@pytest.mark.parametrize(
    ("owner_uid", "deleted"), [("rev", True), ("someone-else", False)], ids=["ours", "not ours"]
)
async def test_inactive_revision_deletes_only_a_deployment_it_controls(
    world: World, owner_uid: str, deleted: bool
) -> None:
    _function(world.api)
    rev = _revision(world.api, "fn-rev", state="Inactive")
    uid = rev["metadata"]["uid"] if owner_uid == "rev" else owner_uid
    world.api.put({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {
            "name": "fn-rev", "namespace": NS, "ownerReferences": [{"uid": uid, "controller": True, "kind": "FunctionRevision"}],
        },
    })  # fmt: skip
    await world.runtime.reconcile("fn-rev")
    assert (("apps/v1", "Deployment", NS, "fn-rev") not in world.api.objects) is deleted
    assert not any(k[1] in ("Service", "Secret") for k in world.api.objects), (
        "an inactive revision gets no runtime"
    )


async def test_unparsable_image_gets_service_and_endpoint_but_no_deployment(world: World) -> None:
    _function(world.api)
    _revision(world.api, "fn-rev", image="not a reference")
    await world.runtime.reconcile("fn-rev")
    rev = world.api.objects[(PKG, "FunctionRevision", "", "fn-rev")]
    assert _conditions(rev)["RevisionHealthy"] == (
        "False", "UnhealthyPackageRevision",
        'cannot get package: cannot parse package reference "not a reference": '
        "a registry is required, as in xpkg.crossplane.io/<organization>/<function>:<tag>",
    )  # fmt: skip
    assert _conditions(rev)["RuntimeHealthy"] == (
        "False",
        "UnhealthyPackageRevision",
        "Package revision is not healthy yet",
    )
    assert rev["status"]["endpoint"] == f"dns:///fn.{NS}:9443"
    assert ("apps/v1", "Deployment", NS, "fn-rev") not in world.api.objects


async def test_unavailable_deployment_is_reported_with_its_message(world: World) -> None:
    _function(world.api)
    _revision(world.api, "fn-rev")
    dep = world.api.put(
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "fn-rev", "namespace": NS}}
    )
    dep["status"] = {"conditions": [{"type": "Available", "status": "False", "message": "ImagePullBackOff"}]}
    world.api.objects[("apps/v1", "Deployment", NS, "fn-rev")] = dep
    await world.runtime.reconcile("fn-rev")
    want = "post establish runtime hook failed for package: function package deployment is unavailable with message: ImagePullBackOff"
    assert (
        _conditions(world.api.objects[(PKG, "FunctionRevision", "", "fn-rev")])["RuntimeHealthy"][2] == want
    )
    assert world.events.recorded[-1] == ("fn-rev", "Warning", "SyncPackage", want)


async def test_service_apply_failure_is_a_pre_hook_failure(world: World) -> None:
    _function(world.api)
    _revision(world.api, "fn-rev")
    world.api.fail("apply", "Service", _api.Forbidden('services "fn" is forbidden', status=403))
    await world.runtime.reconcile("fn-rev")
    want = 'pre establish runtime hook failed for package: cannot apply function package service: services "fn" is forbidden'
    assert (
        _conditions(world.api.objects[(PKG, "FunctionRevision", "", "fn-rev")])["RuntimeHealthy"][2] == want
    )


async def test_watch_maps_configs_and_deployments_to_revisions(world: World) -> None:
    api = world.api
    revisions, configs, deployments = (
        ApiCache(api, "FunctionRevision"),
        ApiCache(api, "DeploymentRuntimeConfig"),
        ApiCache(api, "Deployment"),
    )
    runtime = _package_runtime.FunctionRuntimeReconciler(
        api, revisions, ApiCache(api, "Function"), namespace=NS, configs=configs, deployments=deployments
    )
    _revision(api, "uses-default")
    _revision(api, "uses-other", runtimeConfigRef={"name": "other"})
    queued: list[str] = []
    runtime.watch(queued.append)
    configs.handlers[0]("MODIFIED", {"metadata": {"name": "default"}}, None)
    deployments.handlers[0](
        "MODIFIED",
        {
            "metadata": {
                "ownerReferences": [{"controller": True, "kind": "FunctionRevision", "name": "uses-other"}]
            }
        },
        None,
    )
    revisions.handlers[0]("ADDED", {"metadata": {"name": "new"}}, None)
    assert queued == ["uses-default", "uses-other", "new"]
