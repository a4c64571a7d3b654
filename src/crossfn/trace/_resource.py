"""One node of a trace: an object as the API server returned it (or the error that stood in its way), and its children.

Which objects are an object's children is Crossplane's rule (crossplane/cli
``cmd/crossplane/common/resource/xrm/client.go``):

* a claim (it has ``spec.resourceRef``) has one child, its XR, and with
  ``--show-connection-secrets`` the Secret its ``spec.writeConnectionSecretToRef``
  names, in the claim's namespace; nothing else;
* an XR has the objects of ``spec.crossplane.resourceRefs`` (Crossplane v2) and
  of ``spec.resourceRefs`` (legacy), and with ``--show-connection-secrets`` the
  Secret of a legacy XR's ``spec.writeConnectionSecretToRef``; a namespaced XR's
  references without a namespace are in the XR's namespace;
* a Secret, a Usage and an EnvironmentConfig have none; any other object (a
  managed resource) has none unless it has those fields.

A reference that cannot be read as Kubernetes would decode it (a list of
objects) gives nothing, as the Go decoder's failure does upstream.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["Failure", "Ref", "Resource", "child_refs", "condition", "sort_children"]

Object = dict[str, Any]

_LEAVES = {
    ("", "Secret"),
    ("apiextensions.crossplane.io", "Usage"),
    ("apiextensions.crossplane.io", "EnvironmentConfig"),
}
"""Kinds known to reference nothing (group, kind)."""


@dataclasses.dataclass(frozen=True)
class Failure:
    """Why an object could not be read: the message, and the error as Go's ``encoding/json`` prints it."""

    message: str
    json: Any
    """What ``json.Marshal`` of the Go error value gives (``{"ErrStatus": {...}}`` for an API error)."""


@dataclasses.dataclass(frozen=True)
class Ref:
    """An object reference: what to read for a child."""

    api_version: str
    kind: str
    name: str
    namespace: str = ""


@dataclasses.dataclass
class Resource:
    """An object of the tree; ``error`` set when it could not be read (``obj`` then holds its kind and name)."""

    obj: Object
    error: Failure | None = None
    children: list[Resource] = dataclasses.field(default_factory=list)

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind") or "")

    @property
    def api_version(self) -> str:
        return str(self.obj.get("apiVersion") or "")

    @property
    def metadata(self) -> Mapping[str, Any]:
        meta = self.obj.get("metadata")
        return meta if isinstance(meta, Mapping) else {}

    @property
    def name(self) -> str:
        return str(self.metadata.get("name") or "")

    @property
    def namespace(self) -> str:
        return str(self.metadata.get("namespace") or "")


def placeholder(ref: Ref, error: Failure) -> Resource:
    """The node of an object that could not be read: its apiVersion, kind, name and namespace only."""
    metadata: Object = {"name": ref.name} if ref.name else {}
    if ref.namespace:
        metadata["namespace"] = ref.namespace
    obj: Object = {"apiVersion": ref.api_version, "kind": ref.kind}
    if metadata:
        obj["metadata"] = metadata
    return Resource(obj, error)


def condition(obj: Mapping[str, Any], type_: str) -> Mapping[str, Any]:
    """The condition of ``type_`` in ``status.conditions``, or ``{}``: absent is not ``Unknown`` here.

    Conditions that do not decode as Crossplane's (a list of objects with string fields) count as
    none, as the Go decoder's failure does upstream.
    """
    status = obj.get("status")
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    if conditions is None:
        return {}
    if not isinstance(conditions, list) or not all(_is_condition(c) for c in conditions):
        return {}
    found: Mapping[str, Any] = next((c for c in conditions if c.get("type") == type_), {})
    return found


def _is_condition(c: object) -> bool:
    if not isinstance(c, Mapping):
        return False
    strings = ("type", "status", "reason", "message", "lastTransitionTime")
    return all(c.get(k) is None or isinstance(c.get(k), str) for k in strings)


def group_of(api_version: str) -> str:
    """The group of an apiVersion (``""`` for the core group's ``v1``)."""
    return api_version.rpartition("/")[0]


def child_refs(r: Resource, *, connection_secrets: bool) -> list[Ref]:
    """The references to ``r``'s children (the module docstring's rules), in the order found."""
    if (group_of(r.api_version), r.kind) in _LEAVES:
        return []
    spec = r.obj.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    if "resourceRef" in spec:  # a claim: its XR, and perhaps its Secret
        claimed = _ref(spec.get("resourceRef"))
        if claimed is None:
            return _xr_refs(r, spec, connection_secrets=connection_secrets)
        refs = [claimed]
        secret = spec.get("writeConnectionSecretToRef")
        if connection_secrets and isinstance(secret, Mapping) and _strings(secret):
            refs.append(Ref("v1", "Secret", str(secret.get("name") or ""), r.namespace))
        return refs
    return _xr_refs(r, spec, connection_secrets=connection_secrets)


def _xr_refs(r: Resource, spec: Mapping[str, Any], *, connection_secrets: bool) -> list[Ref]:
    crossplane = spec.get("crossplane")
    refs = _ref_list(crossplane.get("resourceRefs") if isinstance(crossplane, Mapping) else None)
    refs += _ref_list(spec.get("resourceRefs"))
    secret = spec.get("writeConnectionSecretToRef")
    if connection_secrets and isinstance(secret, Mapping) and _strings(secret):
        refs.append(Ref("v1", "Secret", str(secret.get("name") or ""), str(secret.get("namespace") or "")))
    if r.namespace:
        refs = [dataclasses.replace(ref, namespace=ref.namespace or r.namespace) for ref in refs]
    return refs


_REF_FIELDS = ("apiVersion", "kind", "name", "namespace", "uid", "resourceVersion", "fieldPath")


def _strings(value: Mapping[str, Any]) -> bool:
    """Whether a reference decodes into Go's struct: every field it has that the struct knows is a string."""
    return all(value.get(k) is None or isinstance(value.get(k), str) for k in _REF_FIELDS)


def _ref(value: object) -> Ref | None:
    if not isinstance(value, Mapping) or not _strings(value):
        return None
    return Ref(
        str(value.get("apiVersion") or ""),
        str(value.get("kind") or ""),
        str(value.get("name") or ""),
        str(value.get("namespace") or ""),
    )


def _ref_list(value: object) -> list[Ref]:
    if not isinstance(value, list):
        return []
    refs = [_ref(v) for v in value]
    if any(ref is None for ref in refs):
        return []  # one bad entry fails the whole decode
    return [ref for ref in refs if ref is not None]


def sort_children(root: Resource) -> None:
    """Order every node's children by apiVersion + kind + name (bytes), as Crossplane orders them."""
    for child in root.children:
        sort_children(child)
    root.children.sort(key=lambda c: (c.api_version + c.kind + c.name).encode("utf-8", "surrogatepass"))
