"""Schemas of built-in Kubernetes kinds (Pod, Deployment, Secret, ...) with no cluster.

Crossplane reads them from the API server's ``/openapi/v3``; offline we take
them from the ``kubernetes-validate`` package (Apache-2.0), which ships every
Kubernetes kind's schema for the last dozen Kubernetes releases. It ships them
as JSON Schema 2020-12 converted from Kubernetes' OpenAPI, so this module turns
the newest release's ``_definitions.json`` back into one OpenAPI v3 document
of the shape :mod:`crossfn.schemas.openapi` searches:

* ``$defs`` become ``components.schemas`` and ``#/$defs/X`` refs
  ``#/components/schemas/X``;
* ``type: [T, "null"]`` (the converter's way to say "optional") becomes
  ``type: T``;
* a ``oneOf`` of plain types (IntOrString, Quantity) becomes the ``anyOf``
  that CRDs use, with ``x-kubernetes-int-or-string`` for integer-or-string;
* the ``enum`` the converter pins on a kind's own ``apiVersion`` and ``kind``
  is dropped, as the API server does not publish one.

The document is built once per process on first use (about 0.1 s) and then
shared read-only: it is package data, not state.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

from crossfn import errors

__all__ = ["document", "kubernetes_version"]

_PACKAGE = "kubernetes_validate"
_DIR = "kubernetes-json-schema"
_VERSION_DIR = re.compile(r"^v(\d+)\.(\d+)\.(\d+)-local$")
_DEFS_REF = "#/$defs/"


def kubernetes_version() -> str:
    """The Kubernetes release whose schemas are served, e.g. ``v1.37.0``."""
    return _newest_dir()[: -len("-local")]


def document() -> dict[str, Any]:
    """The built-in kinds as one OpenAPI v3 document (shared: callers must not change it)."""
    return _document()


@functools.cache
def _base() -> Path:
    """The package's schema directory, found without importing the package (it imports jsonschema)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise errors.CrossfnError(f"cannot find the {_PACKAGE} package's schemas: is it installed?")
    return Path(next(iter(spec.submodule_search_locations))) / _DIR


@functools.cache
def _newest_dir() -> str:
    base = _base()
    versions = []
    for entry in base.iterdir():
        m = _VERSION_DIR.match(entry.name)
        if m:
            versions.append((tuple(int(g) for g in m.groups()), entry.name))
    return max(versions)[1]


@functools.cache
def _document() -> dict[str, Any]:
    source = _base() / _newest_dir() / "_definitions.json"
    defs = json.loads(source.read_bytes())["$defs"]
    schemas = {name: _convert(schema) for name, schema in defs.items()}
    for schema in schemas.values():
        if "x-kubernetes-group-version-kind" in schema:
            for key in ("apiVersion", "kind"):
                prop = schema.get("properties", {}).get(key)
                if isinstance(prop, dict):
                    prop.pop("enum", None)
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": kubernetes_version()},
        "components": {"schemas": schemas},
    }


def _convert(node: Any) -> Any:
    if isinstance(node, list):
        return [_convert(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str) and value.startswith(_DEFS_REF):
            out[key] = "#/components/schemas/" + value[len(_DEFS_REF) :]
        elif key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            if len(types) == 1:
                out[key] = types[0]
        elif key == "oneOf" and _plain_types(value):
            types = sorted(_plain_types(value))
            out["anyOf"] = [{"type": t} for t in types]
            if types == ["integer", "string"]:
                out["x-kubernetes-int-or-string"] = True
        else:
            out[key] = _convert(value)
    return out


def _plain_types(alternatives: Any) -> set[str]:
    """The types of a ``oneOf`` whose alternatives are each only a type, else an empty set."""
    if not isinstance(alternatives, list):
        return set()
    found: set[str] = set()
    for alt in alternatives:
        if not isinstance(alt, dict) or set(alt) != {"type"}:
            return set()
        types = alt["type"] if isinstance(alt["type"], list) else [alt["type"]]
        found.update(t for t in types if t != "null")
    return found
