"""The required-schema source over the API server's OpenAPI v3 discovery
(upstream core-2.8; core-4.4 required_schemas_test.go).

Crossplane answers a required schema from the API server's OpenAPI v3
discovery: the group-version document at ``api/<v>`` or ``apis/<g>/<v>``, the
``components.schemas`` entry whose ``x-kubernetes-group-version-kind`` is
exactly the one requested, with every ``$ref`` inlined. Anything not found is
an empty Schema, never an error.

Finding the kind in a document is :mod:`crossfn.schemas.openapi`'s job, shared
with render's ``-s`` documents (which a :class:`crossfn.schemas.store.SchemaStore`
serves); this module only talks to discovery, through an injected
:class:`OpenAPIDiscovery` (a controller backs it with its API client), so the
engine still reads no files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from crossfn import errors
from crossfn.schemas import openapi

__all__ = ["OpenAPIDiscovery", "OpenAPISchemaSource"]


class OpenAPIDiscovery(Protocol):
    """The API server's ``/openapi/v3`` endpoint."""

    async def paths(self) -> Iterable[str]:
        """The group-version paths discovery lists, e.g. ``api/v1``, ``apis/apps/v1``."""
        ...

    async def document(self, path: str) -> bytes:
        """The OpenAPI v3 JSON document of one path."""
        ...


class OpenAPISchemaSource:
    """A schema source over the API server's OpenAPI v3 discovery (Crossplane's OpenAPISchemasFetcher)."""

    def __init__(self, discovery: OpenAPIDiscovery) -> None:
        self._discovery = discovery

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        """The flattened schema of ``kind``, or ``None`` when discovery does not have it."""
        path = openapi.discovery_path(api_version)
        try:
            paths = set(await self._discovery.paths())
        except Exception as exc:
            raise errors.CrossfnError(f"cannot get OpenAPI v3 paths: {exc}") from exc
        if path not in paths:
            return None
        try:
            raw = await self._discovery.document(path)
        except Exception as exc:
            raise errors.CrossfnError(f"cannot get OpenAPI schema for {path}: {exc}") from exc
        try:
            document = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise errors.CrossfnError(f"cannot parse OpenAPI schema for {path}: {exc}") from exc
        if not isinstance(document, Mapping):
            raise errors.CrossfnError(f"cannot parse OpenAPI schema for {path}: not a JSON object")
        return openapi.find_schema([document], api_version, kind)
