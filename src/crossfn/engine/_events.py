"""Turning a step's results and conditions into XR events and conditions (upstream core-2.9 steps 6–7).

Order matters and is Crossplane's: a response's conditions are folded
*before* its results, so a fatal step's conditions survive; results are
folded in order and the first fatal one stops the fold, dropping the ones
after it. Unknown severities become warnings with a telling message.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable, Mapping, Sequence

from crossfn import errors
from crossfn.engine import _model
from crossfn.gocompat import time as gotime
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = [
    "CLASSIC_SYSTEM_CONDITION_TYPES",
    "DEFAULT_REASON",
    "SYSTEM_CONDITION_TYPES",
    "Fold",
    "fold_conditions",
    "fold_results",
    "go_conditions",
    "set_conditions",
]

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
        out.results.append(
            _model.FunctionResult(
                step=step, severity=r.severity, message=r.message, reason=reason, target=target
            )
        )
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

CLASSIC_SYSTEM_CONDITION_TYPES = frozenset({"Ready", "Synced", "Healthy"})
"""Classic render's list (v2.2): it predates ``Responsive``, and ``UpToDate``, which Crossplane made a
system condition in v2.3 (crossplane/crossplane PR #7294, April 2026, not backported), so v2.2.4
applies a function's ``UpToDate`` condition to the XR like any other."""


_CONDITION_STRINGS = ("type", "status", "reason", "message")
_INT64 = 2**63


def go_conditions(conditions: object) -> list[dict[str, object]] | None:
    """``status.conditions`` after Go's round trip through crossplane-runtime's ``Condition``; None if Go fails.

    Crossplane sets conditions by decoding ``status`` into a typed
    ``ConditionedStatus`` and encoding it back, so what a function wrote comes
    out as Go's struct has it: ``type``, ``status`` and ``reason`` always
    present (``""`` when missing), ``message`` and ``observedGeneration`` only
    when set, ``lastTransitionTime`` in UTC to the second (``null`` when
    missing), any other key dropped. Keys match case-insensitively, as Go's
    decoder does. A value of the wrong type, or a time that is not RFC 3339,
    fails the decode: Crossplane then leaves the conditions as they were and
    sets none (the caller's None case).
    """
    if conditions is None:
        return []
    if not isinstance(conditions, list):
        return None
    out: list[dict[str, object]] = []
    for raw in conditions:
        if raw is None:
            out.append({"type": "", "status": "", "lastTransitionTime": None, "reason": ""})
            continue
        if not isinstance(raw, Mapping):
            return None
        fields: dict[str, object] = {}
        for key in sorted(raw, key=str):
            for name in (*_CONDITION_STRINGS, "lastTransitionTime", "observedGeneration"):
                if str(key).lower() == name.lower():
                    fields[name] = raw[key]
        cond: dict[str, object] = {}
        for name in _CONDITION_STRINGS:
            value = fields.get(name)
            if value is not None and not isinstance(value, str):
                return None
            cond[name] = value or ""
        if not cond["message"]:
            del cond["message"]
        when = fields.get("lastTransitionTime")
        if when is not None and not isinstance(when, str):
            return None
        try:
            cond["lastTransitionTime"] = (
                None if when is None else gotime.format_rfc3339(gotime.parse_rfc3339(when))
            )
        except errors.GoError:
            return None
        generation = fields.get("observedGeneration")
        if generation is not None:
            if (
                isinstance(generation, bool)
                or not isinstance(generation, int)
                or not -_INT64 <= generation < _INT64
            ):
                return None
            if generation:
                cond["observedGeneration"] = generation
        out.append(cond)
    return out


def set_conditions(
    existing: list[dict[str, object]], *conditions: dict[str, object]
) -> list[dict[str, object]]:
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
