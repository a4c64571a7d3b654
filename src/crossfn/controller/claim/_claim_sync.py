"""Binding a claim to its XR and keeping the two in step (upstream controllers-2.3–controllers-2.5).

Crossplane's default (server-side apply) claim syncer, in its order:

1. **Name the XR**: the claim's ``spec.resourceRef.name`` (so a
   pre-provisioned XR is adopted), else ``<claim>-<5 random chars>``, drawn as
   Kubernetes' SimpleNameGenerator draws them and checked free with a GET, up
   to 10 tries.
2. **Update the claim first** (``spec.resourceRef``, and what it learns from
   the XR: external name, Composition and revision refs), so an XR is never
   created that no claim points at.
3. **Server-side apply the XR** as ``apiextensions.crossplane.io/claim``,
   forcing ownership: the claim's spec minus Crossplane's machinery, its
   labels and annotations minus Kubernetes' reserved ones, the labels
   ``crossplane.io/claim-name`` and ``crossplane.io/claim-namespace``, and
   ``spec.claimRef``. Because this manager owns exactly what it applied, a
   field or label removed from the claim disappears from the XR.
4. **Copy the XR's status to the claim**, less the XR's own conditions,
   ``connectionDetails`` and ``claimConditionTypes`` (the claim keeps its own);
   the reconciler writes it with the claim's conditions.

The pure parts (what to apply, what the claim learns) are functions here;
:func:`sync` does the I/O. An XR adopted from another field manager first has
its managed fields reset (``upgrade_managed_fields``), as Crossplane migrates
client-side-applied XRs, so the claim's apply can own and later remove fields.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api

__all__ = [
    "FIELD_MANAGER",
    "LABEL_CLAIM_NAME",
    "LABEL_CLAIM_NAMESPACE",
    "claim_status",
    "composite_patch",
    "generate_name",
    "keep_status",
    "learn_from_composite",
    "sync",
    "upgrade_managed_fields",
]

FIELD_MANAGER = "apiextensions.crossplane.io/claim"
LABEL_CLAIM_NAME = "crossplane.io/claim-name"
LABEL_CLAIM_NAMESPACE = "crossplane.io/claim-namespace"
ANNOTATION_EXTERNAL_NAME = "crossplane.io/external-name"
BEFORE_FIRST_APPLY = "before-first-apply"

NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""Kubernetes' SimpleNameGenerator alphabet: no vowels, so no words, and no look-alike 0/1/3."""
NAME_MAX_BASE = 58
NAME_TRIES = 10

CLAIM_ONLY = ("compositeDeletePolicy", "resourceRef", "writeConnectionSecretToRef")
XR_MACHINERY = ("resourceRefs", "claimRef", "writeConnectionSecretToRef")
PROPAGATED_SELECTION = (
    "compositionRef",
    "compositionSelector",
    "compositionUpdatePolicy",
    "compositionRevisionSelector",
)
STATUS_NOT_PROPAGATED = ("conditions", "connectionDetails", "claimConditionTypes")


def reference(obj: Mapping[str, Any], *, namespace: bool) -> dict[str, str]:
    """``{apiVersion, kind, name}`` of ``obj`` (and its namespace when asked)."""
    meta = obj.get("metadata") or {}
    ref = {"apiVersion": str(obj.get("apiVersion") or ""), "kind": str(obj.get("kind") or "")}
    if namespace:
        ref["namespace"] = str(meta.get("namespace") or "")
    ref["name"] = str(meta.get("name") or "")
    return ref


def _reserved(key: str) -> bool:
    """Kubernetes' own keys (``*kubernetes.io/…``, ``*k8s.io/…``) stay on the claim (``withoutReservedK8sEntries``)."""
    prefix = key.split("/", 1)[0]
    return prefix.endswith("kubernetes.io") or prefix.endswith("k8s.io")


def _filtered(entries: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k): str(v) for k, v in (entries or {}).items() if not _reserved(str(k))}


def composite_patch(
    claim: Mapping[str, Any],
    existing: Mapping[str, Any] | None,
    *,
    api_version: str,
    kind: str,
    name: str,
    enforced: bool,
) -> dict[str, Any]:
    """What the claim applies to its XR (upstream controllers-2.4
    steps 1–4): a fresh object, never the XR read back."""
    meta = claim.get("metadata") or {}
    labels = _filtered(meta.get("labels"))
    labels[LABEL_CLAIM_NAME] = str(meta.get("name") or "")
    labels[LABEL_CLAIM_NAMESPACE] = str(meta.get("namespace") or "")
    out_meta: dict[str, Any] = {"name": name, "labels": labels}
    annotations = _filtered(meta.get("annotations"))
    external = ((existing or {}).get("metadata") or {}).get("annotations", {}).get(ANNOTATION_EXTERNAL_NAME)
    if external:
        annotations[ANNOTATION_EXTERNAL_NAME] = str(external)
    if annotations:
        out_meta["annotations"] = annotations
    claim_spec = claim.get("spec") or {}
    stripped = {*CLAIM_ONLY, *XR_MACHINERY, "compositionRevisionRef"} - set(PROPAGATED_SELECTION)
    if enforced:
        stripped.add("compositionRef")
    if ((existing or {}).get("spec") or {}).get("compositionUpdatePolicy") == "Manual":
        stripped.discard("compositionRevisionRef")
    spec = {k: copy.deepcopy(v) for k, v in claim_spec.items() if k not in stripped}
    spec["claimRef"] = reference(claim, namespace=True)
    return {"apiVersion": api_version, "kind": kind, "metadata": out_meta, "spec": spec}


def learn_from_composite(claim: dict[str, Any], xr: Mapping[str, Any], *, enforced: bool) -> None:
    """upstream controllers-2.4 step 5: the claim's
    ``resourceRef`` and what it takes from the XR (in place)."""
    spec = claim.setdefault("spec", {})
    spec["resourceRef"] = reference(xr, namespace=False)
    external = ((xr.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_EXTERNAL_NAME)
    if external:
        claim.setdefault("metadata", {}).setdefault("annotations", {})[ANNOTATION_EXTERNAL_NAME] = external
    xr_spec = xr.get("spec") or {}
    if xr_spec.get("compositionRef") and (enforced or not spec.get("compositionRef")):
        spec["compositionRef"] = copy.deepcopy(xr_spec["compositionRef"])
    if xr_spec.get("compositionRevisionSelector") and not spec.get("compositionRevisionSelector"):
        spec["compositionRevisionSelector"] = copy.deepcopy(xr_spec["compositionRevisionSelector"])
    if xr_spec.get("compositionUpdatePolicy") == "Automatic" and xr_spec.get("compositionRevisionRef"):
        spec["compositionRevisionRef"] = copy.deepcopy(xr_spec["compositionRevisionRef"])


def claim_status(claim: Mapping[str, Any], xr: Mapping[str, Any]) -> dict[str, Any]:
    """upstream controllers-2.4 step 7: the XR's status, keeping the claim's own conditions and
    ``lastPublishedTime``."""
    xr_status = xr.get("status")
    own = claim.get("status") or {}
    if xr_status is None:
        return copy.deepcopy(dict(own))
    if not isinstance(xr_status, Mapping):
        raise errors.CrossfnError("composite resource status was not an object")
    out = {k: copy.deepcopy(v) for k, v in xr_status.items() if k not in STATUS_NOT_PROPAGATED}
    if own.get("conditions"):
        out["conditions"] = copy.deepcopy(own["conditions"])
    published = (own.get("connectionDetails") or {}).get("lastPublishedTime")
    if published:
        out["connectionDetails"] = {"lastPublishedTime": published}
    return out


async def generate_name(api: _api.Api, api_version: str, kind: str, base: str, rng: random.Random) -> str:
    """``<base>-xxxxx``, free at the time of asking
    (upstream controllers-2.3): up to 10 tries, each checked with a GET."""
    prefix = f"{base}-"[:NAME_MAX_BASE]
    for _ in range(NAME_TRIES):
        candidate = prefix + "".join(rng.choice(NAME_ALPHABET) for _ in range(5))
        if await api.get(api_version, kind, candidate) is None:
            return candidate
    raise errors.CrossfnError(
        "cannot generate a name for composite resource: cannot generate a name for a resource"
    )


async def upgrade_managed_fields(api: _api.Api, xr: Mapping[str, Any]) -> None:
    """Hand an XR other managers wrote to the claim's server-side apply (``internal/ssa/managed_fields.go``).

    No claim manager yet: reset ``managedFields`` (JSON patch with a
    resourceVersion precondition), so the first apply owns what it sets.
    The claim manager next to ``before-first-apply``: drop that entry.
    """
    fields = [f for f in (xr.get("metadata") or {}).get("managedFields") or () if isinstance(f, Mapping)]
    managers = [str(f.get("manager") or "") for f in fields]
    meta = xr.get("metadata") or {}
    version = str(meta.get("resourceVersion") or "")
    ops: list[dict[str, Any]]
    if FIELD_MANAGER not in managers:
        ops = [{"op": "replace", "path": "/metadata/managedFields", "value": [{}]}]
    elif BEFORE_FIRST_APPLY in managers:
        ops = [{"op": "remove", "path": f"/metadata/managedFields/{managers.index(BEFORE_FIRST_APPLY)}"}]
    else:
        return
    patch = [{"op": "test", "path": "/metadata/resourceVersion", "value": version}, *ops]
    await api.patch(
        str(xr.get("apiVersion") or ""), str(xr.get("kind") or ""), str(meta.get("name") or ""), "",
        patch, patch_type="json",
    )  # fmt: skip


async def sync(
    api: _api.Api,
    claim: dict[str, Any],
    existing: Mapping[str, Any] | None,
    *,
    api_version: str,
    kind: str,
    enforced: bool,
    rng: random.Random,
) -> dict[str, Any]:
    """Bind and propagate (module docstring): ``claim`` is updated in place (its status in memory); return the XR.

    Errors carry Crossplane's texts (``cannot update claim``, ``cannot apply
    composite resource``); a Conflict is raised as is.
    """
    ref_name = ((claim.get("spec") or {}).get("resourceRef") or {}).get("name")
    if existing is not None:
        name = str(existing["metadata"]["name"])
    elif ref_name:
        name = str(ref_name)
    else:
        name = await generate_name(api, api_version, kind, str(claim["metadata"]["name"]), rng)
    patch = composite_patch(claim, existing, api_version=api_version, kind=kind, name=name, enforced=enforced)
    before = copy.deepcopy(claim)
    learn_from_composite(claim, existing or patch, enforced=enforced)
    if claim != before:
        try:
            keep_status(claim, await api.update(claim))
        except _api.Conflict:
            raise
        except _api.ApiError as exc:
            raise errors.CrossfnError(f"cannot update claim: {exc}") from exc
    try:
        xr = await api.apply(patch, field_manager=FIELD_MANAGER, force=True)
    except _api.Conflict:
        raise
    except _api.ApiError as exc:
        raise errors.CrossfnError(f"cannot apply composite resource: {exc}") from exc
    if not isinstance(claim.get("spec"), Mapping):
        raise errors.CrossfnError("claim spec was not an object")
    claim["status"] = claim_status(claim, xr)
    return xr


def keep_status(claim: dict[str, Any], updated: Mapping[str, Any]) -> None:
    """Take the API server's copy of the claim in place, keeping the status this reconcile is building.

    In place, so every holder of the claim (the reconciler's error path too)
    writes its status with the latest resourceVersion.
    """
    status = claim.get("status") or {}
    claim.clear()
    claim.update(copy.deepcopy(dict(updated)))
    claim["status"] = status
