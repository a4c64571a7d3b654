"""The XR's references to its composed resources (upstream core-2.12).

Crossplane writes one ``{apiVersion, kind, name, namespace}`` per desired
object to ``spec.crossplane.resourceRefs`` (legacy: ``spec.resourceRefs``)
before creating anything, so it can always find what it composed. A
namespaced XR's refs carry no namespace (its schema has none: composed
resources live in the XR's namespace).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["REFS_PATH", "refs_patch", "resource_refs"]

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


def refs_patch(xr: Mapping[str, Any], refs: list[dict[str, str]], schema: str) -> dict[str, Any]:
    """The minimal XR object to server-side apply: identity plus the refs at the schema's path.

    ``schema`` is ``Legacy`` or ``Modern`` (``CompositeSchema.value``). The
    list is atomic, so applying it replaces the refs as a whole.
    """
    meta = xr.get("metadata") or {}
    out: dict[str, Any] = {
        "apiVersion": xr.get("apiVersion", ""),
        "kind": xr.get("kind", ""),
        "metadata": {"name": meta.get("name", "")},
    }
    if meta.get("namespace"):
        out["metadata"]["namespace"] = meta["namespace"]
    node = out
    *parents, leaf = REFS_PATH[schema]
    for key in parents:
        node = node.setdefault(key, {})
    node[leaf] = refs
    return out
