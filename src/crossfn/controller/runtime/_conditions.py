"""Conditions on the objects the controllers own: build one, set it, read it (upstream controllers-0).

Crossplane marks every condition with the object's ``metadata.generation``
(``observedGeneration``) and sets it by type with crossplane-runtime's rule: an
equal condition (ignoring its time) keeps the old entry and so its
``lastTransitionTime``, a changed one replaces it in place, a new type is
appended. The rule itself lives once, in :func:`crossfn.engine._events.set_conditions`;
building and setting a condition of a whole object live once in
:mod:`crossfn.engine._xr`, which render's default mode uses too. This module
names them for the controllers and reads conditions back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crossfn.engine import _xr

__all__ = ["condition", "get_condition", "set_condition", "timestamp"]


timestamp = _xr.timestamp
"""A ``metav1.Time``: RFC 3339 in UTC, whole seconds."""

condition = _xr.object_condition
"""A condition of ``obj`` marked with its generation (the engine's, shared with render)."""

set_condition = _xr.set_object_condition
"""Set a condition on ``obj``'s ``status.conditions``; whether anything changed (the engine's)."""


def get_condition(obj: Mapping[str, Any] | None, type_: str) -> dict[str, Any]:
    """The condition of that type, or ``{type, status: Unknown}`` when the object has none."""
    for c in ((obj or {}).get("status") or {}).get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == type_:
            return dict(c)
    return {"type": type_, "status": "Unknown"}
