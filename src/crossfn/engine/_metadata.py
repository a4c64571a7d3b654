"""Metadata Crossplane stamps on every composed resource (upstream core-2.10 step 5,
upstream core-3.5 step 5).

The label ``crossplane.io/composite`` (the *root* XR's name, so nested XRs
point at the top), the annotation ``crossplane.io/composition-resource-name``
(how the next reconcile finds it again), claim labels for legacy XRs, the
XR's namespace for namespaced XRs, and a controller owner reference to the XR.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from crossfn import errors

__all__ = [
    "ANNOTATION_RESOURCE_NAME",
    "FIELD_OWNER_COMPOSITE",
    "LABEL_CLAIM_NAME",
    "LABEL_CLAIM_NAMESPACE",
    "LABEL_COMPOSITE",
    "composed_field_owner",
    "composite_prefix",
    "controller_reference",
    "render_metadata",
    "shape_problem",
]

LABEL_COMPOSITE = "crossplane.io/composite"
LABEL_CLAIM_NAME = "crossplane.io/claim-name"
LABEL_CLAIM_NAMESPACE = "crossplane.io/claim-namespace"
ANNOTATION_RESOURCE_NAME = "crossplane.io/composition-resource-name"
FIELD_OWNER_COMPOSITE = "apiextensions.crossplane.io/composite"
"""The server-side apply field owner of the XR's refs and status (upstream core-2.12, core-2.14)."""


def composed_field_owner(xr: Mapping[str, Any]) -> str:
    """The field owner for applying the XR's composed resources (upstream core-2.13).

    ``apiextensions.crossplane.io/composed/`` plus the hex SHA-256 of the XR's
    name and its GroupKind (``Kind.group``, or ``Kind`` for the core group), so
    two XRs never fight over a field.
    """
    group = str(xr.get("apiVersion") or "").rpartition("/")[0]
    kind = str(xr.get("kind") or "")
    group_kind = f"{kind}.{group}" if group else kind
    name = str(_meta(xr).get("name") or "")
    return "apiextensions.crossplane.io/composed/" + hashlib.sha256((name + group_kind).encode()).hexdigest()


_STRING_FIELDS = ("name", "namespace", "generateName", "uid")
_MAP_FIELDS = ("labels", "annotations")
_OWNER_FIELDS = (
    *((k, str, "a string") for k in ("apiVersion", "kind", "name", "uid")),
    *((k, bool, "a boolean") for k in ("controller", "blockOwnerDeletion")),
)
"""Go's ``metav1.OwnerReference`` fields: a controller reference written ``controller: "yes"`` does not decode."""


def shape_problem(obj: Mapping[str, Any], *, status: bool = False) -> str | None:
    """What makes ``obj`` unusable as a Kubernetes object, or ``None``.

    Functions and users may send anything a Struct can hold; the engine writes
    into ``metadata`` (and, for the XR, ``status.conditions``), so those must
    have the types Kubernetes gives them. Crossplane would fail to unmarshal.
    """
    meta = obj.get("metadata", {})
    if not isinstance(meta, Mapping):
        return "metadata must be an object"
    for key in _STRING_FIELDS:
        if key in meta and not isinstance(meta[key], str):
            return f"metadata.{key} must be a string"
    for key in _MAP_FIELDS:
        value = meta.get(key)
        if value is not None and not (
            isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values())
        ):
            return f"metadata.{key} must map strings to strings"
    generation = meta.get("generation")
    if generation is not None and not _integral(generation):
        return "metadata.generation must be an integer"
    owners = meta.get("ownerReferences")
    if owners is not None and not (isinstance(owners, list) and all(isinstance(o, Mapping) for o in owners)):
        return "metadata.ownerReferences must be a list of objects"
    for i, ref in enumerate(owners or ()):
        for key, kind, want in _OWNER_FIELDS:
            if ref.get(key) is not None and not isinstance(ref[key], kind):
                return f"metadata.ownerReferences[{i}].{key} must be {want}"
    if not status:
        return None
    st = obj.get("status", {})
    if not isinstance(st, Mapping):
        return "status must be an object"
    conditions = st.get("conditions")
    if conditions is not None and not (
        isinstance(conditions, list) and all(isinstance(c, Mapping) for c in conditions)
    ):
        return "status.conditions must be a list of objects"
    return None


def _integral(value: object) -> bool:
    """Whether Go's ``int64`` decodes ``value``: an integer, or a float with no fraction (JSON has one number type)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return isinstance(value, int) and -(2**63) <= value < 2**63


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def composite_prefix(xr: Mapping[str, Any], *, require_label: bool) -> str:
    """The XR's ``crossplane.io/composite`` label; classic render falls back to the XR's name."""
    meta = _meta(xr)
    labels = meta.get("labels") or {}
    label = labels.get(LABEL_COMPOSITE)
    if label:
        return str(label)
    if require_label:
        raise errors.InputError(
            f"cannot find top-level composite resource name label {errors.quote(LABEL_COMPOSITE)} "
            "in composite resource metadata"
        )
    return str(meta.get("name") or "")


def render_metadata(
    obj: dict[str, Any],
    xr: Mapping[str, Any],
    name: str,
    *,
    prefix: str,
    claim_ref_labels: bool,
    controller_text: str = "cannot set controller reference",
) -> None:
    """Stamp composed resource ``obj`` (in place) as resource ``name`` of ``xr``.

    ``claim_ref_labels`` lets classic render take claim labels from a legacy
    XR's ``spec.claimRef`` when the XR has no claim labels. ``controller_text``
    prefixes the error when another object controls ``obj`` (classic render
    says ``cannot set composite resource "<xr>" as controller ref of composed resource``).
    """
    xr_meta = _meta(xr)
    meta = obj.setdefault("metadata", {})
    if not meta.get("name") and not meta.get("generateName"):
        meta["generateName"] = prefix + "-"
    if xr_meta.get("namespace"):
        meta["namespace"] = xr_meta["namespace"]
    _own_map(meta, "annotations")[ANNOTATION_RESOURCE_NAME] = name
    labels = _own_map(meta, "labels")
    labels[LABEL_COMPOSITE] = prefix
    xr_labels = xr_meta.get("labels") or {}
    # Both must be non-empty, as Crossplane checks them; an empty one is no claim.
    if xr_labels.get(LABEL_CLAIM_NAME) and xr_labels.get(LABEL_CLAIM_NAMESPACE):
        labels[LABEL_CLAIM_NAME] = xr_labels[LABEL_CLAIM_NAME]
        labels[LABEL_CLAIM_NAMESPACE] = xr_labels[LABEL_CLAIM_NAMESPACE]
    elif claim_ref_labels:
        claim = (xr.get("spec") or {}).get("claimRef") or {}
        if claim.get("name") and claim.get("namespace"):
            labels[LABEL_CLAIM_NAME] = claim["name"]
            labels[LABEL_CLAIM_NAMESPACE] = claim["namespace"]
    _set_controller(meta, xr, controller_text)


def _own_map(meta: dict[str, Any], key: str) -> dict[str, Any]:
    """``meta[key]`` to write into; a null one (what a "common labels" patch from an XR without labels
    leaves) is empty, as Go's ``SetLabels`` treats it."""
    if meta.get(key) is None:
        meta[key] = {}
    value: dict[str, Any] = meta[key]
    return value


def controller_reference(
    owner: Mapping[str, Any], *, api_version: str = "", kind: str = ""
) -> dict[str, Any]:
    """A controller owner reference to ``owner`` (Crossplane's ``meta.AsController(meta.TypedReferenceTo(...))``).

    ``api_version`` and ``kind`` stand in where ``owner`` does not say its own.
    """
    meta = _meta(owner)
    return {
        "apiVersion": str(owner.get("apiVersion") or api_version),
        "kind": str(owner.get("kind") or kind),
        "name": str(meta.get("name") or ""),
        "uid": str(meta.get("uid") or ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _set_controller(meta: dict[str, Any], xr: Mapping[str, Any], text: str) -> None:
    """Make the XR the controller owner; refuse another controller.

    As crossplane-runtime's ``AddOwnerReference``: a ref with the XR's UID is
    replaced where it stands (the order of the list is kept), else the XR's ref
    is appended.
    """
    ref = controller_reference(xr)
    uid = ref["uid"]
    owners = [o for o in meta.get("ownerReferences") or [] if isinstance(o, Mapping)]
    for o in owners:
        if o.get("controller") and str(o.get("uid") or "") != uid:
            raise errors.FunctionOutputError(
                f"{text}: {meta.get('name', '')} is already controlled by "
                f"{o.get('kind', '')} {o.get('name', '')} (UID {o.get('uid', '')})"
            )
    refs = [dict(o) for o in owners]
    for i, o in enumerate(refs):
        if str(o.get("uid") or "") == uid:
            refs[i] = ref
            break
    else:
        refs.append(ref)
    meta["ownerReferences"] = refs
