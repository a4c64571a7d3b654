"""A legacy XR's connection Secret: the XR reconciler's step 13 (upstream controllers-4).

:func:`publish` writes the Secret at ``spec.writeConnectionSecretToRef``
(defaulted by the XR reconciler's step 10), holding the pipeline's final
``desired.composite.connection_details`` filtered by the XRD's
``connectionSecretKeys``. Publishing is *additive*, as Crossplane's
JSON-merge-patching applicator: keys the pipeline stops returning stay. (A
claim's copy of this Secret is the claim reconciler's,
:mod:`crossfn.controller.claim._connection`.)

The Secret is of type ``connection.crossplane.io/v1alpha1`` and controlled by
the XR, so Kubernetes' garbage collector removes it with the XR; it is never
deleted here. A Secret that belongs to someone else is refused
(:func:`crossfn.engine._connection.check_controllable`): a user's mistake
reported on the XR, never a crash. A write that would change nothing is
skipped, and the caller learns whether anything was written (it then stamps
``status.connectionDetails.lastPublishedTime`` and records an event).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.kube import _api
from crossfn.engine import _connection

__all__ = ["publish"]


async def publish(
    api: _api.Api, xr: Mapping[str, Any], details: Mapping[str, bytes], keys: Iterable[str] = ()
) -> bool:
    """Write the XR's connection Secret (upstream controllers-4); return whether anything was written.

    Raises ``cannot apply connection secret: …`` (the XR reconciler adds
    ``cannot publish connection details``). An XR without
    ``spec.writeConnectionSecretToRef`` publishes nothing.
    """
    desired = engine.connection_secret(xr, details, keys)
    if desired is None:
        return False
    meta = desired["metadata"]
    uid = str((xr.get("metadata") or {}).get("uid") or "")
    try:
        existing = await api.get("v1", "Secret", meta["name"], meta["namespace"])
        if existing is None:
            await api.create(desired)
            return True
        _connection.check_controllable(existing, uid)
        current = dict(existing.get("data") or {})
        owners = (existing.get("metadata") or {}).get("ownerReferences") or []
        # Additive: a merge patch adds and updates keys and never removes one; it replaces the owners.
        if {**current, **desired["data"]} == current and owners == meta["ownerReferences"]:
            return False
        patch = {"metadata": {"ownerReferences": meta["ownerReferences"]}, "data": desired["data"]}
        await api.patch("v1", "Secret", meta["name"], meta["namespace"], patch)
        return True
    except _api.Conflict:
        raise
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(f"cannot apply connection secret: {exc}") from exc
