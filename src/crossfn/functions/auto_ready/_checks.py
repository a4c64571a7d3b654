"""Kind-specific Kubernetes health checks, as function-auto-ready runs them.

Each check reads an *observed* object (a plain dict) and answers one question:
is it healthy? A ``False`` answer does not mark the resource not ready; it only
means this check did not prove readiness, and the ``Ready`` condition fallback
still gets its turn (that is function-auto-ready's order, see ``__init__``).

The rules follow Argo CD's gitops-engine as function-auto-ready adopted them.
Where the Go code converts to a typed object and gives up on a conversion
error, these checks treat a field of the wrong type as "not healthy".
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["CHECKS", "check_for"]

Check = Callable[[Mapping[str, Any]], bool]


def _get(obj: Mapping[str, Any], *path: str) -> Any:
    cur: Any = obj
    for key in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


def _int(obj: Mapping[str, Any], *path: str) -> int | None:
    """Read a whole number as Go's getInt64Field does: ints and floats count, nothing else."""
    val = _get(obj, *path)
    if isinstance(val, bool) or not isinstance(val, int | float):
        return None
    return int(val)


def _conditions(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    conds = _get(obj, "status", "conditions")
    if not isinstance(conds, list):
        return []
    return [c for c in conds if isinstance(c, Mapping)]


def _has_condition(obj: Mapping[str, Any], type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in _conditions(obj))


def _always_ready(_obj: Mapping[str, Any]) -> bool:
    """Objects without a meaningful status are ready as soon as they exist."""
    return True


def _pod(obj: Mapping[str, Any]) -> bool:
    phase = _get(obj, "status", "phase")
    if phase == "Succeeded":
        return True
    # A running pod is only healthy when it restarts forever and reports Ready;
    # with OnFailure/Never (or no policy at all) running means still progressing.
    # Upstream also looks for failed containers, but answers "not healthy" either way.
    if phase != "Running" or _get(obj, "spec", "restartPolicy") != "Always":
        return False
    return _has_condition(obj, "Ready")


def _service(obj: Mapping[str, Any]) -> bool:
    if _get(obj, "spec", "type") != "LoadBalancer":
        return True
    ingress = _get(obj, "status", "loadBalancer", "ingress")
    return isinstance(ingress, list) and len(ingress) > 0


def _ingress(obj: Mapping[str, Any]) -> bool:
    ingress = _get(obj, "status", "loadBalancer", "ingress")
    return isinstance(ingress, list) and len(ingress) > 0


def _pvc(obj: Mapping[str, Any]) -> bool:
    return bool(_get(obj, "status", "phase") == "Bound")


def _wanted_replicas(obj: Mapping[str, Any]) -> int:
    """``spec.replicas``, which defaults to 1."""
    replicas = _int(obj, "spec", "replicas")
    return 1 if replicas is None else replicas


def _all_replicas(obj: Mapping[str, Any], *status_fields: str) -> bool:
    """Whether each of these status counts is set and equals the wanted replicas."""
    want = _wanted_replicas(obj)
    return all(_int(obj, "status", field) == want for field in status_fields)


def _deployment(obj: Mapping[str, Any]) -> bool:
    return _all_replicas(obj, "updatedReplicas", "availableReplicas") and _has_condition(obj, "Available")


def _statefulset(obj: Mapping[str, Any]) -> bool:
    if not _all_replicas(obj, "readyReplicas", "currentReplicas"):
        return False
    current_rev = _get(obj, "status", "currentRevision")
    update_rev = _get(obj, "status", "updateRevision")
    return isinstance(current_rev, str) and isinstance(update_rev, str) and current_rev == update_rev


def _daemonset(obj: Mapping[str, Any]) -> bool:
    counts = [
        _int(obj, "status", field)
        for field in ("desiredNumberScheduled", "numberReady", "updatedNumberScheduled", "numberAvailable")
    ]
    if any(n is None for n in counts):
        return False
    return len(set(counts)) == 1


def _replicaset(obj: Mapping[str, Any]) -> bool:
    if (_int(obj, "status", "observedGeneration") or 0) < (_int(obj, "metadata", "generation") or 0):
        return False
    if _has_condition(obj, "ReplicaFailure"):
        return False
    return (_int(obj, "status", "availableReplicas") or 0) >= _wanted_replicas(obj)


def _job(obj: Mapping[str, Any]) -> bool:
    # Conditions are read in order and the first decisive one wins, as upstream.
    for cond in _conditions(obj):
        if cond.get("status") != "True":
            continue
        if cond.get("type") in ("Failed", "Suspended"):
            return False
        if cond.get("type") == "Complete":
            return True
    return False


def _time(value: Any) -> datetime.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.datetime.fromisoformat(value)
    except ValueError:
        return None


def _cronjob(obj: Mapping[str, Any]) -> bool:
    if _get(obj, "spec", "suspend") is True:
        return True
    last_schedule = _time(_get(obj, "status", "lastScheduleTime"))
    if last_schedule is None:
        return False
    active = _get(obj, "status", "active")
    if isinstance(active, list) and active:
        return True
    last_success = _time(_get(obj, "status", "lastSuccessfulTime"))
    return last_success is not None and last_success >= last_schedule


_HPA_DEGRADED = frozenset(
    {"FailedGetScale", "FailedUpdateScale", "FailedGetResourceMetric", "InvalidSelector"}
)


def _hpa(obj: Mapping[str, Any]) -> bool:
    for cond in _conditions(obj):
        if cond.get("status") != "True":
            continue
        if cond.get("type") in _HPA_DEGRADED:
            return False
        if cond.get("type") in ("ScalingActive", "ScalingLimited"):
            return True
    return False


CHECKS: dict[tuple[str, str, str], Check] = {
    ("", "v1", "ConfigMap"): _always_ready,
    ("", "v1", "Namespace"): _always_ready,
    ("", "v1", "Secret"): _always_ready,
    ("", "v1", "ServiceAccount"): _always_ready,
    ("", "v1", "Pod"): _pod,
    ("", "v1", "Service"): _service,
    ("", "v1", "PersistentVolumeClaim"): _pvc,
    ("apps", "v1", "Deployment"): _deployment,
    ("apps", "v1", "StatefulSet"): _statefulset,
    ("apps", "v1", "DaemonSet"): _daemonset,
    ("apps", "v1", "ReplicaSet"): _replicaset,
    ("batch", "v1", "Job"): _job,
    ("batch", "v1", "CronJob"): _cronjob,
    ("autoscaling", "v2", "HorizontalPodAutoscaler"): _hpa,
    ("networking.k8s.io", "v1", "Ingress"): _ingress,
}
"""Health checks by (group, version, kind): exact versions only, as upstream registers them."""


def check_for(group: str, version: str, kind: str) -> Check | None:
    """Return the health check registered for a GVK, or None."""
    return CHECKS.get((group, version, kind))
