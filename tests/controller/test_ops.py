"""Operations on a real API server (``--enable-operations``, upstream ops-1–ops-4).

The manager runs with operations enabled and two operation functions served by ``crossfn function
serve`` (``e2e/ops_functions.py``), reached through ``crossfn.io/endpoint`` with the ``operation``
capability declared (``crossfn.io/capabilities``). One test waits for a real ``* * * * *``
schedule; the other CronOperation cases drive its reconciler with a fake clock against the same
API server, so they do not wait a minute.
"""

from __future__ import annotations

import asyncio
import datetime
import re
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager
from crossfn.controller.ops import _cron, _lifecycle
from crossfn.controller.runtime import _events, _informer
from crossfn.gocompat import time as gotime

from .e2e_support import condition, crossfn_serve, wait_for

pytestmark = pytest.mark.cluster

OPS = "ops.crossplane.io/v1alpha1"
NS = "ops-e2e"
_OPS_CONTROLLERS = (
    "ops/operation.ops.crossplane.io",
    "ops/cronoperation.ops.crossplane.io",
    "watchoperation/watchoperation.ops.crossplane.io",
)


@pytest.fixture(scope="module")
def served() -> Iterator[dict[str, str]]:
    """The two operation functions, each in its own ``crossfn function serve`` process."""
    with crossfn_serve("ops_functions:report") as report, crossfn_serve("ops_functions:fails") as fails:
        yield {"ops-report": report, "ops-fails": fails}


def _function(name: str, address: str) -> dict[str, Any]:
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {
            "name": name,
            "annotations": {"crossfn.io/endpoint": address, "crossfn.io/capabilities": "operation"},
        },
        "spec": {"package": f"xpkg.crossplane.io/ops-e2e/{name}:v0.1.0"},
    }


@pytest.fixture
async def manager(
    envtest: envtest_module.Environment, crossplane_crds: list[str], kube: Any, served: dict[str, str]
) -> AsyncIterator[_manager.Manager]:
    """``crossfn controller run --enable-operations --insecure-functions``, with the functions installed."""
    await kube.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}, field_manager="test"
    )
    for name, address in served.items():
        await kube.apply(_function(name, address), field_manager="test", force=True)
    settings = _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(kubeconfig=envtest.kubeconfig),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(
            metrics_address="127.0.0.1:0", health_address="127.0.0.1:0"
        ),
        features=_settings.FeatureSettings(operations=True),
    )
    m = _manager.Manager(settings)
    await m.start()
    try:

        async def capable() -> bool:
            revisions, _ = await kube.list("pkg.crossplane.io/v1", "FunctionRevision")
            declared = {
                (r["metadata"].get("labels") or {}).get("pkg.crossplane.io/package"): (
                    r.get("status") or {}
                ).get("capabilities")
                for r in revisions
            }
            return all(declared.get(name) == ["operation"] for name in served)

        await wait_for(
            capable, timeout=30, what="the functions' revisions declaring the operation capability"
        )
        yield m
    finally:
        await m.stop()


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _step(function: str, name: str) -> dict[str, Any]:
    return {
        "step": "report",
        "functionRef": {"name": function},
        "input": {"apiVersion": "ops-e2e.crossfn.io/v1", "kind": "Input", "name": name},
    }


async def _metric(m: _manager.Manager, name: str, **labels: str) -> float:
    """One sample of the manager's ``/metrics``, 0 when absent (read off the loop the server runs on)."""
    url = f"http://127.0.0.1:{m.metrics_port}/metrics"
    text = (await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())).decode()
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        match = re.fullmatch(rf"{name}\{{(.*)\}} (\S+)", line)
        if match and ",".join(sorted(match[1].split(","))) == want:
            return float(match[2])
    return 0.0


async def _events_of(kube: Any, name: str) -> list[tuple[str, str, str]]:
    events, _ = await kube.list("v1", "Event", "default")
    return [
        (e["type"], e["reason"], e["message"])
        for e in events
        if e["involvedObject"].get("name") == name and e["involvedObject"].get("kind") == "Operation"
    ]


async def test_an_operation_runs_once_to_success(manager: _manager.Manager, kube: Any) -> None:
    for cm in ("in-a", "in-b"):
        await kube.apply(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": cm, "namespace": NS, "labels": {"ops-e2e/input": "yes"}},
            },
            field_manager="test",
        )
    name = _unique("op")
    await kube.create(
        {
            "apiVersion": OPS,
            "kind": "Operation",
            "metadata": {"name": name},
            "spec": {"mode": "Pipeline", "pipeline": [_step("ops-report", name)]},
        }
    )

    async def finished() -> dict[str, Any] | None:
        op = await kube.get(OPS, "Operation", name)
        return op if condition(op, "Succeeded").get("status") in ("True", "False") else None

    op = await wait_for(finished, timeout=60, what=f"Operation {name} finished")
    assert [(c["type"], c["status"], c["reason"]) for c in op["status"]["conditions"]] == [
        ("Succeeded", "True", "PipelineSuccess"),
        ("ValidPipeline", "True", "ValidPipeline"),
        ("Synced", "True", "ReconcileSuccess"),
    ], "the conditions in the order Crossplane sets them"
    assert op["status"]["pipeline"] == [
        {"step": "report", "output": {"watched": "", "inputs": "in-a,in-b", "observed": False}}
    ], "the step's output, from the resources it required; an Operation has no observed state"
    assert op["status"]["appliedResourceRefs"] == [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": f"report-{name}", "namespace": NS}
    ]
    assert "failures" not in op["status"]
    report = await kube.get("v1", "ConfigMap", f"report-{name}", NS)
    assert report is not None and report["data"] == {"watched": "", "inputs": "in-a,in-b"}
    owners = {f["manager"]: f["operation"] for f in report["metadata"]["managedFields"]}
    assert owners == {f"ops.crossplane.io/operation/{op['metadata']['uid']}": "Apply"}, (
        "applied with Crossplane's field owner"
    )

    async def recorded() -> list[tuple[str, str, str]] | None:
        return await _events_of(kube, name) or None

    assert await wait_for(recorded, timeout=15, what="the Operation's events") == [
        ("Normal", "RunPipelineStep", f'Pipeline step "report": reported {name}')
    ]

    # Finished is final: a new generation is reconciled, but the pipeline does not run again.
    report["data"] = {"changed": "by hand"}
    await kube.update(report)
    before = await _metric(
        manager,
        "controller_runtime_reconcile_total",
        controller="ops/operation.ops.crossplane.io",
        result="success",
    )
    current = await kube.get(OPS, "Operation", name)
    current["spec"]["retryLimit"] = 7
    await kube.update(current)

    async def reconciled() -> bool:
        after = await _metric(
            manager,
            "controller_runtime_reconcile_total",
            controller="ops/operation.ops.crossplane.io",
            result="success",
        )
        return after > before

    await wait_for(reconciled, timeout=30, what="the new generation reconciled")
    again = await kube.get("v1", "ConfigMap", f"report-{name}", NS)
    assert again["data"] == {"changed": "by hand"}, "a finished Operation never applies again"
    assert (await kube.get(OPS, "Operation", name))["status"]["conditions"] == op["status"]["conditions"]


async def test_a_failing_operation_fails_after_its_retries(manager: _manager.Manager, kube: Any) -> None:
    name = _unique("op-fails")
    await kube.create({
        "apiVersion": OPS, "kind": "Operation", "metadata": {"name": name},
        "spec": {"mode": "Pipeline", "retryLimit": 2, "pipeline": [_step("ops-fails", name)]},
    })  # fmt: skip

    async def failed() -> dict[str, Any] | None:
        op = await kube.get(OPS, "Operation", name)
        return op if condition(op, "Succeeded").get("status") == "False" else None

    op = await wait_for(failed, timeout=60, what=f"Operation {name} failed")
    succeeded = condition(op, "Succeeded")
    assert (succeeded["reason"], succeeded["message"]) == ("PipelineError", "failure limit of 2 reached")
    assert op["status"]["failures"] == 2
    assert condition(op, "Synced")["reason"] == "ReconcileSuccess", "giving up is not a reconcile error"

    async def both() -> list[tuple[str, str, str]] | None:
        events = await _events_of(kube, name)
        return events if events and any(e[1] == "FunctionInvocation" for e in events) else None

    events = await wait_for(both, timeout=15, what="the FunctionInvocation warnings")
    assert {e[:2] for e in events} == {("Warning", "FunctionInvocation")}
    assert events[0][2] == 'pipeline step "report" returned a fatal result: cannot reach the fleet'


@pytest.mark.slow
async def test_a_cron_operation_schedules_one_within_a_minute(manager: _manager.Manager, kube: Any) -> None:
    """Real time: ``* * * * *`` makes an Operation at the next minute, which runs."""
    name = _unique("every-minute")
    await kube.create({
        "apiVersion": OPS, "kind": "CronOperation", "metadata": {"name": name},
        "spec": {"schedule": "* * * * *", "operationTemplate": {"spec": {"mode": "Pipeline", "pipeline": [_step("ops-report", name)]}}},
    })  # fmt: skip
    try:

        async def succeeded() -> dict[str, Any] | None:
            ops, _ = await kube.list(OPS, "Operation", labels={_lifecycle.LABEL_CRON: name})
            return next((o for o in ops if condition(o, "Succeeded").get("status") == "True"), None)

        op = await wait_for(succeeded, timeout=90, what=f"an Operation of CronOperation {name} succeeded")
        assert re.fullmatch(rf"{name}-\d+", op["metadata"]["name"]), (
            "named for the Unix second it was scheduled"
        )
        assert int(op["metadata"]["name"].rsplit("-", 1)[1]) % 60 == 0, "scheduled on the minute"
        assert op["metadata"]["ownerReferences"][0]["kind"] == "CronOperation"

        async def recorded() -> dict[str, Any] | None:
            co = await kube.get(OPS, "CronOperation", name)
            return co if (co.get("status") or {}).get("lastSuccessfulTime") else None

        co = await wait_for(recorded, timeout=30, what="lastSuccessfulTime")
        assert condition(co, "Scheduling")["reason"] == "ScheduleActive"
        assert co["status"]["lastScheduleTime"] == op["metadata"]["creationTimestamp"]
    finally:
        await kube.delete(OPS, "CronOperation", name)


@pytest.fixture
async def informers(kube: Any) -> AsyncIterator[_informer.InformerFactory]:
    factory = _informer.InformerFactory(kube)
    try:
        yield factory
    finally:
        await factory.stop()


async def _reconcile_at(
    kube: Any, informers: _informer.InformerFactory, name: str, seconds_after_creation: float
) -> Any:
    """One CronOperation reconcile at ``seconds_after_creation`` on a fake clock, its caches synced first."""
    crons = informers.informer(OPS, "CronOperation")
    operations = informers.informer(OPS, "Operation")
    await crons.wait_synced()
    await operations.wait_synced()
    co = await kube.get(OPS, "CronOperation", name)
    created = gotime.parse_rfc3339(co["metadata"]["creationTimestamp"])
    reconciler = _cron.CronOperationReconciler(
        kube, crons, operations, _events.NoEvents(),
        clock=lambda: created + datetime.timedelta(seconds=seconds_after_creation),
    )  # fmt: skip
    return await reconciler.reconcile(name), created


@pytest.fixture
async def crons(kube: Any) -> AsyncIterator[list[str]]:
    """The CronOperations a test makes, deleted after it (so no later manager schedules them)."""
    names: list[str] = []
    try:
        yield names
    finally:
        for name in names:
            await kube.delete(OPS, "CronOperation", name)


async def _make_cron(kube: Any, crons: list[str], **spec: Any) -> str:
    name = _unique("cron")
    crons.append(name)
    await kube.create({
        "apiVersion": OPS, "kind": "CronOperation", "metadata": {"name": name},
        "spec": {"schedule": "* * * * *", "operationTemplate": {"spec": {"pipeline": [_step("ops-report", name)]}}, **spec},
    })  # fmt: skip
    return name


async def _running(kube: Any, cron: str, suffix: str, succeeded: str = "Unknown") -> str:
    """An Operation of ``cron`` that reads as running (or finished), written directly (no controller runs here)."""
    name = f"{cron}-{suffix}"
    op = await kube.create({
        "apiVersion": OPS, "kind": "Operation",
        "metadata": {"name": name, "labels": {_lifecycle.LABEL_CRON: cron}},
        "spec": {"pipeline": [_step("ops-report", name)]},
    })  # fmt: skip
    reason = {"Unknown": "PipelineRunning", "True": "PipelineSuccess", "False": "PipelineError"}[succeeded]
    op["status"] = {
        "conditions": [
            {
                "type": "Succeeded",
                "status": succeeded,
                "reason": reason,
                "lastTransitionTime": op["metadata"]["creationTimestamp"],
            }
        ]
    }
    await kube.update(op, status=True)
    return name


async def _names(kube: Any, cron: str) -> set[str]:
    ops, _ = await kube.list(OPS, "Operation", labels={_lifecycle.LABEL_CRON: cron})
    return {o["metadata"]["name"] for o in ops}


async def _settled(informers: _informer.InformerFactory, cron: str, want: int) -> None:
    """Wait until the cache holds ``want`` Operations of ``cron``, each with its status."""
    operations = informers.informer(OPS, "Operation")

    async def seen() -> bool:
        ops = operations.list(labels={_lifecycle.LABEL_CRON: cron})
        return len(ops) == want and all(condition(o, "Succeeded") for o in ops)

    await wait_for(seen, timeout=15, what=f"{want} Operations of {cron} in the cache, with their status")


async def test_cron_operation_on_a_fake_clock(
    kube: Any, crossplane_crds: list[str], informers: _informer.InformerFactory, crons: list[str]
) -> None:
    """Not due, then due: the Operation ``<name>-<unix minute>``, controlled by the CronOperation."""
    name = await _make_cron(kube, crons)
    result, created = await _reconcile_at(kube, informers, name, 1)
    assert await _names(kube, name) == set(), "not due a second after creation"
    assert result.requeue_after is not None and 0 < result.requeue_after <= 60
    result, _ = await _reconcile_at(kube, informers, name, 61)
    minute = (created + datetime.timedelta(seconds=60)).replace(second=0, microsecond=0)
    first = f"{name}-{int(minute.timestamp())}"
    assert await _names(kube, name) == {first}
    co = await kube.get(OPS, "CronOperation", name)
    assert [(c["type"], c["status"]) for c in co["status"]["conditions"]] == [
        ("Scheduling", "True"),
        ("Synced", "True"),
    ]


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(("Allow", True, True, "Allow starts one beside the running one"), id="Allow"),
        pytest.param(("Forbid", True, False, "Forbid skips the run"), id="Forbid"),
        pytest.param(("Replace", False, True, "Replace deletes the running one first"), id="Replace"),
    ],
)
async def test_cron_concurrency_policies(
    kube: Any,
    crossplane_crds: list[str],
    informers: _informer.InformerFactory,
    crons: list[str],
    case: tuple[str, bool, bool, str],
) -> None:
    """Due with an Operation running: the policy decides (survives: the running one is still there; created: a new one)."""
    policy, survives, created, reason = case
    name = await _make_cron(kube, crons, concurrencyPolicy=policy)
    running = await _running(kube, name, "running")
    await _settled(informers, name, 1)
    await _reconcile_at(kube, informers, name, 61)
    names = await _names(kube, name)
    assert (running in names) is survives, reason
    assert (len(names - {running}) == 1) is created, reason
    co = await kube.get(OPS, "CronOperation", name)
    assert co["status"]["runningOperationRefs"] == [{"name": running}]


async def test_cron_history_limits(
    kube: Any, crossplane_crds: list[str], informers: _informer.InformerFactory, crons: list[str]
) -> None:
    """One succeeded and no failed Operation kept; the running one is never collected."""
    name = await _make_cron(kube, crons, successfulHistoryLimit=1, failedHistoryLimit=0)
    kept_running = await _running(kube, name, "run")
    for i in range(3):
        await _running(kube, name, f"ok-{i}", "True")
    await _running(kube, name, "bad", "False")
    await _settled(informers, name, 5)
    await _reconcile_at(kube, informers, name, 1)
    names = await _names(kube, name)
    assert kept_running in names
    assert len([n for n in names if "-ok-" in n]) == 1 and f"{name}-bad" not in names


async def test_a_watch_operation_runs_for_a_labelled_config_map(manager: _manager.Manager, kube: Any) -> None:
    name = _unique("on-change")
    await kube.create({
        "apiVersion": OPS, "kind": "WatchOperation", "metadata": {"name": name},
        "spec": {
            "watch": {"apiVersion": "v1", "kind": "ConfigMap", "namespace": NS, "matchLabels": {"watch-me": name}},
            "operationTemplate": {"spec": {"mode": "Pipeline", "pipeline": [_step("ops-report", name)]}},
        },
    })  # fmt: skip

    async def watching() -> bool:
        wo = await kube.get(OPS, "WatchOperation", name)
        return condition(wo, "Watching").get("status") == "True"

    await wait_for(watching, timeout=30, what=f"WatchOperation {name} watching")
    await kube.apply(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-plain", "namespace": NS}},
        field_manager="test",
    )
    await kube.apply(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"{name}-cm", "namespace": NS, "labels": {"watch-me": name}},
        },
        field_manager="test",
    )

    async def succeeded() -> dict[str, Any] | None:
        ops, _ = await kube.list(OPS, "Operation", labels={_lifecycle.LABEL_WATCH: name})
        return next((o for o in ops if condition(o, "Succeeded").get("status") == "True"), None)

    op = await wait_for(succeeded, timeout=60, what=f"an Operation of WatchOperation {name} succeeded")
    annotations = op["metadata"]["annotations"]
    assert annotations["ops.crossplane.io/watched-resource-name"] == f"{name}-cm"
    assert annotations["ops.crossplane.io/watched-resource-namespace"] == NS
    assert op["status"]["pipeline"][0]["output"]["watched"] == f"{name}-cm", (
        "the function got the watched resource"
    )
    assert op["spec"]["pipeline"][0]["requirements"]["requiredResources"] == [
        {
            "requirementName": "ops.crossplane.io/watched-resource",
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": f"{name}-cm",
            "namespace": NS,
        }
    ]
    ops, _ = await kube.list(OPS, "Operation", labels={_lifecycle.LABEL_WATCH: name})
    assert len(ops) == 1, "the unlabelled ConfigMap made no Operation"

    async def counted() -> dict[str, Any] | None:
        wo = await kube.get(OPS, "WatchOperation", name)
        status = wo.get("status") or {}
        return wo if status.get("watchingResources") == 1 and status.get("lastSuccessfulTime") else None

    wo = await wait_for(counted, timeout=30, what="watchingResources and lastSuccessfulTime")
    assert wo["metadata"]["finalizers"] == ["watchoperation.ops.crossplane.io"]
    controller = f"watched/{name}"
    assert (
        await _metric(manager, "engine_watches_started_total", controller=controller, type="WatchOperation")
        == 1
    )

    await kube.delete(OPS, "WatchOperation", name)

    async def gone() -> bool:
        return await kube.get(OPS, "WatchOperation", name) is None

    await wait_for(gone, timeout=30, what=f"WatchOperation {name} deleted (its finalizer removed)")
    assert await _metric(manager, "engine_controllers_stopped_total", controller=controller) == 1


async def test_operations_are_off_by_default(
    envtest: envtest_module.Environment, crossplane_crds: list[str]
) -> None:
    """Without --enable-operations no ops controller starts (the CRDs are installed either way)."""
    settings = _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(kubeconfig=envtest.kubeconfig),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(metrics_address="127.0.0.1:0", health_address=""),
    )
    m = _manager.Manager(settings)
    await m.start()
    try:
        for name in _OPS_CONTROLLERS:
            assert await _metric(m, "engine_controllers_started_total", controller=name) == 0, name
        assert (
            await _metric(
                m,
                "engine_controllers_started_total",
                controller="revisions/composition.apiextensions.crossplane.io",
            )
            == 1
        )
    finally:
        await m.stop()


async def test_the_ops_controllers_start_with_the_flag(manager: _manager.Manager) -> None:
    for name in _OPS_CONTROLLERS:
        assert await _metric(manager, "engine_controllers_started_total", controller=name) == 1, name
