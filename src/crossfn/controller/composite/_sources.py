"""The engine's sources backed by the API server: required resources, schemas, secrets, kind scopes.

The engine asks four questions while it composes (``crossfn.engine._sources``):
which objects a function requires (upstream core-2.7), the OpenAPI schema of a kind (upstream core-2.8),
a step credential's Secret (upstream core-2.3), and whether a kind is namespaced (upstream core-2.10).
Here each is answered from the cluster:

* :class:`ApiResources` reads from an informer's cache when the kind is
  already watched and synced (a composed or required kind of some XR, so it
  is read all the time), and live from the API server otherwise; starting a
  watch just to answer one question would cost more than the question. While
  a namespaced XR composes (:func:`confined_to`), it reads namespaced kinds in
  that XR's namespace only: a selector without a namespace means the XR's, and
  one naming another namespace is an error, so a Composition that takes a
  selector from the XR cannot make the controller read a kube-system Secret
  for a tenant (Crossplane lists every namespace; docs/security.md).
* :class:`ApiSchemas` is the engine's ``OpenAPISchemaSource`` over
  ``/openapi/v3``, cached in memory and dropped whenever a CRD is added,
  changed or deleted, as Crossplane's memory-cached discovery client is. The
  manager connects :meth:`ApiSchemas.crd_changed` to its CRD informer.
* :class:`ApiSecrets` decodes a Secret's ``data``.
* :class:`ApiScopes` asks the API's discovery (which caches it).

:func:`api_sources` bundles them into one :class:`crossfn.engine.Sources`,
built once by the manager and shared by every XR controller.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import contextvars
import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.crds import _crds
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _informer

__all__ = [
    "ApiResources",
    "ApiSchemas",
    "ApiScopes",
    "ApiSecrets",
    "api_sources",
    "confined_to",
]

_log = logging.getLogger("crossfn.controller.sources")


_XR_NAMESPACE: contextvars.ContextVar[str] = contextvars.ContextVar("crossfn_xr_namespace", default="")


@contextlib.contextmanager
def confined_to(namespace: str) -> Iterator[None]:
    """Within this block (and the tasks it starts), required resources of namespaced kinds are read
    in ``namespace`` only (``""``: a cluster XR, no confinement)."""
    token = _XR_NAMESPACE.set(namespace)
    try:
        yield
    finally:
        _XR_NAMESPACE.reset(token)


class ApiResources:
    """Gets and lists objects for required resources: cache when watched, else live.

    A kind the API server does not serve is an error (:class:`~_api.NoKindMatch`,
    ``no matches for kind "<kind>" in version "<apiVersion>"``), never an empty
    answer, as Crossplane's client fails: the XR says which requirement named
    a kind that is not there (a CRD not installed), instead of composing as if
    nothing matched.
    """

    def __init__(self, api: _api.Api, informers: _informer.Informers | None = None) -> None:
        self._api = api
        self._informers = informers

    async def _confine(self, api_version: str, kind: str, namespace: str | None) -> str | None:
        """The namespace to read ``kind`` in for the XR composing now (:func:`confined_to`)."""
        xr_namespace = _XR_NAMESPACE.get()
        if not xr_namespace:
            return namespace
        try:
            namespaced = await self._api.is_namespaced(api_version, kind)
        except _api.NoKindMatch:
            return namespace  # not served: nothing to read anywhere
        if not namespaced or namespace in (None, "", xr_namespace):
            return xr_namespace if namespaced else namespace
        raise errors.CrossfnError(
            f"cannot read {kind} objects in namespace {errors.quote(str(namespace))}: a composite resource "
            f"in namespace {errors.quote(xr_namespace)} may require namespaced resources of its own "
            "namespace only"
        )

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        namespace = await self._confine(api_version, kind, namespace) or ""
        cache = _informer.watched(self._informers, api_version, kind)
        if cache is not None:
            found = cache.get(name, namespace)
            if found is not None:
                return found
        # Served? (discovery, cached): a get of a kind that is not served would read as "not found".
        await self._api.is_namespaced(api_version, kind)
        # A cache miss may be an object created a moment ago: ask the server.
        return await self._api.get(api_version, kind, name, namespace)

    async def list(
        self, api_version: str, kind: str, namespace: str | None, labels: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        namespace = await self._confine(api_version, kind, namespace)
        cache = _informer.watched(self._informers, api_version, kind)
        if cache is not None:
            return cache.list(namespace, labels)
        items, _ = await self._api.list(api_version, kind, namespace, labels=labels)
        return items


class _CachedDiscovery:
    """``/openapi/v3`` read once and kept until :meth:`invalidate`.

    A generation counter stops a read that started before an invalidation
    from storing what it read after it: that answer may predate the CRD change.
    """

    def __init__(self, api: _api.Api) -> None:
        self._api = api
        self._paths: list[str] | None = None
        self._documents: dict[str, bytes] = {}
        self._generation = 0

    def invalidate(self) -> None:
        self._generation += 1
        self._paths = None
        self._documents = {}

    async def paths(self) -> Iterable[str]:
        if self._paths is not None:
            return self._paths
        generation = self._generation
        paths = await self._api.openapi_paths()
        if generation == self._generation:
            self._paths = paths
        return paths

    async def document(self, path: str) -> bytes:
        found = self._documents.get(path)
        if found is not None:
            return found
        generation = self._generation
        document = await self._api.openapi_document(path)
        if generation == self._generation:
            self._documents[path] = document
        return document


class ApiSchemas:
    """Required schemas from the API server's OpenAPI v3 discovery, re-read after any CRD change."""

    def __init__(self, api: _api.Api) -> None:
        self._discovery = _CachedDiscovery(api)
        self._source = engine.OpenAPISchemaSource(self._discovery)

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        return await self._source.schema(api_version, kind)

    def invalidate(self) -> None:
        """Forget every discovery answer: the next schema request reads ``/openapi/v3`` again."""
        self._discovery.invalidate()

    def crd_changed(self, event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """A CRD informer handler: any add, update or delete invalidates the cache."""
        self.invalidate()

    def watch_crds(self, informers: _informer.Informers) -> None:
        """Invalidate on every CRD event of the shared CRD informer (starting it if needed)."""
        informers.informer(_crds.CRD_API_VERSION, _crds.CRD_KIND).add_handler(self.crd_changed)


class ApiSecrets:
    """Step credentials from Secrets (``data`` decoded)."""

    def __init__(self, api: _api.Api) -> None:
        self._api = api

    async def secret(self, namespace: str, name: str) -> Mapping[str, bytes] | None:
        found = await self._api.get("v1", "Secret", name, namespace)
        if found is None:
            return None
        data = found.get("data") or {}
        try:
            return {str(k): base64.b64decode(str(v), validate=True) for k, v in data.items()}
        except (binascii.Error, ValueError) as exc:
            raise errors.InputError(f"cannot decode Secret {namespace}/{name}: {exc}") from exc


class ApiScopes:
    """Whether a kind is namespaced, from the API server's discovery."""

    def __init__(self, api: _api.Api) -> None:
        self._api = api

    async def is_namespaced(self, api_version: str, kind: str) -> bool:
        return await self._api.is_namespaced(api_version, kind)


def api_sources(
    api: _api.Api, informers: _informer.Informers | None, schemas: ApiSchemas | None = None
) -> engine.Sources:
    """The engine's sources over ``api``; pass the :class:`ApiSchemas` whose cache a CRD informer drops."""
    return engine.Sources(
        resources=ApiResources(api, informers),
        schemas=schemas if schemas is not None else ApiSchemas(api),
        credentials=ApiSecrets(api),
        scopes=ApiScopes(api),
    )
