"""Kubernetes' own API types inside crossfn's CRDs, rendered as controller-gen renders them.

Crossplane's DeploymentRuntimeConfig embeds a Deployment's spec; controller-gen
inlines the Go type (``k8s.io/api/apps/v1.DeploymentSpec``) into the CRD.
crossfn does not redeclare Kubernetes' types: :class:`Definitions` reads them
from a Kubernetes release's JSON Schema definitions (the ``_definitions.json``
of the ``kubernetes-validate`` package, a dev dependency; only
``scripts/generate_crds.py`` reads it) and turns one into the schema
controller-gen would write for the same Go type:

* references are inlined; ``ObjectMeta`` becomes controller-gen's embedded
  metadata (``annotations``, ``finalizers``, ``labels``, ``name``,
  ``namespace``), as Crossplane generates with ``generateEmbeddedObjectMeta``;
* ``type: [T, "null"]`` (the converter's "optional") is ``type: T``;
  ``IntOrString`` and ``Quantity`` are ``anyOf: [integer, string]`` with
  ``x-kubernetes-int-or-string``, a Quantity with its pattern too;
* ``required`` is sorted, as controller-gen sorts it; descriptions and the
  strategic-merge-patch and union extensions are dropped;
* what the JSON Schema conversion loses of the Go markers comes back from two
  small tables: :data:`DEFAULTS` (``+default`` markers) and :data:`ATOMIC`
  (structs that embed an atomic ``LocalObjectReference``, which controller-gen
  marks ``x-kubernetes-map-type: atomic``). A ``map`` list's keys are required in
  its items unless they default to a value (``protocol: TCP``), as controller-gen makes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ATOMIC", "DEFAULTS", "QUANTITY_PATTERN", "Definitions"]

QUANTITY_PATTERN = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
"""``resource.Quantity``'s pattern (``k8s.io/apimachinery/pkg/api/resource``)."""

_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

DEFAULTS: dict[tuple[str, str], Any] = {
    ("io.k8s.api.core.v1.ConfigMapKeySelector", "name"): "",
    ("io.k8s.api.core.v1.SecretKeySelector", "name"): "",
    ("io.k8s.api.core.v1.ConfigMapEnvSource", "name"): "",
    ("io.k8s.api.core.v1.SecretEnvSource", "name"): "",
    ("io.k8s.api.core.v1.LocalObjectReference", "name"): "",
    ("io.k8s.api.core.v1.ConfigMapVolumeSource", "name"): "",
    ("io.k8s.api.core.v1.ConfigMapProjection", "name"): "",
    ("io.k8s.api.core.v1.SecretProjection", "name"): "",
    ("io.k8s.api.core.v1.FileKeySelector", "optional"): False,
    ("io.k8s.api.core.v1.GRPCAction", "service"): "",
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.AzureDiskVolumeSource", "fsType"): "ext4",
    ("io.k8s.api.core.v1.AzureDiskVolumeSource", "readOnly"): False,
    ("io.k8s.api.core.v1.ISCSIVolumeSource", "iscsiInterface"): "default",
    ("io.k8s.api.core.v1.RBDVolumeSource", "keyring"): "/etc/ceph/keyring",
    ("io.k8s.api.core.v1.RBDVolumeSource", "pool"): "rbd",
    ("io.k8s.api.core.v1.RBDVolumeSource", "user"): "admin",
    ("io.k8s.api.core.v1.ScaleIOVolumeSource", "fsType"): "xfs",
    ("io.k8s.api.core.v1.ScaleIOVolumeSource", "storageMode"): "ThinProvisioned",
}
"""``+default`` markers of Kubernetes' Go types that its JSON Schema definitions do not carry."""

ATOMIC: frozenset[str] = frozenset(
    {
        "io.k8s.api.core.v1.ConfigMapEnvSource",
        "io.k8s.api.core.v1.SecretEnvSource",
        "io.k8s.api.core.v1.ConfigMapVolumeSource",
        "io.k8s.api.core.v1.ConfigMapProjection",
        "io.k8s.api.core.v1.SecretProjection",
    }
)
"""Structs embedding ``LocalObjectReference`` (``+structType=atomic``), which controller-gen marks atomic."""

_DROPPED = frozenset(
    {
        "description",
        "x-kubernetes-patch-merge-key",
        "x-kubernetes-patch-strategy",
        "x-kubernetes-unions",
        "x-kubernetes-group-version-kind",
    }
)


class Definitions:
    """Kubernetes' JSON Schema definitions (``{"$defs": {name: schema}}``), rendered per name on demand."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self._defs: Mapping[str, Any] = document.get("$defs") or document.get("definitions") or {}

    def __call__(self, name: str) -> dict[str, Any]:
        """The CRD schema of definition ``name``; ``LookupError`` when the release has no such type."""
        if name not in self._defs:
            raise LookupError(f"no Kubernetes definition {name}")
        return self._render(name)

    def _render(self, name: str) -> dict[str, Any]:
        if name == _OBJECT_META:
            return _embedded_meta()
        if name == _QUANTITY:
            return {**_int_or_string(), "pattern": QUANTITY_PATTERN}
        if name == _INT_OR_STRING:
            return _int_or_string()
        out = self._convert(self._defs[name], name)
        if name in ATOMIC:
            out["x-kubernetes-map-type"] = "atomic"
        return out

    def _convert(self, schema: Mapping[str, Any], owner: str | None) -> dict[str, Any]:
        """One definition or property; ``owner`` names the definition whose properties these are."""
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._render(ref.rsplit("/", 1)[-1])
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _DROPPED:
                continue
            if key == "type":
                out["type"] = next(t for t in value if t != "null") if isinstance(value, list) else value
            elif key == "properties":
                out["properties"] = {prop: self._property(owner, prop, sub) for prop, sub in value.items()}
            elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
                out[key] = self._convert(value, None)
            elif key == "required":
                out["required"] = sorted(value)
            else:
                out[key] = value
        keys = out.get("x-kubernetes-list-map-keys")
        items = out.get("items")
        if keys and isinstance(items, dict):
            props = items.get("properties") or {}
            needed = {k for k in keys if not (props.get(k) or {}).get("default")}
            items["required"] = sorted({*items.get("required", ()), *needed})
        return out

    def _property(self, owner: str | None, prop: str, schema: Mapping[str, Any]) -> dict[str, Any]:
        out = self._convert(schema, None)
        if owner is not None and (owner, prop) in DEFAULTS:
            out["default"] = DEFAULTS[(owner, prop)]
        return out


def _int_or_string() -> dict[str, Any]:
    return {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}


def _embedded_meta() -> dict[str, Any]:
    strings = {"type": "object", "additionalProperties": {"type": "string"}}
    return {
        "type": "object",
        "properties": {
            "annotations": dict(strings),
            "finalizers": {"type": "array", "items": {"type": "string"}},
            "labels": dict(strings),
            "name": {"type": "string"},
            "namespace": {"type": "string"},
        },
    }
