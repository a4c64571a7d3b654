"""The XR reconciler's own steps around compose that need no cluster (upstream core-2.1 steps 2–4, 7, 10).

Crossplane's XR reconciler, before it composes, marks the XR ``Responsive``,
stops at the pause annotation, acknowledges a reconcile request, selects a
Composition and configures the XR. The controller does this against the API
server and render's default mode against its in-memory one; the decisions
and texts live here, once, and each caller applies them to its world.

* :func:`admit`: steps 2–4, the conditions to set and the events to record,
  and whether to stop (paused) or to note a reconcile request as handled;
* :func:`selection_event`: step 7's event when the Composition ref changes;
* :func:`configure`: step 10, the ``crossplane.io/composite`` label
  (:func:`label_composite`) and a legacy XR's default connection Secret
  (:func:`default_connection_secret`);
* :func:`object_condition` and :func:`set_object_condition`: a condition of
  an object, marked with its generation, and set by crossplane-runtime's rule.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from typing import Any

from crossfn.engine import _events, _metadata, _model

__all__ = [
    "ANNOTATION_PAUSED",
    "ANNOTATION_RECONCILE_REQUESTED",
    "PAUSED_MESSAGE",
    "Admission",
    "admit",
    "configure",
    "default_connection_secret",
    "label_composite",
    "object_condition",
    "selection_event",
    "set_object_condition",
    "timestamp",
]

ANNOTATION_PAUSED = "crossplane.io/paused"
ANNOTATION_RECONCILE_REQUESTED = "crossplane.io/reconcile-requested-at"
PAUSED_MESSAGE = "Reconciliation (including deletion) is paused via the pause annotation"
"""The ``Synced`` condition's message on a paused XR."""
_PAUSED_EVENT = "Reconciliation is paused via the pause annotation"


def timestamp(now: datetime.datetime) -> str:
    """A ``metav1.Time``: RFC 3339 in UTC, whole seconds."""
    return now.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _generation(obj: Mapping[str, Any]) -> int:
    meta = obj.get("metadata")
    value = meta.get("generation") if isinstance(meta, Mapping) else None
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def object_condition(
    obj: Mapping[str, Any], type_: str, status: str, reason: str, *, now: datetime.datetime, message: str = ""
) -> dict[str, Any]:
    """A condition of ``obj`` marked with its generation, as Crossplane's condition manager marks it."""
    out: dict[str, Any] = {
        "type": type_,
        "status": status,
        "reason": reason,
        "lastTransitionTime": timestamp(now),
    }
    if message:
        out["message"] = message
    generation = _generation(obj)
    if generation:
        out["observedGeneration"] = generation
    return out


def set_object_condition(obj: dict[str, Any], new: dict[str, Any]) -> bool:
    """Set ``new`` on ``obj``'s ``status.conditions`` (crossplane-runtime's rule); return whether anything changed."""
    status = obj.setdefault("status", {})
    old = list(status.get("conditions") or [])
    merged = _events.set_conditions(old, new)
    status["conditions"] = merged
    return merged != old


@dataclasses.dataclass(frozen=True)
class Admission:
    """What steps 2–4 decide for an XR: set ``conditions`` in order, record ``events`` in order, then stop
    if ``paused``; otherwise note ``reconcile_request`` (when set) as ``status.lastHandledReconcileAt``."""

    conditions: tuple[dict[str, Any], ...]
    events: tuple[_model.Event, ...]
    paused: bool = False
    reconcile_request: str | None = None


def admit(xr: Mapping[str, Any], *, now: datetime.datetime, circuit_open: str | None = None) -> Admission:
    """Steps 2–4: ``Responsive``, the pause, a new reconcile request.

    ``circuit_open`` names what opened the XR's watch circuit breaker
    (``Kind/name``), when it is open: ``Responsive=False``/``WatchCircuitOpen``.
    Otherwise, and always for a caller without a breaker, ``Responsive=True``.
    """
    if circuit_open is None:
        responsive = object_condition(xr, "Responsive", "True", "WatchCircuitClosed", now=now)
    else:
        message = f"Too many watch events from {circuit_open}. Allowing events periodically."
        responsive = object_condition(xr, "Responsive", "False", "WatchCircuitOpen", now=now, message=message)
    meta = xr.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    annotations = annotations if isinstance(annotations, Mapping) else {}
    if annotations.get(ANNOTATION_PAUSED) == "true":
        synced = object_condition(xr, "Synced", "False", "ReconcilePaused", now=now, message=PAUSED_MESSAGE)
        event = _model.Event("Normal", "ReconciliationPaused", _PAUSED_EVENT)
        return Admission(conditions=(responsive, synced), events=(event,), paused=True)
    token = annotations.get(ANNOTATION_RECONCILE_REQUESTED)
    status = xr.get("status")
    handled = status.get("lastHandledReconcileAt") if isinstance(status, Mapping) else None
    if token and token != handled:
        event = _model.Event("Normal", "ReconcileRequestHandled", "Handling reconcile request")
        return Admission(conditions=(responsive,), events=(event,), reconcile_request=str(token))
    return Admission(conditions=(responsive,), events=())


def selection_event(composition: str) -> _model.Event:
    """Step 7's event when the XR's Composition ref changes."""
    return _model.Event("Normal", "SelectComposition", f"Successfully selected composition: {composition}")


def label_composite(xr: dict[str, Any]) -> None:
    """Step 10's label on ``xr`` in place: ``crossplane.io/composite``, the XR's name unless already set."""
    meta = xr.get("metadata")
    if not isinstance(meta, dict):
        meta = xr["metadata"] = {}
    if not isinstance(meta.get("labels"), dict):
        meta["labels"] = {}
    if not meta["labels"].get(_metadata.LABEL_COMPOSITE):
        meta["labels"][_metadata.LABEL_COMPOSITE] = str(meta.get("name") or "")


def default_connection_secret(
    xr: Mapping[str, Any], machinery: dict[str, Any], composition_spec: Mapping[str, Any]
) -> None:
    """Step 10 for a legacy XR without a connection Secret: one named after its uid, in the Composition's
    ``writeConnectionSecretsToNamespace`` (none when that is unset). ``machinery`` is where the XR keeps
    Crossplane's fields (``spec`` for a legacy XR)."""
    meta = xr.get("metadata")
    uid = meta.get("uid") if isinstance(meta, Mapping) else None
    namespace = composition_spec.get("writeConnectionSecretsToNamespace")
    if namespace and not machinery.get("writeConnectionSecretToRef"):
        machinery["writeConnectionSecretToRef"] = {"name": str(uid or ""), "namespace": namespace}


def configure(
    xr: dict[str, Any], machinery: dict[str, Any], composition_spec: Mapping[str, Any], *, legacy: bool
) -> None:
    """Step 10 on ``xr`` in place: :func:`label_composite`, then for a legacy XR :func:`default_connection_secret`."""
    label_composite(xr)
    if legacy:
        default_connection_secret(xr, machinery, composition_spec)
