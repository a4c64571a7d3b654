"""A claim's connection Secret: a copy of its legacy XR's (upstream controllers-2.8).

:func:`propagate` copies the XR's Secret (which the XR reconciler publishes,
:mod:`crossfn.controller.composite._connection`) into the claim's namespace
under the claim's ``spec.writeConnectionSecretToRef.name``: an exact copy of
its data (a full replace, so stale keys go), of type
``connection.crossplane.io/v1alpha1``, controlled by the claim so that
Kubernetes' garbage collector removes it with the claim; it is never deleted
here. A claim copies only a Secret its XR controls, and never writes a Secret
that belongs to someone else (:func:`crossfn.engine._connection.check_controllable`).
A write that would change nothing is skipped, and the caller learns whether
anything was written.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.kube import _api
from crossfn.engine import _connection, _metadata

__all__ = ["propagate"]


async def propagate(api: _api.Api, claim: Mapping[str, Any], xr: Mapping[str, Any]) -> bool:
    """Copy the XR's connection Secret to the claim's
    (upstream controllers-2.8); return whether anything was written.

    Only when both name a Secret (the caller checks that the XR is Ready).
    Raises with Crossplane's texts; the claim reconciler adds ``cannot
    propagate connection details from composite resource``.
    """
    source = engine.secret_ref(xr)
    to = ((claim.get("spec") or {}).get("writeConnectionSecretToRef") or {}).get("name")
    if source is None or not to:
        return False
    xr_uid = str((xr.get("metadata") or {}).get("uid") or "")
    try:
        found = await api.get("v1", "Secret", source[1], source[0])
    except _api.ApiError as exc:
        raise errors.CrossfnError(f"cannot get composite resource's connection secret: {exc}") from exc
    if found is None:
        raise errors.CrossfnError(
            f"cannot get composite resource's connection secret: secret {errors.quote(f'{source[0]}/{source[1]}')} not found"
        )
    if _connection.controller_uid(found) != xr_uid:
        # A claim must not exfiltrate a Secret its XR does not own.
        raise errors.CrossfnError("cannot establish control of existing connection secret")
    return await _write_claim_secret(api, claim, str(to), dict(found.get("data") or {}))


async def _write_claim_secret(
    api: _api.Api, claim: Mapping[str, Any], name: str, data: dict[str, str]
) -> bool:
    """Create or fully replace the claim's Secret with ``data``; skip when the data is already so."""
    meta = claim.get("metadata") or {}
    namespace, uid = str(meta.get("namespace") or ""), str(meta.get("uid") or "")
    owner = _metadata.controller_reference(claim)
    desired: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace, "ownerReferences": [owner]},
        "type": _connection.CONNECTION_SECRET_TYPE,
        "data": data,
    }
    try:
        existing = await api.get("v1", "Secret", name, namespace)
        if existing is None:
            await api.create(desired)
            return True
        _connection.check_controllable(existing, uid)
        if dict(existing.get("data") or {}) == data:
            return False
        replaced = copy.deepcopy(existing)
        replaced["metadata"]["ownerReferences"] = [owner]
        replaced["data"] = data
        await api.update(replaced)
        return True
    except _api.Conflict:
        raise
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(f"cannot create or update connection secret: {exc}") from exc
