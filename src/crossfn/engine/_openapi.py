"""Schema sources built on OpenAPI v3 documents (§2.8, §3.5; §4.4 required_schemas_test.go).

Crossplane answers a required schema from the API server's OpenAPI v3
discovery: the group-version document at ``api/<v>`` or ``apis/<g>/<v>``, the
``components.schemas`` entry whose ``x-kubernetes-group-version-kind`` is
exactly the one requested, with every ``$ref`` inlined. Anything not found is
an empty Schema, never an error. Two sources implement that here:

* :class:`OpenAPISchemaSource` reads discovery through an injected
  :class:`OpenAPIDiscovery` (a controller backs it with its API client).
* :class:`DocumentSchemaSource` searches documents already in memory, as
  classic render's FilteringSchemaFetcher does (group and version compared
  case-insensitively, kind exactly).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from crossfn import errors

__all__ = ["DocumentSchemaSource", "OpenAPIDiscovery", "OpenAPISchemaSource", "find_schema", "split_api_version"]

_REF_PREFIX = "#/components/schemas/"


class OpenAPIDiscovery(Protocol):
    """The API server's ``/openapi/v3`` endpoint."""

    async def paths(self) -> Iterable[str]:
        """The group-version paths discovery lists, e.g. ``api/v1``, ``apis/apps/v1``."""
        ...

    async def document(self, path: str) -> bytes:
        """The OpenAPI v3 JSON document of one path."""
        ...


def split_api_version(api_version: str) -> tuple[str, str]:
    """``apps/v1`` -> (``apps``, ``v1``); ``v1`` -> (``""``, ``v1``). Raises on anything else."""
    parts = api_version.split("/")
    if len(parts) == 1 and parts[0]:
        return "", parts[0]
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    raise errors.InputError(f"cannot parse apiVersion {errors.quote(api_version)}: unexpected GroupVersion string")


def _gvk_matches(entry: Mapping[str, Any], group: str, version: str, kind: str, *, fold: bool) -> bool:
    gvks = entry.get("x-kubernetes-group-version-kind")
    if not isinstance(gvks, list) or len(gvks) != 1 or not isinstance(gvks[0], Mapping):
        return False
    g, v, k = (str(gvks[0].get(x) or "") for x in ("group", "version", "kind"))
    if fold:
        return g.lower() == group.lower() and v.lower() == version.lower() and k == kind
    return (g, v, k) == (group, version, kind)


def find_schema(
    document: Mapping[str, Any], group: str, version: str, kind: str, *, fold: bool = False
) -> dict[str, Any] | None:
    """The flattened schema of the kind in an OpenAPI document, or ``None``.

    Entries listing several GVKs (``DeleteOptions`` and the like) are skipped.
    """
    schemas = (document.get("components") or {}).get("schemas") or {}
    if not isinstance(schemas, Mapping):
        return None
    for entry in schemas.values():
        if isinstance(entry, Mapping) and _gvk_matches(entry, group, version, kind, fold=fold):
            flat: dict[str, Any] = _flatten(copy.deepcopy(dict(entry)), schemas, ())
            return flat
    return None


def _flatten(node: Any, schemas: Mapping[str, Any], seen: tuple[str, ...]) -> Any:
    """Inline every ``#/components/schemas/<name>`` reference, transitively.

    A reference back to a schema already being inlined (a recursive type) is
    left as the ``$ref``: inlining it would never end.
    """
    if isinstance(node, list):
        return [_flatten(x, schemas, seen) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        name = ref[len(_REF_PREFIX) :]
        target = schemas.get(name)
        if isinstance(target, Mapping) and name not in seen:
            inlined = _flatten(copy.deepcopy(dict(target)), schemas, (*seen, name))
            rest = {k: _flatten(v, schemas, seen) for k, v in node.items() if k != "$ref"}
            return {**inlined, **rest}
    return {k: _flatten(v, schemas, seen) for k, v in node.items()}


class OpenAPISchemaSource:
    """A schema source over the API server's OpenAPI v3 discovery (Crossplane's OpenAPISchemasFetcher)."""

    def __init__(self, discovery: OpenAPIDiscovery) -> None:
        self._discovery = discovery

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        group, version = split_api_version(api_version)
        path = f"api/{version}" if not group else f"apis/{group}/{version}"
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
        return find_schema(document, group, version, kind)


class DocumentSchemaSource:
    """A schema source searching OpenAPI documents in memory (classic render's FilteringSchemaFetcher)."""

    def __init__(self, documents: Iterable[Mapping[str, Any]]) -> None:
        self._documents = list(documents)

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        group, _, version = api_version.rpartition("/")
        for document in self._documents:
            found = find_schema(document, group, version, kind, fold=True)
            if found is not None:
                return found
        return None
