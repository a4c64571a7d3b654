"""The ops controllers' decisions, on a fake API server and a fake clock (upstream ops-1–ops-4).

Each CronOperation case reconciles once at a given time and checks what was created or deleted,
the status, the requeue and the events; the WatchOperation cases check the watched reconcile's
Operation, the parent's status and finalizer. The cluster tests (test_ops.py) run the same
controllers against a real API server.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
from collections.abc import Mapping
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.controller.kube import _api
from crossfn.controller.ops import _cron, _lifecycle, _operation, _watch
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

from .fake_api import FakeApi
from .fake_informers import FakeCache, FakeInformers

OPS = "ops.crossplane.io/v1alpha1"
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
UNIX0 = int(T0.timestamp())


class Events:
    """A recorder that keeps ``(type, reason, message)`` of each event."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        self.seen.append((type, reason, message))


def _api_server() -> FakeApi:
    scopes = {(OPS, k): False for k in ("Operation", "CronOperation", "WatchOperation")}
    return FakeApi({**scopes, ("v1", "ConfigMap"): True, ("pkg.crossplane.io/v1", "FunctionRevision"): False})


def _at(seconds: float) -> datetime.datetime:
    return T0 + datetime.timedelta(seconds=seconds)


def _time(seconds: float) -> str:
    return _at(seconds).strftime("%Y-%m-%dT%H:%M:%SZ")


def cron(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": OPS,
        "kind": "CronOperation",
        "metadata": {"name": "nightly", "uid": "cron-uid", "creationTimestamp": _time(0)},
        "spec": {
            "schedule": "* * * * *",
            "operationTemplate": {
                "metadata": {"labels": {"team": "ops"}},
                "spec": {"pipeline": [{"step": "s", "functionRef": {"name": "fn"}}]},
            },
            **spec,
        },
    }


def op(
    name: str,
    created: float,
    succeeded: str | None,
    *,
    reason: str = "",
    label: str = _lifecycle.LABEL_CRON,
    parent: str = "nightly",
) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if succeeded is not None:
        reason = (
            reason
            or {"True": "PipelineSuccess", "False": "PipelineError", "Unknown": "PipelineRunning"}[succeeded]
        )
        status["conditions"] = [
            {
                "type": "Succeeded",
                "status": succeeded,
                "reason": reason,
                "lastTransitionTime": _time(created + 5),
            }
        ]
    return {
        "apiVersion": OPS,
        "kind": "Operation",
        "metadata": {"name": name, "labels": {label: parent}, "creationTimestamp": _time(created)},
        "spec": {"pipeline": []},
        "status": status,
    }


@dataclasses.dataclass(frozen=True)
class CronCase:
    reason: str
    cron: dict[str, Any]
    now: float
    ops: tuple[dict[str, Any], ...] = ()
    created: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    requeue: float | None = None
    conditions: tuple[tuple[str, str, str], ...] = (("Scheduling", "True", "ScheduleActive"),)
    status: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    events: tuple[str, ...] = ()


CRON_CASES = [
    pytest.param(CronCase("Not due yet: come back when it is.", cron(), now=30, requeue=30), id="NotDue"),
    pytest.param(
        CronCase(
            "Due: the Operation of the scheduled minute is created, and the next minute is awaited.",
            cron(), now=61, created=(f"nightly-{UNIX0 + 60}",), requeue=59,
            conditions=(("Scheduling", "True", "ScheduleActive"), ("Synced", "True", "ReconcileSuccess")),
        ),
        id="Due",
    ),
    pytest.param(
        CronCase(
            "A missed run past startingDeadlineSeconds is skipped.",
            cron(startingDeadlineSeconds=10), now=75, requeue=45,
        ),
        id="MissedDeadline",
    ),
    pytest.param(
        CronCase(
            "The last run is the newest Operation's creation: the next is the minute after it.",
            cron(), now=125, ops=(op("nightly-a", 120, "True"),), requeue=55,
            status={"lastScheduleTime": _time(120), "lastSuccessfulTime": _time(125)},
        ),
        id="LastScheduleTime",
    ),
    pytest.param(
        CronCase(
            "Forbid: nothing new while an Operation runs.",
            cron(concurrencyPolicy="Forbid"), now=61, ops=(op("nightly-r", 0, "Unknown"),), requeue=59,
            status={"lastScheduleTime": _time(0), "runningOperationRefs": [{"name": "nightly-r"}]},
        ),
        id="Forbid",
    ),
    pytest.param(
        CronCase(
            "Replace: the running Operation is deleted and the new one created.",
            cron(concurrencyPolicy="Replace"), now=61, ops=(op("nightly-r", 0, "Unknown"),),
            created=(f"nightly-{UNIX0 + 60}",), deleted=("nightly-r",), requeue=59,
            conditions=(("Scheduling", "True", "ScheduleActive"), ("Synced", "True", "ReconcileSuccess")),
            status={"lastScheduleTime": _time(0), "runningOperationRefs": [{"name": "nightly-r"}]},
        ),
        id="Replace",
    ),
    pytest.param(
        CronCase(
            "Allow: a new one starts beside the running one.",
            cron(), now=61, ops=(op("nightly-r", 0, "Unknown"),), created=(f"nightly-{UNIX0 + 60}",), requeue=59,
            conditions=(("Scheduling", "True", "ScheduleActive"), ("Synced", "True", "ReconcileSuccess")),
            status={"lastScheduleTime": _time(0), "runningOperationRefs": [{"name": "nightly-r"}]},
        ),
        id="Allow",
    ),
    pytest.param(
        CronCase(
            "History: the newest 3 succeeded and the newest failed are kept, never a running one.",
            cron(), now=-10,
            ops=(
                op("ok-1", -50, "True"), op("ok-2", -40, "True"), op("ok-3", -30, "True"), op("ok-4", -20, "True"),
                op("bad-1", -25, "False"), op("bad-2", -15, "False"), op("run", -60, "Unknown"),
            ),
            deleted=("ok-1", "bad-1"), requeue=10,
            status={
                "lastScheduleTime": _time(-15), "lastSuccessfulTime": _time(-15),
                "runningOperationRefs": [{"name": "run"}],
            },
        ),
        id="History",
    ),
    pytest.param(
        CronCase(
            "History limits of 0 keep nothing finished.",
            cron(successfulHistoryLimit=0, failedHistoryLimit=0), now=-10,
            ops=(op("ok", -50, "True"), op("bad", -25, "False")), deleted=("bad", "ok"), requeue=10,
            status={"lastScheduleTime": _time(-25), "lastSuccessfulTime": _time(-45)},
        ),
        id="ZeroLimits",
    ),
    pytest.param(
        CronCase(
            "An invalid schedule stops scheduling, in robfig/cron's words, with no retry.",
            cron(schedule="every day"), now=30,
            conditions=(
                ("Scheduling", "False", "ScheduleInvalid"),
                ("Synced", "False", "ReconcileError"),
            ),
            events=('Warning InvalidSchedule cannot parse cron schedule "every day": cannot parse cron schedule: '
                    "expected exactly 5 fields, found 2: [every day]",),
        ),
        id="InvalidSchedule",
    ),
    pytest.param(
        CronCase(
            "A paused CronOperation schedules nothing.",
            {**cron(), "metadata": {**cron()["metadata"], "annotations": {"crossplane.io/paused": "true"}}}, now=61,
            conditions=(("Scheduling", "False", "SchedulePaused"), ("Synced", "False", "ReconcilePaused")),
        ),
        id="Paused",
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", CRON_CASES)
async def test_cron_operation(case: CronCase) -> None:
    api = _api_server()
    api.put(case.cron)
    existing = [api.put(o) for o in case.ops]
    events = Events()
    reconciler = _cron.CronOperationReconciler(
        api, FakeCache([case.cron]), FakeCache(existing), events, clock=lambda: _at(case.now)
    )
    result = await reconciler.reconcile("nightly")
    ops = {o["metadata"]["name"] for o in api.of_kind("Operation")}
    assert ops - {o["metadata"]["name"] for o in case.ops} == set(case.created), case.reason
    assert {o["metadata"]["name"] for o in case.ops} - ops == set(case.deleted), case.reason
    assert result.requeue_after == case.requeue, case.reason
    stored = api.of_kind("CronOperation")[0]["status"]
    assert [(c["type"], c["status"], c["reason"]) for c in stored["conditions"]] == list(case.conditions), (
        case.reason
    )
    assert {k: v for k, v in stored.items() if k != "conditions"} == dict(case.status), case.reason
    assert [" ".join(e) for e in events.seen] == list(case.events), case.reason


async def test_cron_operation_is_made_from_the_template() -> None:
    """The scheduled Operation: the template's metadata and spec, the label, the controller reference."""
    api = _api_server()
    api.put(cron())
    reconciler = _cron.CronOperationReconciler(
        api, FakeCache([cron()]), FakeCache(), Events(), clock=lambda: _at(61)
    )
    await reconciler.reconcile("nightly")
    [made] = api.of_kind("Operation")
    assert made["metadata"]["labels"] == {"team": "ops", _lifecycle.LABEL_CRON: "nightly"}
    assert made["metadata"]["ownerReferences"] == [
        {
            "apiVersion": OPS,
            "kind": "CronOperation",
            "name": "nightly",
            "uid": "cron-uid",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert made["spec"] == {"pipeline": [{"step": "s", "functionRef": {"name": "fn"}}]}


async def test_cron_create_failure_is_reported_and_retried() -> None:
    api = _api_server()
    api.put(cron())
    api.fail("create", "Operation", _api.Forbidden("operations is forbidden", status=403))
    events = Events()
    reconciler = _cron.CronOperationReconciler(
        api, FakeCache([cron()]), FakeCache(), events, clock=lambda: _at(61)
    )
    with pytest.raises(
        errors.CrossfnError,
        match=f'cannot create scheduled Operation "nightly-{UNIX0 + 60}": operations is forbidden',
    ):
        await reconciler.reconcile("nightly")
    assert [e[:2] for e in events.seen] == [("Warning", "CreateOperation")]
    synced = next(c for c in api.of_kind("CronOperation")[0]["status"]["conditions"] if c["type"] == "Synced")
    assert (synced["status"], synced["reason"]) == ("False", "ReconcileError")


def wop(**watch: Any) -> dict[str, Any]:
    return {
        "apiVersion": OPS,
        "kind": "WatchOperation",
        "metadata": {"name": "on-change", "uid": "watch-uid"},
        "spec": {
            "watch": {"apiVersion": "v1", "kind": "ConfigMap", **watch},
            "operationTemplate": {"spec": {"pipeline": [{"step": "s", "functionRef": {"name": "fn"}}]}},
        },
    }


CM: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {
        "name": "cm",
        "namespace": "ns",
        "uid": "cm-uid",
        "resourceVersion": "7",
        "labels": {"app": "x"},
    },
}


def test_operation_name_is_crossplanes() -> None:
    """``<name>-`` and 7 hex digits of the SHA-256 of gvk/namespace/name/uid/resourceVersion (GVK as apimachinery prints it)."""
    want = hashlib.sha256(b"/v1, Kind=ConfigMap/ns/cm/cm-uid/7").hexdigest()[:7]
    assert _lifecycle.operation_name(wop(), CM) == f"on-change-{want}"
    gone = {**CM, "metadata": {**CM["metadata"], "deletionTimestamp": "2026-01-01T00:00:05Z"}}
    deleted = hashlib.sha256(b"/v1, Kind=ConfigMap/ns/cm/cm-uid/7/2026-01-01T00:00:05Z").hexdigest()[:7]
    assert _lifecycle.operation_name(wop(), gone) == f"on-change-{deleted}"


@pytest.mark.parametrize(
    ("watch", "obj", "want"),
    [
        pytest.param({}, CM, True, id="EverythingOfTheKind"),
        pytest.param({"namespace": "ns"}, CM, True, id="Namespace"),
        pytest.param({"namespace": "other"}, CM, False, id="OtherNamespace"),
        pytest.param({"namespace": "other"}, {"metadata": {"name": "cluster-scoped"}}, True, id="ClusterScopedIgnoresNamespace"),
        pytest.param({"matchLabels": {"app": "x"}}, CM, True, id="Labels"),
        pytest.param({"matchLabels": {"app": "y"}}, CM, False, id="OtherLabels"),
    ],
)  # fmt: skip
def test_watch_selects(watch: dict[str, Any], obj: dict[str, Any], want: bool) -> None:
    assert _watch._selects(wop(**watch), obj) is want


async def _watched(
    api: FakeApi, cache: FakeCache, operations: FakeCache, events: Events
) -> _watch._WatchedReconciler:
    return _watch._WatchedReconciler(
        api,
        cache,
        operations,
        events,
        watch_operation="on-change",
        kind=("v1", "ConfigMap"),
        clock=lambda: _at(5),
    )


async def test_watched_resource_makes_one_operation_per_version() -> None:
    api = _api_server()
    api.put(wop())
    operations = FakeCache()
    reconciler = await _watched(api, FakeCache([CM]), operations, Events())
    await reconciler.reconcile("ns/cm")
    [made] = api.of_kind("Operation")
    assert made["metadata"]["name"] == _lifecycle.operation_name(wop(), CM)
    assert made["metadata"]["labels"] == {_lifecycle.LABEL_WATCH: "on-change"}
    assert made["metadata"]["annotations"] == {
        "ops.crossplane.io/watched-resource-apiversion": "v1",
        "ops.crossplane.io/watched-resource-kind": "ConfigMap",
        "ops.crossplane.io/watched-resource-name": "cm",
        "ops.crossplane.io/watched-resource-namespace": "ns",
        "ops.crossplane.io/watched-resource-resourceversion": "7",
    }
    assert made["spec"]["pipeline"][0]["requirements"]["requiredResources"] == [
        {
            "requirementName": "ops.crossplane.io/watched-resource",
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": "cm",
            "namespace": "ns",
        }
    ]
    operations.objects.append(made)
    await reconciler.reconcile("ns/cm")
    assert len(api.of_kind("Operation")) == 1, "the same version of the resource makes no second Operation"


async def test_deleted_watched_resource_is_a_stand_in() -> None:
    api = _api_server()
    api.put(wop())
    reconciler = await _watched(api, FakeCache(), FakeCache(), Events())
    await reconciler.reconcile("ns/gone")
    [made] = api.of_kind("Operation")
    annotations = made["metadata"]["annotations"]
    assert (
        annotations["ops.crossplane.io/watched-resource-resourceversion"]
        == "ops.crossplane.io/synthetic-deleted"
    )
    assert annotations["ops.crossplane.io/watched-resource-name"] == "gone"


@pytest.mark.parametrize(
    ("policy", "want_ops", "reason"),
    [
        pytest.param("Forbid", {"running"}, "no new Operation while one runs", id="Forbid"),
        pytest.param("Replace", {"new"}, "the running one is replaced", id="Replace"),
        pytest.param("Allow", {"running", "new"}, "both run", id="Allow"),
    ],
)
async def test_watched_concurrency(policy: str, want_ops: set[str], reason: str) -> None:
    api = _api_server()
    api.put({**wop(), "spec": {**wop()["spec"], "concurrencyPolicy": policy}})
    running = api.put(op("running", 0, "Unknown", label=_lifecycle.LABEL_WATCH, parent="on-change"))
    reconciler = await _watched(api, FakeCache([CM]), FakeCache([running]), Events())
    await reconciler.reconcile("ns/cm")
    names = {o["metadata"]["name"] for o in api.of_kind("Operation")}
    assert {"new" if n.startswith("on-change-") else n for n in names} == want_ops, reason


async def test_watch_operation_lifecycle() -> None:
    """Created: finalizer, watched controller, Watching True and the count. Deleted: both gone."""
    api = _api_server()
    api.put(wop(namespace="ns"))
    api.put(CM)
    informers = FakeInformers()
    reconciler = _watch.WatchOperationReconciler(api, informers, Events(), clock=lambda: _at(0))
    await reconciler.reconcile("on-change")
    stored = api.of_kind("WatchOperation")[0]
    assert stored["metadata"]["finalizers"] == ["watchoperation.ops.crossplane.io"]
    assert [(c["type"], c["status"], c["reason"]) for c in stored["status"]["conditions"]] == [
        ("Watching", "True", "WatchActive"),
        ("Synced", "True", "ReconcileSuccess"),
    ]
    assert stored["status"]["watchingResources"] == 1
    assert reconciler.running() == ["on-change"]
    assert len(informers.informer("v1", "ConfigMap").handlers) == 1, "one handler on the watched kind"
    await api.delete(OPS, "WatchOperation", "on-change")
    await reconciler.reconcile("on-change")
    assert reconciler.running() == [] and informers.informer("v1", "ConfigMap").handlers == []
    assert api.of_kind("WatchOperation") == [], "the finalizer is removed, so the WatchOperation goes"


async def test_watch_of_an_unknown_kind_fails() -> None:
    api = _api_server()
    api.put({**wop(), "spec": {**wop()["spec"], "watch": {"apiVersion": "example.org/v1", "kind": "Nope"}}})
    events = Events()
    reconciler = _watch.WatchOperationReconciler(api, FakeInformers(), events, clock=lambda: _at(0))
    with pytest.raises(errors.CrossfnError, match="cannot start watched resource controller watches"):
        await reconciler.reconcile("on-change")
    watching = next(
        c for c in api.of_kind("WatchOperation")[0]["status"]["conditions"] if c["type"] == "Watching"
    )
    assert (watching["status"], watching["reason"]) == ("False", "WatchFailed")
    assert [e[1] for e in events.seen] == ["EstablishWatched"]


def _applies(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.set_desired_composed_resource(
        rsp, "cm", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "out", "namespace": "ns"}}
    )
    response.normal(rsp, "done")


@pytest.mark.parametrize(
    ("capabilities", "succeeded", "reason"),
    [
        pytest.param(["operation"], "True", "a Function with the operation capability runs", id="Capable"),
        pytest.param(
            ["composition"], "Unknown", "a composition function does not run in an Operation", id="NotCapable"
        ),
    ],
)
async def test_operation_reconciler(capabilities: list[str], succeeded: str, reason: str) -> None:
    api = _api_server()
    api.put(
        {
            "apiVersion": OPS,
            "kind": "Operation",
            "metadata": {"name": "o"},
            "spec": {"pipeline": [{"step": "s", "functionRef": {"name": "fn"}}]},
        }
    )
    revision = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "FunctionRevision",
        "metadata": {"name": "fn-1", "labels": {"pkg.crossplane.io/package": "fn"}},
        "spec": {"desiredState": "Active"},
        "status": {"capabilities": capabilities},
    }
    events = Events()
    runner = engine.build_runner(
        engine.InProcessRunner({"fn": _applies}), options=engine.ComposeOptions.operation()
    )
    reconciler = _operation.OperationReconciler(
        api,
        FakeCache(),
        FakeCache([revision]),
        events,
        runner=runner,
        sources=engine.Sources(),
        clock=lambda: _at(0),
    )
    if succeeded == "True":
        await reconciler.reconcile("o")
        assert [o["metadata"]["name"] for o in api.of_kind("ConfigMap")] == ["out"], reason
        assert events.seen == [("Normal", "RunPipelineStep", 'Pipeline step "s": done')]
    else:
        with pytest.raises(errors.CrossfnError, match="function capability check failed"):
            await reconciler.reconcile("o")
        assert [e[1] for e in events.seen] == ["InvalidPipeline"], reason
    stored = api.of_kind("Operation")[0]
    got = next(c for c in stored["status"]["conditions"] if c["type"] == "Succeeded")
    assert got["status"] == succeeded, reason
    assert ("ConfigMap", "out") not in {
        (k, n) for _, k, n in api.writes() if _ == "apply"
    } or succeeded == "True"
