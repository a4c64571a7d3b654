"""Connection Secrets: a legacy XR publishes its details (upstream controllers-4), a claim receives a copy
(upstream controllers-2.8).

Crossplane keeps two Secrets per claimed legacy XR:

* **The XR's Secret** (:func:`publish`), at ``spec.writeConnectionSecretToRef``
  (defaulted by the XR reconciler's step 10), holding the pipeline's final
  ``desired.composite.connection_details`` filtered by the XRD's
  ``connectionSecretKeys``. Publishing is *additive*, as Crossplane's
  JSON-merge-patching applicator: keys the pipeline stops returning stay.
* **The claim's Secret** (:func:`propagate`), in the claim's namespace under
  the claim's ``spec.writeConnectionSecretToRef.name``: an exact copy of the
  XR Secret's data (a full replace, so stale keys go), controlled by the claim.

Both are of type ``connection.crossplane.io/v1alpha1`` and controlled by their
owner, so Kubernetes' garbage collector removes them with it; neither is ever
deleted here. Both refuse to touch a Secret that belongs to someone else
(Crossplane's ``ConnectionSecretMustBeControllableBy``): a Secret controlled by
another UID, or an uncontrolled Secret of another type. That is a user's
mistake reported on the owner, never a crash. A write that would change
nothing is skipped, and the caller learns whether anything was written (it
then stamps ``status.connectionDetails.lastPublishedTime`` and records an
event).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.kube import _api
from crossfn.engine import _connection, _metadata

__all__ = ["SECRET_TYPE", "propagate", "publish"]

SECRET_TYPE = _connection.CONNECTION_SECRET_TYPE


def _controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return ref
    return None


def check_controllable(secret: Mapping[str, Any], uid: str) -> None:
    """Refuse a Secret ``uid`` may not write: controlled by another, or uncontrolled and not a connection Secret."""
    owner = _controller_of(secret)
    if owner is None:
        kind = str(secret.get("type") or "")
        if kind != SECRET_TYPE:
            raise errors.CrossfnError(f"refusing to modify uncontrolled secret of type {errors.quote(kind)}")
        return
    if str(owner.get("uid") or "") != uid:
        raise errors.CrossfnError(f"existing secret is not controlled by UID {errors.quote(uid)}")


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
        check_controllable(existing, uid)
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
    owner = _controller_of(found)
    if owner is None or str(owner.get("uid") or "") != xr_uid:
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
        "type": SECRET_TYPE,
        "data": data,
    }
    try:
        existing = await api.get("v1", "Secret", name, namespace)
        if existing is None:
            await api.create(desired)
            return True
        check_controllable(existing, uid)
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
