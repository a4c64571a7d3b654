"""The FunctionRevision keeper: revisions and Function status for built-in and annotated Functions."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from crossfn.controller.packages import _functionrevisions, _functions

from .fake_api import FakeApi

PKG = "pkg.crossplane.io/v1"
BUILTIN = "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8"


class ApiCache:
    """An informer's read side over the fake API's objects of one kind (always in sync)."""

    def __init__(self, api: FakeApi, kind: str) -> None:
        self.api, self.kind = api, kind
        self.handlers: list[Callable[[str, dict[str, Any], dict[str, Any] | None], None]] = []

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return next((o for o in self.api.of_kind(self.kind) if o["metadata"]["name"] == name), None)

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        want = dict(labels or {})
        return [
            o
            for o in self.api.of_kind(self.kind)
            if want.items() <= (o["metadata"].get("labels") or {}).items()
        ]

    def add_handler(self, fn: Callable[[str, dict[str, Any], dict[str, Any] | None], None]) -> None:
        self.handlers.append(fn)


class Events:
    def __init__(self) -> None:
        self.recorded: list[tuple[str, str, str, str]] = []

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        self.recorded.append((obj["metadata"]["name"], type, reason, message))


class Clock:
    def __init__(self) -> None:
        self.now = datetime.datetime(2026, 11, 24, 9, 0, tzinfo=datetime.UTC)

    def __call__(self) -> datetime.datetime:
        return self.now


def setup() -> tuple[FakeApi, _functionrevisions.FunctionRevisionKeeper, Events, Clock]:
    api = FakeApi(scopes={(PKG, "Function"): False, (PKG, "FunctionRevision"): False})
    events, clock = Events(), Clock()
    keeper = _functionrevisions.FunctionRevisionKeeper(
        api, ApiCache(api, "Function"), ApiCache(api, "FunctionRevision"), events, clock=clock
    )
    return api, keeper, events, clock


def function(name: str, package: str, endpoint: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if endpoint:
        meta["annotations"] = {_functions.ENDPOINT_ANNOTATION: endpoint}
    return {"apiVersion": PKG, "kind": "Function", "metadata": meta, "spec": {"package": package}}


def conditions(obj: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c["reason"]) for c in obj.get("status", {}).get("conditions", [])}


async def test_builtin_function_gets_an_active_healthy_revision() -> None:
    api, keeper, events, _ = setup()
    fn = api.put(function("pat", BUILTIN))
    await keeper.reconcile("pat")
    [rev] = api.of_kind("FunctionRevision")
    assert rev["metadata"]["name"] == _functionrevisions.revision_name("pat", BUILTIN)
    assert rev["metadata"]["labels"] == {
        "pkg.crossplane.io/package": "pat",
        "crossfn.io/runtime": "builtin",
    }, "listed by Crossplane's label; crossfn's says it keeps it"
    [owner] = rev["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        "Function",
        "pat",
        fn["metadata"]["uid"],
        True,
    ), "controlled by its Function, so the garbage collector removes it with the Function"
    assert rev["spec"] == {"desiredState": "Active", "image": BUILTIN, "revision": 1}
    assert rev["status"]["capabilities"] == ["composition"], "what the built-in's package declares"
    assert "endpoint" not in rev["status"], "an in-process function has no endpoint"
    assert conditions(rev) == {
        "Healthy": ("True", "HealthyPackageRevision"),
        "RevisionHealthy": ("True", "HealthyPackageRevision"),
        "RuntimeHealthy": ("True", "HealthyPackageRevision"),
    }
    [got] = api.of_kind("Function")
    assert conditions(got) == {
        "Healthy": ("True", "HealthyPackageRevision"),
        "Installed": ("True", "ActivePackageRevision"),
    }, "kubectl get functions reads INSTALLED True HEALTHY True"
    assert got["status"]["currentRevision"] == rev["metadata"]["name"]
    assert got["status"]["currentIdentifier"] == BUILTIN
    assert events.recorded == [
        ("pat", "Normal", "InstallPackageRevision", "Successfully installed package revision")
    ]


async def test_annotated_function_revision_carries_the_endpoint() -> None:
    api, keeper, _, _ = setup()
    api.put(function("dev", "xpkg.crossplane.io/acme/function-dev:v1", "127.0.0.1:9443"))
    await keeper.reconcile("dev")
    [rev] = api.of_kind("FunctionRevision")
    assert rev["status"]["endpoint"] == "127.0.0.1:9443", "what the runner and Crossplane read"
    assert "capabilities" not in rev["status"], "unknown capabilities: Crossplane reads none as composition"


@pytest.mark.parametrize(
    ("annotation", "want", "reason"),
    [
        pytest.param("operation", ["operation"], "an operation function declares it", id="Operation"),
        pytest.param(
            " composition, operation ,",
            ["composition", "operation"],
            "comma-separated, blanks dropped",
            id="Both",
        ),
        pytest.param("", None, "an empty annotation declares nothing", id="Empty"),
    ],
)
async def test_annotated_function_declares_its_capabilities(
    annotation: str, want: list[str] | None, reason: str
) -> None:
    """``crossfn.io/capabilities`` stands in for the capabilities a package's metadata would declare."""
    api, keeper, _, _ = setup()
    fn = function("ops", "xpkg.crossplane.io/acme/function-ops:v1", "127.0.0.1:9443")
    fn["metadata"]["annotations"]["crossfn.io/capabilities"] = annotation
    api.put(fn)
    await keeper.reconcile("ops")
    [rev] = api.of_kind("FunctionRevision")
    assert rev["status"].get("capabilities") == want, reason


async def test_an_invalid_endpoint_annotation_is_unhealthy_with_a_warning() -> None:
    api, keeper, events, _ = setup()
    api.put(function("badep", "xpkg.crossplane.io/acme/function-dev:v1", "not a host port"))
    await keeper.reconcile("badep")
    problem = (
        'invalid crossfn.io/endpoint annotation "not a host port": '
        "want HOST:PORT, or a gRPC target such as dns:///HOST:PORT"
    )
    [rev] = api.of_kind("FunctionRevision")
    assert "endpoint" not in rev["status"], "nothing the runner could dial"
    assert conditions(rev) == {
        "Healthy": ("False", "UnhealthyPackageRevision"),
        "RevisionHealthy": ("True", "HealthyPackageRevision"),
        "RuntimeHealthy": ("False", "UnhealthyPackageRevision"),
    }, "the runtime is at fault, as an unavailable Deployment is"
    [got] = api.of_kind("Function")
    assert conditions(got) == {
        "Healthy": ("False", "UnhealthyPackageRevision"),
        "Installed": ("True", "ActivePackageRevision"),
    }, "kubectl get functions reads HEALTHY False"
    healthy = next(c for c in got["status"]["conditions"] if c["type"] == "Healthy")
    assert healthy["message"] == f'Package runtime health is "False" with message: {problem}'
    assert events.recorded == [("badep", "Warning", "SyncPackage", problem)]
    await keeper.reconcile("badep")
    assert len(events.recorded) == 1, "the same problem is not announced again on every reconcile"
    api.put({**got, "metadata": {**got["metadata"], "annotations": {_functions.ENDPOINT_ANNOTATION: "h:1"}}})
    await keeper.reconcile("badep")
    assert conditions(api.of_kind("Function")[0])["Healthy"] == ("True", "HealthyPackageRevision"), "fixed"
    assert events.recorded[-1][2] == "InstallPackageRevision"


async def test_package_managed_function_is_left_alone() -> None:
    api, keeper, events, _ = setup()
    api.put(function("other", "xpkg.crossplane.io/acme/function-go-templating:v1"))
    await keeper.reconcile("other")
    assert api.writes() == [], "Crossplane's package manager owns its revisions and status"
    assert events.recorded == []


async def test_function_leaving_crossfn_has_its_revision_retired() -> None:
    api, keeper, _, _ = setup()
    old, new = "xpkg.crossplane.io/acme/function-dev:v1", "xpkg.crossplane.io/acme/function-dev:v2"
    api.put(function("dev", old, "127.0.0.1:9443"))
    await keeper.reconcile("dev")
    manager_made = {
        "apiVersion": PKG,
        "kind": "FunctionRevision",
        "metadata": {"name": "dev-abc", "labels": {"pkg.crossplane.io/package": "dev"}},
        "spec": {"desiredState": "Active", "image": new, "revision": 2},
    }
    api.put(manager_made)
    fn = api.of_kind("Function")[0]
    del fn["metadata"]["annotations"]
    await api.update(fn)
    await keeper.reconcile("dev")
    states = {r["metadata"]["name"]: r["spec"]["desiredState"] for r in api.of_kind("FunctionRevision")}
    assert states == {_functionrevisions.revision_name("dev", old): "Active", "dev-abc": "Active"}, (
        "same package: the revision keeps its name, for the package manager to adopt"
    )
    fn = api.of_kind("Function")[0]
    fn["spec"]["package"] = new
    await api.update(fn)
    await keeper.reconcile("dev")
    states = {r["metadata"]["name"]: r["spec"]["desiredState"] for r in api.of_kind("FunctionRevision")}
    assert states == {_functionrevisions.revision_name("dev", old): "Inactive", "dev-abc": "Active"}, (
        "the Function is the package manager's now: crossfn retires only the revision it made"
    )


async def test_missing_function_is_a_no_op() -> None:
    api, keeper, _, _ = setup()
    await keeper.reconcile("gone")
    assert api.writes() == []


async def test_second_reconcile_keeps_conditions_and_emits_no_event() -> None:
    api, keeper, events, clock = setup()
    api.put(function("pat", BUILTIN))
    await keeper.reconcile("pat")
    first = api.of_kind("Function")[0]["status"]["conditions"]
    clock.now += datetime.timedelta(minutes=5)
    await keeper.reconcile("pat")
    assert api.of_kind("Function")[0]["status"]["conditions"] == first, (
        "an unchanged condition keeps its lastTransitionTime (Crossplane's set semantics)"
    )
    assert len(api.of_kind("FunctionRevision")) == 1
    assert len(events.recorded) == 1, "InstallPackageRevision only when Healthy first becomes True"


async def test_package_change_makes_a_new_active_revision_and_collects_the_oldest() -> None:
    api, keeper, _, _ = setup()
    api.put(function("pat", BUILTIN))
    await keeper.reconcile("pat")
    packages = [BUILTIN.replace("v0.10.8", v) for v in ("v0.10.9", "v0.10.10")]
    for package in packages:
        fn = api.of_kind("Function")[0]
        fn["spec"]["package"] = package
        await api.update(fn)
        await keeper.reconcile("pat")
    revs = {r["metadata"]["name"]: r["spec"] for r in api.of_kind("FunctionRevision")}
    assert revs == {
        _functionrevisions.revision_name("pat", packages[0]): {
            "desiredState": "Inactive",
            "image": packages[0],
            "revision": 2,
        },
        _functionrevisions.revision_name("pat", packages[1]): {
            "desiredState": "Active",
            "image": packages[1],
            "revision": 3,
        },
    }, "one Active revision numbered above the rest; the oldest beyond revisionHistoryLimit 1 is deleted"


async def test_watch_enqueues_the_function_of_a_revision() -> None:
    api = FakeApi()
    fns, revs = ApiCache(api, "Function"), ApiCache(api, "FunctionRevision")
    queued: list[str] = []
    _functionrevisions.FunctionRevisionKeeper(api, fns, revs).watch(queued.append)
    fns.handlers[0]("ADDED", function("pat", BUILTIN), None)
    revs.handlers[0](
        "MODIFIED", {"metadata": {"name": "pat-1", "labels": {"pkg.crossplane.io/package": "pat"}}}, None
    )
    revs.handlers[0]("ADDED", {"metadata": {"name": "stray"}}, None)
    assert queued == ["pat", "pat"], (
        "a revision enqueues the Function its label names; an unlabelled one nothing"
    )


NAMES = [
    pytest.param(
        "function-patch-and-transform",
        "a" * 64,
        "function-patch-and-transform-aaaaaaaaaaaa",
        "name-hash",
        id="Short",
    ),
    pytest.param(
        "x" * 60, "b" * 64, "x" * 50 + "-" + "b" * 12, "the name is cut to 50, the hash to 12", id="Long"
    ),
    pytest.param(
        "My.Fn", "c" * 64, "y-n-cccccccccccc", "upper case is dropped, dots become dashes", id="Mixed"
    ),
]


@pytest.mark.parametrize(("name", "digest", "want", "reason"), NAMES)
def test_friendly_id(name: str, digest: str, want: str, reason: str) -> None:
    assert _functionrevisions.to_dns_label(f"{name[:50]}-{digest[:12]}") == want, reason


def test_revision_name_is_stable_and_follows_the_package() -> None:
    a = _functionrevisions.revision_name("pat", BUILTIN)
    assert a == _functionrevisions.revision_name("pat", BUILTIN), (
        "deterministic: the same package, the same name"
    )
    assert a != _functionrevisions.revision_name("pat", BUILTIN + "x"), "a new package is a new revision"
    assert a.startswith("pat-") and len(a) == len("pat-") + 12
