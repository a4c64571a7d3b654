"""Conditions on the objects the controllers own: build one, set it, read it (§0 of the controllers spec).

Crossplane marks every condition with the object's ``metadata.generation``
(``observedGeneration``) and sets it by type with crossplane-runtime's rule: an
equal condition (ignoring its time) keeps the old entry and so its
``lastTransitionTime``, a changed one replaces it in place, a new type is
appended. The rule itself lives once, in :func:`crossfn.engine._events.set_conditions`;
this module adapts it to whole objects.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from crossfn.engine import _events

__all__ = ["condition", "get_condition", "set_condition", "timestamp"]


def timestamp(now: datetime.datetime) -> str:
    """A ``metav1.Time``: RFC 3339 in UTC, whole seconds."""
    return now.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def condition(
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
    generation = int((obj.get("metadata") or {}).get("generation") or 0)
    if generation:
        out["observedGeneration"] = generation
    return out


def set_condition(obj: dict[str, Any], new: dict[str, Any]) -> bool:
    """Set ``new`` on ``obj``'s ``status.conditions``; return whether anything changed."""
    status = obj.setdefault("status", {})
    old = list(status.get("conditions") or [])
    merged = _events.set_conditions(old, new)
    status["conditions"] = merged
    return merged != old


def get_condition(obj: Mapping[str, Any] | None, type_: str) -> dict[str, Any]:
    """The condition of that type, or ``{type, status: Unknown}`` when the object has none."""
    for c in ((obj or {}).get("status") or {}).get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == type_:
            return dict(c)
    return {"type": type_, "status": "Unknown"}
