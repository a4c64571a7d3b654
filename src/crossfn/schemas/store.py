"""One store of kind schemas, for required schemas in render and for validation.

A :class:`SchemaStore` is filled with extension objects (CRDs, XRDs, OpenAPI v3
group-version documents) and answers "what is the schema of this
apiVersion/kind?". It looks, in order:

1. in the CRDs, and the CRDs generated from XRDs (:mod:`crossfn.schemas.xrd`),
   at every version they serve;
2. in the OpenAPI v3 documents, by ``x-kubernetes-group-version-kind``
   (:func:`crossfn.schemas.openapi.find_schema`);
3. in the built-in Kubernetes kinds (:mod:`crossfn.schemas.builtin`), unless
   the store was made with ``builtins=False``.

Two views of a kind exist, because the API server has two:

* :meth:`SchemaStore.schema_for` is the *published* schema, as
  ``/openapi/v3`` serves it and as a function receives it for a required
  schema: a CRD's schema gains the full ``ObjectMeta`` under ``metadata`` and
  its ``x-kubernetes-group-version-kind``, every ``$ref`` is inlined.
* :meth:`SchemaStore.validation_schema` is what the API server validates an
  object with: a CRD's own structural schema (its ``metadata`` is only what
  the CRD says), or the published schema for kinds that have no CRD.

The store satisfies the engine's ``SchemaSource`` protocol structurally
(:meth:`SchemaStore.schema`), without importing the engine.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from crossfn import errors
from crossfn.schemas import builtin, openapi, xrd

__all__ = ["SchemaStore", "is_extension"]

_CRD_GROUP = "apiextensions.k8s.io/"
_XRD_GROUP = "apiextensions.crossplane.io/"
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def is_extension(obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` is something a store learns schemas from: a CRD, an XRD or an OpenAPI document."""
    api_version = str(obj.get("apiVersion", ""))
    kind = obj.get("kind")
    return (
        (kind == "CustomResourceDefinition" and api_version.startswith(_CRD_GROUP))
        or (kind == "CompositeResourceDefinition" and api_version.startswith(_XRD_GROUP))
        or ("apiVersion" not in obj and isinstance(obj.get("components"), Mapping))
    )


class SchemaStore:
    """Kind schemas from CRDs, XRDs, OpenAPI v3 documents and built-in Kubernetes kinds.

    ``case_insensitive_group_version`` makes OpenAPI document lookups compare
    group and version case-insensitively, as render's ``-s`` fetcher does
    (upstream core-3.5); CRD and XRD kinds always compare exactly.
    Schemas are computed once per kind and cached; the store is not
    thread-safe while it is being filled.
    """

    def __init__(self, *, builtins: bool = True, case_insensitive_group_version: bool = False) -> None:
        self._builtins = builtins
        self._case_insensitive = case_insensitive_group_version
        # (apiVersion, kind) -> the CRD version's openAPIV3Schema, as written.
        self._crd_schemas: dict[tuple[str, str], dict[str, Any]] = {}
        self._documents: list[dict[str, Any]] = []
        self._published: dict[tuple[str, str], dict[str, Any] | None] = {}

    @classmethod
    def from_objects(cls, objects: Iterable[Mapping[str, Any]], **options: bool) -> SchemaStore:
        """A store filled with every extension among ``objects`` (others are ignored)."""
        store = cls(**options)
        for obj in objects:
            if is_extension(obj):
                store.add(obj)
        return store

    def add(self, obj: Mapping[str, Any]) -> None:
        """Learn the schemas of a CRD, an XRD (its XR and, for legacy XRDs, its claim) or an OpenAPI document.

        The store keeps references into ``obj`` rather than copies (copying
        20 provider CRDs costs half a second): don't change it afterwards.
        Raises :class:`~crossfn.errors.InputError` for anything else, or for a
        CRD or XRD that lacks the fields a schema needs.
        """
        if not is_extension(obj):
            raise errors.InputError(
                f"cannot load schemas from {obj.get('apiVersion', '')}, Kind={obj.get('kind', '')}: "
                "not a CustomResourceDefinition, CompositeResourceDefinition or OpenAPI v3 document"
            )
        if obj.get("kind") == "CustomResourceDefinition":
            self._add_crd(obj)
        elif obj.get("kind") == "CompositeResourceDefinition":
            self._add_crd(xrd.crd_from_xrd(obj))
            claim = xrd.claim_crd_from_xrd(obj)
            if claim is not None:
                self._add_crd(claim)
        else:
            self._documents.append(dict(obj))
        self._published.clear()

    def _add_crd(self, crd: Mapping[str, Any]) -> None:
        spec = crd.get("spec")
        name = str((crd.get("metadata") or {}).get("name", ""))
        if (
            not isinstance(spec, Mapping)
            or not spec.get("group")
            or not (spec.get("names") or {}).get("kind")
        ):
            raise errors.InputError(
                f"cannot load CRD {errors.quote(name)}: spec.group and spec.names.kind are required"
            )
        kind = str(spec["names"]["kind"])
        top = (spec.get("validation") or {}).get("openAPIV3Schema")
        for v in spec.get("versions") or ():
            if not isinstance(v, Mapping) or not v.get("served", True):
                continue
            schema = (v.get("schema") or {}).get("openAPIV3Schema") or top
            if isinstance(schema, dict):
                self._crd_schemas[(f"{spec['group']}/{v.get('name')}", kind)] = schema

    def kinds(self) -> list[tuple[str, str]]:
        """The ``(apiVersion, kind)`` pairs known from CRDs and XRDs, sorted."""
        return sorted(self._crd_schemas)

    def is_crd(self, api_version: str, kind: str) -> bool:
        """Whether ``kind`` comes from a CRD or XRD, so its schema is structural (pruning, defaults)."""
        return (api_version, kind) in self._crd_schemas

    def validation_schema(self, api_version: str, kind: str) -> Mapping[str, Any] | None:
        """The schema the API server validates ``kind`` with, or ``None`` when unknown.

        The result is shared with the store: read it, don't change it.
        """
        crd_schema = self._crd_schemas.get((api_version, kind))
        if crd_schema is not None:
            return crd_schema
        return self._published_schema(api_version, kind)

    def schema_for(self, api_version: str, kind: str) -> dict[str, Any] | None:
        """The published OpenAPI v3 schema of ``kind`` (a fresh copy), or ``None`` when unknown.

        Raises :class:`~crossfn.errors.InputError` (``cannot parse apiVersion
        "<v>": <cause>``) when ``api_version`` does not parse.
        """
        openapi.split_api_version(api_version)
        found = self._published_schema(api_version, kind)
        return copy.deepcopy(found) if found is not None else None

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        """The engine's ``SchemaSource``: :meth:`schema_for`, for required schemas (upstream core-2.8)."""
        return self.schema_for(api_version, kind)

    def _published_schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        key = (api_version, kind)
        if key not in self._published:
            self._published[key] = self._find(api_version, kind)
        return self._published[key]

    def _find(self, api_version: str, kind: str) -> dict[str, Any] | None:
        crd_schema = self._crd_schemas.get((api_version, kind))
        if crd_schema is not None:
            return self._publish_crd(crd_schema, api_version, kind)
        found = openapi.find_schema(
            self._documents, api_version, kind, case_insensitive_group_version=self._case_insensitive
        )
        if found is None and self._builtins:
            found = openapi.find_schema([builtin.document()], api_version, kind)
        return found

    def _publish_crd(self, schema: Mapping[str, Any], api_version: str, kind: str) -> dict[str, Any]:
        """A CRD version's schema as the API server publishes it: full ObjectMeta, and its GVK."""
        published = copy.deepcopy(dict(schema))
        props = published.setdefault("properties", {})
        if self._builtins:
            meta = openapi.find_schema_named(builtin.document(), _OBJECT_META)
            if meta is not None:
                props["metadata"] = meta
        group, version = openapi.split_api_version(api_version)
        published["x-kubernetes-group-version-kind"] = [{"group": group, "kind": kind, "version": version}]
        return published
