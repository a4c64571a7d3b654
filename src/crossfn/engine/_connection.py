"""Connection details of legacy XRs: where a resource's secret is, and what the XR publishes
(upstream core-2.16).

Crossplane does not aggregate composed resources' details: the XR's details
are exactly what the last step left in ``desired.composite.connection_details``,
and only legacy XRs (v1 model) publish them, to
``spec.writeConnectionSecretToRef``. The caller reads and writes Secrets; this
module says which Secret, with what content, and whether an existing Secret
may be written (:func:`check_controllable`, also for a claim's copy).
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

from crossfn import errors
from crossfn.engine import _metadata

__all__ = [
    "CONNECTION_SECRET_TYPE",
    "check_controllable",
    "connection_secret",
    "controller_uid",
    "secret_ref",
]

CONNECTION_SECRET_TYPE = "connection.crossplane.io/v1alpha1"


def secret_ref(obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(namespace, name)`` of the Secret ``obj`` writes its connection details to, or ``None``.

    A namespaced object writes to its own namespace; a cluster-scoped one to
    the namespace in its ``spec.writeConnectionSecretToRef``.
    """
    ref = (obj.get("spec") or {}).get("writeConnectionSecretToRef")
    if not isinstance(ref, Mapping) or not ref.get("name"):
        return None
    own = str((obj.get("metadata") or {}).get("namespace") or "")
    return (own or str(ref.get("namespace") or ""), str(ref["name"]))


def connection_secret(
    xr: Mapping[str, Any], details: Mapping[str, bytes], keys: Iterable[str] = ()
) -> dict[str, Any] | None:
    """The Secret a legacy XR publishes, or ``None`` when it publishes none.

    Only ``keys`` (the XRD's ``connectionSecretKeys``) are written, every key
    when that list is empty. The XR is the Secret's controller.
    """
    ref = secret_ref(xr)
    if ref is None:
        return None
    allowed = set(keys)
    data = {
        k: base64.b64encode(v).decode() for k, v in sorted(details.items()) if not allowed or k in allowed
    }
    owner = _metadata.controller_reference(xr)
    namespace, name = ref
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace, "ownerReferences": [owner]},
        "type": CONNECTION_SECRET_TYPE,
        "data": data,
    }


def _controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return ref
    return None


def controller_uid(obj: Mapping[str, Any]) -> str | None:
    """The UID of the object's controller reference; ``None`` when nothing controls it."""
    owner = _controller_of(obj)
    return None if owner is None else str(owner.get("uid") or "")


def check_controllable(secret: Mapping[str, Any], uid: str) -> None:
    """Refuse a Secret ``uid`` may not write: controlled by another, or uncontrolled and not a connection
    Secret (Crossplane's ``ConnectionSecretMustBeControllableBy``)."""
    owner = controller_uid(secret)
    if owner is None:
        kind = str(secret.get("type") or "")
        if kind != CONNECTION_SECRET_TYPE:
            raise errors.CrossfnError(f"refusing to modify uncontrolled secret of type {errors.quote(kind)}")
        return
    if owner != uid:
        raise errors.CrossfnError(f"existing secret is not controlled by UID {errors.quote(uid)}")
