"""Turning a step's results and conditions into XR events and conditions (§2.9 steps 6–7).

Order matters and is Crossplane's: a response's conditions are folded
*before* its results, so a fatal step's conditions survive; results are
folded in order and the first fatal one stops the fold, dropping the ones
after it. Unknown severities become warnings with a telling message.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable, Sequence

from crossfn import errors
from crossfn.engine import _model
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["CLASSIC_SYSTEM_CONDITION_TYPES", "DEFAULT_REASON", "SYSTEM_CONDITION_TYPES", "Fold", "fold_conditions", "fold_results", "set_conditions"]

DEFAULT_REASON = "ComposeResources"
"""The event reason when a result names none."""

_STATUS = {
    fnv1.STATUS_CONDITION_TRUE: "True",
    fnv1.STATUS_CONDITION_FALSE: "False",
}


def fold_conditions(conditions: Iterable[fnv1.Condition], now: datetime.datetime) -> list[_model.Condition]:
    """XR conditions for a step's conditions; unknown and unspecified status read ``Unknown``."""
    return [
        _model.Condition(
            type=c.type,
            status=_STATUS.get(c.status, "Unknown"),
            reason=c.reason,
            message=c.message,
            last_transition_time=now,
            target=_model.Target.from_proto(c.target),
        )
        for c in conditions
    ]


@dataclasses.dataclass
class Fold:
    """What folding one step's results gave: events, kept results, and the fatal error if any."""

    events: list[_model.Event] = dataclasses.field(default_factory=list)
    results: list[_model.FunctionResult] = dataclasses.field(default_factory=list)
    fatal: errors.PipelineFatalError | None = None


def fold_results(step: str, results: Sequence[fnv1.Result]) -> Fold:
    """Events and result records for ``results`` of ``step``, stopping at the first fatal one."""
    out = Fold()
    if not results:
        return out
    detail = f"Pipeline step {errors.quote(step)}"
    for r in results:
        reason = r.reason or DEFAULT_REASON
        target = _model.Target.from_proto(r.target)
        if r.severity == fnv1.SEVERITY_FATAL:
            out.fatal = errors.PipelineFatalError(step, r.message)
            return out
        out.results.append(_model.FunctionResult(step=step, severity=r.severity, message=r.message, reason=reason, target=target))
        if r.severity == fnv1.SEVERITY_WARNING:
            out.events.append(_model.Event("Warning", reason, r.message, target, detail))
        elif r.severity == fnv1.SEVERITY_NORMAL:
            out.events.append(_model.Event("Normal", reason, r.message, target, detail))
        else:
            message = f"{detail} returned a result of unknown severity (assuming warning): {r.message}"
            out.events.append(_model.Event("Warning", reason, message, _model.Target.COMPOSITE))
    return out


SYSTEM_CONDITION_TYPES = frozenset({"Ready", "Synced", "Healthy", "UpToDate", "Responsive"})
"""Condition types Crossplane's controller owns; function conditions of these types are not applied."""

CLASSIC_SYSTEM_CONDITION_TYPES = frozenset({"Ready", "Synced", "Healthy", "UpToDate"})
"""Classic render's list, which predates ``Responsive``."""


def set_conditions(existing: list[dict[str, object]], *conditions: dict[str, object]) -> list[dict[str, object]]:
    """Merge ``conditions`` into ``existing`` by type, as crossplane-runtime's ``SetConditions``.

    A same-type condition is replaced unless it is equal ignoring
    ``lastTransitionTime`` (then the old one, with its time, stays); new types
    are appended. Returns a new list.
    """
    out = list(existing)
    for new in conditions:
        for i, old in enumerate(out):
            if old.get("type") != new.get("type"):
                continue
            if _equal_ignoring_time(old, new):
                break
            out[i] = new
            break
        else:
            out.append(new)
    return out


def _equal_ignoring_time(a: dict[str, object], b: dict[str, object]) -> bool:
    """Crossplane's ``Condition.Equal``: time ignored; generation compared only when both are set."""
    keys = ("type", "status", "reason", "message")
    if any((a.get(k) or "") != (b.get(k) or "") for k in keys):
        return False
    ga, gb = a.get("observedGeneration") or 0, b.get("observedGeneration") or 0
    return not (ga and gb) or ga == gb
