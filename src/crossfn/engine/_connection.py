"""Connection details of legacy XRs: where a resource's secret is, and what the XR publishes
(upstream core-2.16).

Crossplane does not aggregate composed resources' details: the XR's details
are exactly what the last step left in ``desired.composite.connection_details``,
and only legacy XRs (v1 model) publish them, to
``spec.writeConnectionSecretToRef``. The caller reads and writes Secrets; this
module says which Secret and with what content.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

from crossfn.engine import _metadata

__all__ = ["CONNECTION_SECRET_TYPE", "connection_secret", "secret_ref"]

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
