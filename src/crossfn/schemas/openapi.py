"""OpenAPI v3 group-version documents: find one kind's schema, flatten its refs, load them from disk.

The Kubernetes API server serves one OpenAPI v3 document per group-version at
``/openapi/v3/api/v1`` or ``/openapi/v3/apis/<group>/<version>``; every kind
of that group-version is an entry of ``components.schemas``, tagged with
``x-kubernetes-group-version-kind``. Crossplane answers a function's schema
requirement by finding the entry whose tag is exactly the requested kind and
inlining every ``$ref`` (upstream core-2.8); ``crossplane render -s``
does the same over documents read from a directory, comparing group and
version case-insensitively (upstream core-3.5, ``FilteringSchemaFetcher``).

Neighbours: :mod:`crossfn.schemas.store` keeps the documents and answers
requests through :func:`find_schema`; :mod:`crossfn.schemas.builtin` builds
documents of the same shape for built-in Kubernetes kinds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from crossfn import errors

__all__ = [
    "discovery_path",
    "find_schema",
    "find_schema_named",
    "flatten_refs",
    "load_documents",
    "split_api_version",
]

_REF_PREFIX = "#/components/schemas/"


def split_api_version(api_version: str) -> tuple[str, str]:
    """Split ``group/version`` (or a core ``version``) into ``(group, version)``.

    Raises :class:`~crossfn.errors.InputError` ``cannot parse apiVersion
    "<v>": <cause>``. More than one slash is Crossplane's error word for word
    (Go's ``schema.ParseGroupVersion`` cause). An empty apiVersion, group or
    version is an error here too, where Go parses it and then finds nothing
    (``docs/compatibility.md``).
    """
    what = f"cannot parse apiVersion {errors.quote(api_version)}"
    parts = api_version.split("/")
    if len(parts) > 2:
        raise errors.InputError(f"{what}: unexpected GroupVersion string: {api_version}")
    if "" in parts:
        raise errors.InputError(f"{what}: group and version must not be empty")
    if len(parts) == 1:
        return "", parts[0]
    return parts[0], parts[1]


def discovery_path(api_version: str) -> str:
    """The ``/openapi/v3`` path key of a group-version: ``api/v1`` for core, else ``apis/<group>/<version>``."""
    group, version = split_api_version(api_version)
    if group == "":
        return f"api/{version}"
    return f"apis/{group}/{version}"


def find_schema(
    documents: Sequence[Mapping[str, Any]],
    api_version: str,
    kind: str,
    *,
    case_insensitive_group_version: bool = False,
) -> dict[str, Any] | None:
    """Find ``kind`` of ``api_version`` in OpenAPI v3 documents, with every ``$ref`` inlined.

    The first ``components.schemas`` entry, in document order, whose
    ``x-kubernetes-group-version-kind`` is a list of exactly one GVK equal to
    the request wins. Entries listing several GVKs (``DeleteOptions``,
    ``WatchEvent``) are skipped, as Crossplane does. The kind always compares
    exactly; group and version compare exactly unless
    ``case_insensitive_group_version`` (render's ``-s`` fetcher).

    Returns a fresh dict (the documents are not changed) or ``None`` when no
    document has the kind. Raises :class:`~crossfn.errors.InputError` when
    ``api_version`` does not parse.
    """
    group, version = split_api_version(api_version)
    if case_insensitive_group_version:
        group, version = group.lower(), version.lower()
    for doc in documents:
        components = doc.get("components")
        schemas = components.get("schemas") if isinstance(components, Mapping) else None
        if not isinstance(schemas, Mapping):
            continue
        for schema in schemas.values():
            if isinstance(schema, Mapping) and _is_kind(
                schema, group, version, kind, lower=case_insensitive_group_version
            ):
                flat: dict[str, Any] = flatten_refs(schema, schemas)
                return flat
    return None


def find_schema_named(document: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """The ``components.schemas`` entry called ``name`` (for example ObjectMeta), flattened, or ``None``."""
    schemas = (document.get("components") or {}).get("schemas") or {}
    schema = schemas.get(name)
    if not isinstance(schema, Mapping):
        return None
    flat: dict[str, Any] = flatten_refs(schema, schemas)
    return flat


def _is_kind(schema: Mapping[str, Any], group: str, version: str, kind: str, *, lower: bool) -> bool:
    """Whether ``schema`` is tagged with exactly one GVK, equal to the request."""
    gvks = schema.get("x-kubernetes-group-version-kind")
    if not isinstance(gvks, list) or len(gvks) != 1 or not isinstance(gvks[0], Mapping):
        return False
    gvk = gvks[0]
    g, v = str(gvk.get("group", "")), str(gvk.get("version", ""))
    if lower:
        g, v = g.lower(), v.lower()
    return g == group and v == version and gvk.get("kind") == kind


def flatten_refs(schema: Any, schemas: Mapping[str, Any]) -> Any:
    """Return a copy of ``schema`` with every ``#/components/schemas/<name>`` ``$ref`` inlined, transitively.

    A ``$ref`` object is replaced by the referenced schema (flattened too);
    sibling keys of the ``$ref`` (Kubernetes puts ``description`` or
    ``default`` there) are kept over it. A reference cycle (none exist in
    Kubernetes' documents, but a hand-written one may have one) is left as the
    ``$ref`` at the point where it would recurse, so flattening terminates.
    Unknown references are left as they are.
    """
    return _flatten(schema, schemas, ())


def _flatten(node: Any, schemas: Mapping[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_flatten(item, schemas, stack) for item in node]
    if not isinstance(node, Mapping):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        name = ref[len(_REF_PREFIX) :]
        target = schemas.get(name)
        if isinstance(target, Mapping) and name not in stack:
            out = _flatten(target, schemas, (*stack, name))
            for key, value in node.items():
                if key != "$ref":
                    out[key] = _flatten(value, schemas, stack)
            return out
    return {key: _flatten(value, schemas, stack) for key, value in node.items()}


def load_documents(path: Path) -> list[dict[str, Any]]:
    """Load every ``*.json`` file under ``path`` (recursively, sorted) as one OpenAPI v3 document each.

    This is render's ``--required-schemas``/``-s DIR``; like Go's
    ``filepath.Walk``, a single ``.json`` file is accepted too. Errors are Crossplane's:
    ``no JSON files found in "<dir>"`` for a directory without any, and the
    file name plus the cause for one that cannot be read or is not a JSON
    object. All raise :class:`~crossfn.errors.InputError`.
    """
    if not path.exists():
        # Go's filepath.Walk reports the lstat failure.
        raise errors.InputError(f"lstat {path}: no such file or directory")
    if path.is_file():
        files = [path] if path.suffix == ".json" else []
    else:
        files = sorted(p for p in path.rglob("*.json") if p.is_file())
    if not files:
        raise errors.InputError(f"no JSON files found in {errors.quote(str(path))}")
    return [_load_document(f) for f in files]


MAX_DEPTH = 10_000
"""Deepest nesting of a document: Go's encoding/json's, as Crossplane reads ``-s`` files."""


def _load_document(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_bytes())
    except OSError as exc:
        raise errors.InputError(f"cannot read file {errors.quote(str(path))}: {exc.strerror}") from exc
    except ValueError as exc:
        raise errors.InputError(f"cannot parse OpenAPI document {errors.quote(str(path))}: {exc}") from exc
    except RecursionError:
        doc = None  # deeper than this process may recurse: past the limit below, in practice
    if doc is None or _deeper_than(doc, MAX_DEPTH):
        raise errors.InputError(
            f"cannot parse OpenAPI document {errors.quote(str(path))}: exceeded max depth"
        )
    if not isinstance(doc, dict):
        raise errors.InputError(f"cannot parse OpenAPI document {errors.quote(str(path))}: not a JSON object")
    return doc


def _deeper_than(doc: Any, limit: int) -> bool:
    """Whether ``doc`` nests objects and arrays more than ``limit`` deep (measured without recursion)."""
    level = [doc]
    for _ in range(limit):
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True
