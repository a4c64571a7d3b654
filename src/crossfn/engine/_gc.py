"""Which observed composed resources to delete because no step desires them any more (upstream core-2.11).

The engine decides; the caller updates and deletes. Crossplane first strips
the composite and claim labels (so nothing re-adopts the object while it is
being deleted), then deletes with foreground propagation and a UID
precondition. We return the objects with those labels already removed.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.engine import _metadata

__all__ = ["controller_ref", "garbage"]

_STRIP = (_metadata.LABEL_COMPOSITE, _metadata.LABEL_CLAIM_NAME, _metadata.LABEL_CLAIM_NAMESPACE)


def controller_ref(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``obj``'s controller owner reference, or ``None`` when it has no controller."""
    meta = obj.get("metadata") or {}
    for o in meta.get("ownerReferences") or []:
        if isinstance(o, Mapping) and o.get("controller"):
            return o
    return None


def garbage(
    observed: Mapping[str, Mapping[str, Any]],
    desired: Mapping[str, object],
    xr: Mapping[str, Any],
    *,
    delete_orphans: bool,
) -> list[dict[str, Any]]:
    """Observed resources no longer desired, labels stripped, in observed order.

    Without ``delete_orphans`` a resource with no controller reference is kept
    (HEAD, GHSA-77cv-mrm6-fr3c). A resource controlled by someone else is an
    error: the observer should never have let it in.
    """
    xr_meta = xr.get("metadata") or {}
    xr_uid = str(xr_meta.get("uid") or "")
    out = []
    for name, obj in observed.items():
        if name in desired:
            continue
        ref = controller_ref(obj)
        if ref is None and not delete_orphans:
            continue
        if ref is not None and str(ref.get("uid") or "") != xr_uid:
            raise errors.CrossfnError(
                "cannot garbage collect composed resources that are no longer desired: "
                f"refusing to delete composed resource {errors.quote(name)} that is controlled by "
                f"{ref.get('kind', '')} {errors.quote(str(ref.get('name') or ''))}"
            )
        stripped = copy.deepcopy(dict(obj))
        labels = (stripped.get("metadata") or {}).get("labels")
        if isinstance(labels, dict):
            for key in _STRIP:
                labels.pop(key, None)
        out.append(stripped)
    return out
