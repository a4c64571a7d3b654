"""The XR's references to its composed resources (§2.12).

Crossplane writes one ``{apiVersion, kind, name, namespace}`` per desired
object to ``spec.crossplane.resourceRefs`` (legacy: ``spec.resourceRefs``)
before creating anything, so it can always find what it composed. A
namespaced XR's refs carry no namespace (its schema has none: composed
resources live in the XR's namespace).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["REFS_PATH", "resource_refs"]

REFS_PATH = {"Legacy": ("spec", "resourceRefs"), "Modern": ("spec", "crossplane", "resourceRefs")}
"""Where the refs live, by composite schema."""


def resource_refs(objects: Iterable[Mapping[str, Any]], *, namespaced_xr: bool) -> list[dict[str, str]]:
    """Refs for ``objects``, sorted by ``apiVersion+kind+name+namespace``, empty ones dropped."""
    refs = []
    for obj in objects:
        meta = obj.get("metadata") or {}
        ref = {
            "apiVersion": str(obj.get("apiVersion") or ""),
            "kind": str(obj.get("kind") or ""),
            "name": str(meta.get("name") or ""),
        }
        namespace = "" if namespaced_xr else str(meta.get("namespace") or "")
        if namespace:
            ref["namespace"] = namespace
        if any(ref.values()):
            refs.append(ref)
    refs.sort(key=lambda r: r["apiVersion"] + r["kind"] + r["name"] + r.get("namespace", ""))
    return refs
