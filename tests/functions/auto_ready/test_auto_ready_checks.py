"""Kind-specific health checks of auto-ready: every kind, both outcomes.

Cases follow function-auto-ready's healthchecks/*_test.go behaviour. Each runs
the whole function on one observed resource without a Ready condition, so a
READY_TRUE can only come from the kind's own check.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from crossfn.functions import auto_ready
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response


def _run(obj: dict[str, Any]) -> int:
    desired = {k: obj[k] for k in ("apiVersion", "kind")}
    req = json_format.ParseDict(
        {
            "observed": {"composite": {"resource": {}}, "resources": {"r": {"resource": obj}}},
            "desired": {"resources": {"r": {"resource": desired}}},
        },
        fnv1.RunFunctionRequest(),
    )
    rsp = response.to(req)
    auto_ready.compose(req, rsp)
    return rsp.desired.resources["r"].ready


def _obj(api_version: str, kind: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, **fields}


def _conds(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"conditions": [{"type": t, "status": s} for t, s in pairs]}


T, U = fnv1.READY_TRUE, fnv1.READY_UNSPECIFIED

CASES = [
    pytest.param(
        _obj("v1", "ConfigMap", data={"a": "b"}),
        T,
        "a ConfigMap is ready once it exists",
        id="ConfigMapExists",
    ),
    pytest.param(_obj("v1", "Secret"), T, "a Secret is ready once it exists", id="SecretExists"),
    pytest.param(
        _obj("v1", "ServiceAccount"), T, "a ServiceAccount is ready once it exists", id="ServiceAccountExists"
    ),
    pytest.param(
        _obj("v1", "Namespace", status={"phase": "Active"}),
        T,
        "a Namespace is ready once it exists",
        id="NamespaceExists",
    ),
    pytest.param(
        _obj("v1", "Pod", status={"phase": "Succeeded"}), T, "a succeeded pod is healthy", id="PodSucceeded"
    ),
    pytest.param(
        _obj(
            "v1",
            "Pod",
            spec={"restartPolicy": "Always"},
            status={"phase": "Running", **_conds(("Ready", "True"))},
        ),
        T,
        "a running, always-restarting pod with PodReady is healthy",
        id="PodRunningReady",
    ),
    pytest.param(
        _obj(
            "v1",
            "Pod",
            spec={"restartPolicy": "Always"},
            status={"phase": "Running", **_conds(("Ready", "False"))},
        ),
        U,
        "a running pod that is not PodReady is progressing",
        id="PodRunningNotReady",
    ),
    pytest.param(
        _obj(
            "v1",
            "Pod",
            spec={"restartPolicy": "Never"},
            status={"phase": "Running", **_conds(("ContainersReady", "True"))},
        ),
        U,
        "a running run-once pod is still progressing",
        id="PodRunningNever",
    ),
    pytest.param(
        _obj("v1", "Pod", status={"phase": "Failed"}), U, "a failed pod is not healthy", id="PodFailed"
    ),
    pytest.param(
        _obj("v1", "Pod", status={"phase": "Pending"}), U, "a pending pod is not healthy", id="PodPending"
    ),
    pytest.param(
        _obj("v1", "Service", spec={"type": "ClusterIP"}),
        T,
        "a ClusterIP service is healthy",
        id="ServiceClusterIP",
    ),
    pytest.param(
        _obj("v1", "Service"), T, "a service without a type defaults to ClusterIP", id="ServiceNoType"
    ),
    pytest.param(
        _obj(
            "v1",
            "Service",
            spec={"type": "LoadBalancer"},
            status={"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}},
        ),
        T,
        "a LoadBalancer with an ingress point is healthy",
        id="ServiceLoadBalancerIngress",
    ),
    pytest.param(
        _obj("v1", "Service", spec={"type": "LoadBalancer"}, status={"loadBalancer": {}}),
        U,
        "a LoadBalancer without ingress is still waiting",
        id="ServiceLoadBalancerPending",
    ),
    pytest.param(
        _obj("v1", "PersistentVolumeClaim", status={"phase": "Bound"}),
        T,
        "a bound claim is healthy",
        id="PVCBound",
    ),
    pytest.param(
        _obj("v1", "PersistentVolumeClaim", status={"phase": "Pending"}),
        U,
        "a pending claim is not",
        id="PVCPending",
    ),
    pytest.param(
        _obj("v1", "PersistentVolumeClaim", status={"phase": "Lost"}), U, "a lost claim is not", id="PVCLost"
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "Deployment",
            spec={"replicas": 3},
            status={"updatedReplicas": 3, "availableReplicas": 3, **_conds(("Available", "True"))},
        ),
        T,
        "all replicas updated and available, and Available",
        id="DeploymentHealthy",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "Deployment",
            status={"updatedReplicas": 1, "availableReplicas": 1, **_conds(("Available", "True"))},
        ),
        T,
        "replicas default to 1",
        id="DeploymentDefaultReplicas",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "Deployment",
            spec={"replicas": 3},
            status={"updatedReplicas": 3, "availableReplicas": 2, **_conds(("Available", "True"))},
        ),
        U,
        "one replica still unavailable",
        id="DeploymentRollingOut",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "Deployment",
            spec={"replicas": 1},
            status={"updatedReplicas": 1, "availableReplicas": 1, **_conds(("Available", "False"))},
        ),
        U,
        "counts match but the Available condition is False",
        id="DeploymentNotAvailable",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "StatefulSet",
            spec={"replicas": 2},
            status={
                "readyReplicas": 2,
                "currentReplicas": 2,
                "currentRevision": "r1",
                "updateRevision": "r1",
            },
        ),
        T,
        "all replicas ready at the update revision",
        id="StatefulSetHealthy",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "StatefulSet",
            spec={"replicas": 2},
            status={
                "readyReplicas": 2,
                "currentReplicas": 2,
                "currentRevision": "r1",
                "updateRevision": "r2",
            },
        ),
        U,
        "an update is still rolling out",
        id="StatefulSetUpdating",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "StatefulSet",
            spec={"replicas": 2},
            status={
                "readyReplicas": 1,
                "currentReplicas": 2,
                "currentRevision": "r1",
                "updateRevision": "r1",
            },
        ),
        U,
        "one replica not ready",
        id="StatefulSetNotReady",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "DaemonSet",
            status={
                "desiredNumberScheduled": 3,
                "numberReady": 3,
                "updatedNumberScheduled": 3,
                "numberAvailable": 3,
            },
        ),
        T,
        "every scheduled pod ready, updated and available",
        id="DaemonSetHealthy",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "DaemonSet",
            status={
                "desiredNumberScheduled": 3,
                "numberReady": 2,
                "updatedNumberScheduled": 3,
                "numberAvailable": 3,
            },
        ),
        U,
        "one pod not ready",
        id="DaemonSetNotReady",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "ReplicaSet",
            metadata={"name": "x", "generation": 2},
            spec={"replicas": 2},
            status={"observedGeneration": 2, "availableReplicas": 2},
        ),
        T,
        "current generation with every replica available",
        id="ReplicaSetHealthy",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "ReplicaSet",
            metadata={"name": "x", "generation": 3},
            spec={"replicas": 2},
            status={"observedGeneration": 2, "availableReplicas": 2},
        ),
        U,
        "the controller has not seen the latest generation",
        id="ReplicaSetStaleGeneration",
    ),
    pytest.param(
        _obj(
            "apps/v1",
            "ReplicaSet",
            spec={"replicas": 1},
            status={"availableReplicas": 1, **_conds(("ReplicaFailure", "True"))},
        ),
        U,
        "a ReplicaFailure condition is unhealthy",
        id="ReplicaSetReplicaFailure",
    ),
    pytest.param(
        _obj("batch/v1", "Job", status=_conds(("Complete", "True"))), T, "a completed job", id="JobComplete"
    ),
    pytest.param(
        _obj("batch/v1", "Job", status=_conds(("Failed", "True"))), U, "a failed job", id="JobFailed"
    ),
    pytest.param(
        _obj("batch/v1", "Job", status=_conds(("Suspended", "True"))), U, "a suspended job", id="JobSuspended"
    ),
    pytest.param(
        _obj("batch/v1", "Job", status={"active": 1}), U, "a running job is progressing", id="JobRunning"
    ),
    pytest.param(
        _obj("batch/v1", "CronJob", spec={"suspend": True}),
        T,
        "a suspended cron job is fine",
        id="CronJobSuspended",
    ),
    pytest.param(
        _obj("batch/v1", "CronJob", status={}), U, "never scheduled yet", id="CronJobNeverScheduled"
    ),
    pytest.param(
        _obj(
            "batch/v1",
            "CronJob",
            status={"lastScheduleTime": "2024-01-01T10:00:00Z", "active": [{"name": "j"}]},
        ),
        T,
        "a job is running now",
        id="CronJobActive",
    ),
    pytest.param(
        _obj(
            "batch/v1",
            "CronJob",
            status={"lastScheduleTime": "2024-01-01T10:00:00Z", "lastSuccessfulTime": "2024-01-01T10:00:30Z"},
        ),
        T,
        "the last scheduled run succeeded",
        id="CronJobLastRunSucceeded",
    ),
    pytest.param(
        _obj(
            "batch/v1",
            "CronJob",
            status={"lastScheduleTime": "2024-01-01T11:00:00Z", "lastSuccessfulTime": "2024-01-01T10:00:30Z"},
        ),
        U,
        "the last scheduled run did not succeed",
        id="CronJobLastRunFailed",
    ),
    pytest.param(
        _obj(
            "autoscaling/v2",
            "HorizontalPodAutoscaler",
            status=_conds(("AbleToScale", "True"), ("ScalingActive", "True")),
        ),
        T,
        "scaling is active",
        id="HPAScalingActive",
    ),
    pytest.param(
        _obj("autoscaling/v2", "HorizontalPodAutoscaler", status=_conds(("ScalingLimited", "True"))),
        T,
        "scaling at its limit is healthy",
        id="HPAScalingLimited",
    ),
    pytest.param(
        _obj(
            "autoscaling/v2",
            "HorizontalPodAutoscaler",
            status=_conds(("FailedGetScale", "True"), ("ScalingActive", "True")),
        ),
        U,
        "a degraded condition listed first wins",
        id="HPADegraded",
    ),
    pytest.param(
        _obj(
            "networking.k8s.io/v1",
            "Ingress",
            status={"loadBalancer": {"ingress": [{"hostname": "a.example"}]}},
        ),
        T,
        "an ingress with an address",
        id="IngressAddressed",
    ),
    pytest.param(
        _obj("networking.k8s.io/v1", "Ingress", status={}),
        U,
        "an ingress without an address",
        id="IngressPending",
    ),
    pytest.param(
        _obj(
            "apps/v1beta2",
            "Deployment",
            status={"updatedReplicas": 1, "availableReplicas": 1, **_conds(("Available", "True"))},
        ),
        U,
        "checks are registered for exact versions only",
        id="OtherVersionNoCheck",
    ),
]


@pytest.mark.parametrize(("obj", "want", "reason"), CASES)
def test_health_check(obj: dict[str, Any], want: int, reason: str) -> None:
    assert _run(obj) == want, reason
