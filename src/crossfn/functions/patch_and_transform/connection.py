"""Connection details: extraction from composed resources and the v2 XR connection Secret.

Extraction (upstream pt-7.3) turns a template's
``connectionDetails`` into bytes, from the observed resource and its observed
connection details. A v2 XR (one with ``spec.crossplane``) has no native
connection details, so the function also composes a Secret holding them (upstream pt-7.6),
named by the XR's ``spec.writeConnectionSecretToRef``, the input's
``writeConnectionSecretToRef`` (optionally patched from the XR), or a default.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.functions.patch_and_transform import patches, release, validation
from crossfn.gocompat import json as gojson
from crossfn.gocompat import values
from crossfn.sdk import fieldpath

__all__ = ["connection_secret", "extract", "secret_ref", "supports_connection_details", "xr_meta"]

SECRET_TYPE = "connection.crossplane.io/v1alpha1"


def extract(
    observed: dict[str, Any],
    observed_details: Mapping[str, bytes],
    details: tuple[ptinput.ConnectionDetail, ...],
    r: release.Release = release.CURRENT,
) -> dict[str, bytes]:
    """Extract one template's connection details; later entries of the same name win."""
    out: dict[str, bytes] = {}
    for d in details:
        if err := validation.validate_connection_detail(d, r):
            raise errors.CrossfnError(f"invalid: {err}")
        if d.type == "FromValue":
            out[d.name] = values.to_bytes(d.value or "")
        elif d.type == "FromConnectionSecretKey":
            key = d.from_connection_secret_key or ""
            if key in observed_details:
                out[d.name] = observed_details[key]
        else:
            try:
                value = fieldpath.get_value(observed, d.from_field_path or "")
            except errors.CrossfnError:
                continue  # Not there yet, or not readable: Go skips the entry silently.
            out[d.name] = values.to_bytes(value if isinstance(value, str) else gojson.marshal(value))
    return out


def xr_meta(obj: dict[str, Any], key: str) -> str:
    """``metadata.<key>`` as Go's unstructured getters read it: ``""`` unless it is a string."""
    meta = obj.get("metadata")
    value = meta.get(key) if isinstance(meta, dict) else None
    return value if isinstance(value, str) else ""


def supports_connection_details(oxr: dict[str, Any]) -> bool:
    """Whether the XR is a v1 (legacy) XR with native connection details: it has no ``spec.crossplane``."""
    spec = oxr.get("spec")
    return not (isinstance(spec, dict) and "crossplane" in spec)


def _ref_from_xr(oxr: dict[str, Any]) -> tuple[str, str] | None:
    spec = oxr.get("spec")
    ref = spec.get("writeConnectionSecretToRef") if isinstance(spec, dict) else None
    if not isinstance(ref, dict):
        return None
    name, namespace = ref.get("name", ""), ref.get("namespace", "")
    if not isinstance(name, str) or not isinstance(namespace, str):
        return None
    return name, namespace


def secret_ref(oxr: dict[str, Any], ref: ptinput.ConnectionSecretRef | None) -> tuple[str, str]:
    """Return ``(name, namespace)`` of the connection Secret, by the precedence of upstream pt-7.6."""
    from_xr = _ref_from_xr(oxr)
    if from_xr is not None:
        return from_xr
    if ref is not None and (ref.name or ref.namespace):
        name, namespace = ref.name, ref.namespace
    else:
        name, namespace = f"{xr_meta(oxr, 'name')}-connection", xr_meta(oxr, "namespace")
    if ref is None or not ref.patches:
        return name, namespace
    try:
        return _patch_ref(oxr, ref.patches, name, namespace)
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(f"cannot apply connection secret patches: {exc}") from exc


def _patch_ref(
    oxr: dict[str, Any], ps: tuple[ptinput.Patch, ...], name: str, namespace: str
) -> tuple[str, str]:
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "SecretReference",
        "name": name,
        "namespace": namespace,
    }
    for i, p in enumerate(ps):
        if p.type not in ("FromCompositeFieldPath", "CombineFromComposite"):
            raise errors.CrossfnError(f"unsupported patch type {p.type} at index {i}")
        try:
            if p.type == "FromCompositeFieldPath":
                patches.apply_field(p, oxr, obj)
            else:
                patches.apply_combine(p, oxr, obj)
        except errors.CrossfnError as exc:
            # upstream pt-5.4: an Optional field patch swallows every error; a combine patch none.
            if p.type == "FromCompositeFieldPath" and p.policy_from != "Required":
                continue
            raise errors.CrossfnError(f"cannot apply patch type {p.type} at index {i}: {exc}") from exc
    new_name, new_namespace = obj.get("name"), obj.get("namespace")
    return (
        new_name if isinstance(new_name, str) else name,
        new_namespace if isinstance(new_namespace, str) else namespace,
    )


def connection_secret(name: str, namespace: str, details: Mapping[str, bytes]) -> dict[str, Any]:
    """The Secret resource holding a v2 XR's connection details; empty name or namespace is omitted."""
    meta: dict[str, Any] = {}
    if name:
        meta["name"] = name
    if namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": meta,
        "data": {k: base64.b64encode(v).decode() for k, v in details.items()},
        "type": SECRET_TYPE,
    }
