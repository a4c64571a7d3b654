"""Readiness checks on an observed composed resource (upstream pt-7.4).

With no checks, a resource is ready when its ``Ready`` condition is ``True``.
Otherwise every check must pass, in order; the first failing check decides and
the first error is returned to the caller, which reports it as a Warning and
treats the resource as not ready. Each check validates itself again first, as
Go does.

Conditions are read as Go's ``GetCondition`` does: if ``status`` does not decode
as ``{conditions: [...]}`` the condition is empty (type and status ``""``); if no
condition has the type asked for, its status is ``Unknown``.
"""

from __future__ import annotations

import re
from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.functions.patch_and_transform import release, validation
from crossfn.sdk import fieldpath

__all__ = ["condition_status", "is_ready"]

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
_CONDITION_STRINGS = ("type", "status", "reason", "message")

# upstream pt-9 item 7: Go dereferences a nil matchCondition and panics. We use the CRD default instead.
_DEFAULT_MATCH_CONDITION = ptinput.MatchCondition(type="Ready", status="True")


def _conditions(obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The decoded ``status.conditions``, or ``None`` where Go's decode into ConditionedStatus fails."""
    status = obj.get("status")
    if not isinstance(status, dict):
        return None
    conditions = status.get("conditions")
    if conditions is None:
        return []
    if not isinstance(conditions, list):
        return None
    for c in conditions:
        if c is None:
            continue
        if not isinstance(c, dict) or not _condition_decodes(c):
            return None
    return [c for c in conditions if c is not None]


def _condition_decodes(c: dict[str, Any]) -> bool:
    for key in _CONDITION_STRINGS:
        if c.get(key) is not None and not isinstance(c[key], str):
            return False
    ltt = c.get("lastTransitionTime")
    if ltt is not None and not (isinstance(ltt, str) and _RFC3339.fullmatch(ltt)):
        return False
    gen = c.get("observedGeneration")
    return gen is None or (
        not isinstance(gen, bool) and isinstance(gen, int | float) and float(gen).is_integer()
    )


def condition_status(obj: dict[str, Any], condition_type: str) -> tuple[str, str]:
    """Return ``(type, status)`` of the named condition as Go's ``GetCondition`` sees it."""
    conditions = _conditions(obj)
    if conditions is None:
        return "", ""
    for c in conditions:
        if c.get("type", "") == condition_type:
            return condition_type, c.get("status", "")
    return condition_type, "Unknown"


def is_ready(
    obj: dict[str, Any], checks: tuple[ptinput.ReadinessCheck, ...], r: release.Release = release.CURRENT
) -> bool:
    """Whether the observed resource is ready; raises naming the failing check's index."""
    if not checks:
        return condition_status(obj, "Ready")[1] == "True"
    for i, check in enumerate(checks):
        try:
            ready = _run(obj, check, r.nil_is_missing)
        except errors.CrossfnError as exc:
            raise errors.CrossfnError(f"cannot run readiness check at index {i}: {exc}") from exc
        if not ready:
            return False
    return True


def _run(obj: dict[str, Any], c: ptinput.ReadinessCheck, nil_is_missing: bool) -> bool:
    if err := validation.validate_readiness_check(c):
        raise errors.CrossfnError(f"invalid: {err}")
    if c.type == "None":
        return True
    if c.type == "MatchCondition":
        want = c.match_condition or _DEFAULT_MATCH_CONDITION
        return condition_status(obj, want.type)[1] == want.status
    path = c.field_path or ""
    try:
        if c.type == "NonEmpty":
            fieldpath.get_value(obj, path, nil_is_missing=nil_is_missing)
            return True
        if c.type == "MatchString":
            return fieldpath.get_string(obj, path, nil_is_missing=nil_is_missing) == c.match_string
        if c.type == "MatchInteger":
            return fieldpath.get_integer(obj, path, nil_is_missing=nil_is_missing) == c.match_integer
        if c.type == "MatchTrue":
            return fieldpath.get_bool(obj, path, nil_is_missing=nil_is_missing) is True
        return fieldpath.get_bool(obj, path, nil_is_missing=nil_is_missing) is False
    except errors.FieldNotFoundError:
        return False
