"""Where the engine gets what a function asks for: resources, schemas, secrets.

The engine does no Kubernetes or file I/O. A caller passes objects that
implement these protocols: a controller backs them with an API client, render
with the documents it loaded, tests with dicts. The rules of *what* to fetch
(selector semantics, sort order, "not found" as an empty answer) live in the
engine (``_required``); a source only gets and lists.

:class:`Sources` bundles them, with no-op defaults that find nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

__all__ = [
    "CredentialsSource",
    "InMemoryResources",
    "KindScopes",
    "NoResources",
    "NoSchemas",
    "NoSecrets",
    "ResourceSource",
    "SchemaSource",
    "Sources",
]


class ResourceSource(Protocol):
    """Gets and lists Kubernetes objects as dicts, for required resources (upstream core-2.7)."""

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The object, or ``None`` when it does not exist. ``namespace`` is ``""`` for cluster scope."""
        ...

    async def list(
        self, api_version: str, kind: str, namespace: str | None, labels: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        """Objects of the kind; ``namespace`` ``None`` means every namespace, ``labels`` ``None`` no filter."""
        ...


class SchemaSource(Protocol):
    """Finds the OpenAPI v3 schema of a kind, for required schemas (upstream core-2.8)."""

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        """The schema with ``$ref``s flattened, or ``None`` when the kind is unknown (an empty Schema)."""
        ...


class CredentialsSource(Protocol):
    """Reads Secrets for step credentials (upstream core-2.3)."""

    async def secret(self, namespace: str, name: str) -> Mapping[str, bytes] | None:
        """The Secret's ``data``, or ``None`` when there is no such Secret in that namespace."""
        ...


class KindScopes(Protocol):
    """Tells whether a kind is namespaced (Crossplane asks its REST mapper, upstream core-2.10 step 3)."""

    async def is_namespaced(self, api_version: str, kind: str) -> bool: ...


class NoResources:
    """A resource source that holds nothing: every get is ``None``, every list empty."""

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return None

    async def list(
        self, api_version: str, kind: str, namespace: str | None, labels: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        return []


class InMemoryResources:
    """A resource source over objects held in memory: render's loaded documents, or a test's.

    ``get`` with namespace ``""`` matches objects without a namespace; ``list``
    with namespace ``None`` matches every namespace, and ``labels`` must all be
    equal on the object. Metadata or labels that are not objects count as empty.
    """

    def __init__(self, objects: Iterable[Mapping[str, Any]]) -> None:
        self._objects = [dict(o) for o in objects]

    def _of_kind(self, api_version: str, kind: str) -> Iterator[tuple[dict[str, Any], Mapping[str, Any]]]:
        for o in self._objects:
            if o.get("apiVersion") == api_version and o.get("kind") == kind:
                meta = o.get("metadata")
                yield o, meta if isinstance(meta, Mapping) else {}

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        for o, meta in self._of_kind(api_version, kind):
            if meta.get("name") == name and (meta.get("namespace") or "") == namespace:
                return o
        return None

    async def list(
        self, api_version: str, kind: str, namespace: str | None, labels: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        out = []
        for o, meta in self._of_kind(api_version, kind):
            if namespace is not None and (meta.get("namespace") or "") != namespace:
                continue
            have = meta.get("labels")
            have = have if isinstance(have, Mapping) else {}
            if labels and any(have.get(k) != v for k, v in labels.items()):
                continue
            out.append(o)
        return out


class NoSchemas:
    """A schema source that knows no kind, like Crossplane's default no-op schema fetcher."""

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        return None


class NoSecrets:
    """A credentials source with no Secrets."""

    async def secret(self, namespace: str, name: str) -> Mapping[str, bytes] | None:
        return None


class AllNamespaced:
    """Kind scopes that call every kind namespaced: the no-op default, it never refuses."""

    async def is_namespaced(self, api_version: str, kind: str) -> bool:
        return True


@dataclasses.dataclass(frozen=True)
class Sources:
    """The engine's view of the outside world.

    ``bootstrap_resources`` serves step-level ``requirements.requiredResources``;
    it defaults to ``resources``. Classic render passes only the
    ``--required-resources`` documents there, while ``resources`` also holds
    ``--extra-resources`` (upstream core-3.5).
    """

    resources: ResourceSource = dataclasses.field(default_factory=NoResources)
    schemas: SchemaSource = dataclasses.field(default_factory=NoSchemas)
    credentials: CredentialsSource = dataclasses.field(default_factory=NoSecrets)
    scopes: KindScopes = dataclasses.field(default_factory=AllNamespaced)
    bootstrap_resources: ResourceSource | None = None

    @property
    def bootstrap(self) -> ResourceSource:
        """The source for bootstrap requirements."""
        return self.bootstrap_resources if self.bootstrap_resources is not None else self.resources
