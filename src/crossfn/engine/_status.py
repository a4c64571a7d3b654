"""The XR's conditions and events after a compose, as Crossplane's reconciler sets them (upstream core-2.17).

A controller calls :func:`reconcile_status` with the XR it read, what
:func:`~crossfn.engine.compose` returned (or the error it raised) and which
composed resources it failed to apply; it gets back the ``status.conditions``
to write, the claim condition types (legacy XRs) and the events to emit.
Ordering follows Crossplane: function conditions first, then ``Synced``, then
``Ready``, each merged by type so unchanged conditions keep their time.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Collection, Mapping
from typing import Any

from crossfn import errors
from crossfn.engine import _events, _model, _readiness

__all__ = ["FATAL_CONDITION_MESSAGE", "ReconcileStatus", "reconcile_status"]

FATAL_CONDITION_MESSAGE = "A fatal error occurred before the status of this condition could be determined."


@dataclasses.dataclass(frozen=True)
class ReconcileStatus:
    """What to write to the XR's status and which events to emit."""

    conditions: tuple[dict[str, Any], ...]
    claim_condition_types: tuple[str, ...]
    events: tuple[_model.Event, ...]


def _managed(c: _model.Condition, generation: int) -> dict[str, Any]:
    """A condition the reconciler owns: it carries the XR's observed generation."""
    out = c.to_dict()
    if generation:
        out["observedGeneration"] = generation
    return out


def reconcile_status(
    xr: Mapping[str, Any],
    result: _model.CompositionResult | None,
    *,
    now: datetime.datetime,
    error: errors.CrossfnError | None = None,
    unsynced: Collection[str] = (),
    legacy: bool = False,
) -> ReconcileStatus:
    """The XR's conditions and events after a compose.

    ``error`` is what compose raised (``result`` may still carry the partial
    run, as on a fatal result); ``unsynced`` names composed resources whose
    apply failed as Invalid.
    """
    meta = xr.get("metadata") or {}
    generation = int(meta.get("generation") or 0)
    status = xr.get("status") or {}
    conditions: list[dict[str, Any]] = list(status.get("conditions") or [])
    claim_types: list[str] = list(status.get("claimConditionTypes") or [])
    if error is None and result is not None and result.fatal is not None:
        error = result.fatal
    events = list(result.events) if result is not None else []
    produced: set[str] = set()
    for c in result.pipeline.conditions if result is not None else ():
        if c.type in _events.SYSTEM_CONDITION_TYPES:
            continue
        produced.add(c.type)
        conditions = _events.set_conditions(conditions, c.to_dict())
        if legacy and c.target is _model.Target.COMPOSITE_AND_CLAIM and c.type not in claim_types:
            claim_types.append(c.type)
    if error is not None:
        message = f"cannot compose resources: {error}"
        events.append(_model.Event("Warning", "ComposeResources", message))
        for existing in list(conditions):
            t = str(existing.get("type") or "")
            if t and t not in _events.SYSTEM_CONDITION_TYPES and t not in produced:
                lost = _model.Condition(
                    t, "Unknown", "FatalError", FATAL_CONDITION_MESSAGE, last_transition_time=now
                )
                conditions = _events.set_conditions(conditions, lost.to_dict())
        synced = _model.Condition("Synced", "False", "ReconcileError", message, last_transition_time=now)
        conditions = _events.set_conditions(conditions, _managed(synced, generation))
        return ReconcileStatus(tuple(conditions), tuple(claim_types), tuple(events))
    if result is None:
        raise ValueError("reconcile_status needs the composition result or the error compose raised")
    for name in sorted(unsynced):
        events.append(
            _model.Event(
                "Normal", "ComposeResources", f"Composed resource {errors.quote(name)} is not yet valid"
            )
        )
    for cr in result.composed:
        if not cr.ready:
            events.append(
                _model.Event(
                    "Normal",
                    "ComposeResources",
                    f"Composed resource {errors.quote(cr.name)} is not yet ready",
                )
            )
    if unsynced:
        message = f"Unsynced resources: {_readiness.stable_n_and_some_more(3, unsynced)}"
        synced = _model.Condition("Synced", "False", "ReconcileError", message, last_transition_time=now)
    else:
        synced = _model.Condition("Synced", "True", "ReconcileSuccess", last_transition_time=now)
    conditions = _events.set_conditions(conditions, _managed(synced, generation))
    if result.ready_condition is not None:
        ready = dataclasses.replace(result.ready_condition, last_transition_time=now)
        conditions = _events.set_conditions(conditions, _managed(ready, generation))
    return ReconcileStatus(tuple(conditions), tuple(claim_types), tuple(events))
