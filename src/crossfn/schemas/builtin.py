"""Schemas of built-in Kubernetes kinds (Pod, Deployment, Secret, ...) with no cluster.

Crossplane reads them from the API server's ``/openapi/v3``; offline we ship
them as package data, ``kubernetes.json.gz``: one OpenAPI v3 document of the
shape :mod:`crossfn.schemas.openapi` searches, with every kind of one
Kubernetes release (:func:`kubernetes_version`). It is generated from the
``kubernetes-validate`` package (Apache-2.0) by
``scripts/generate_kubernetes_schemas.py``, whose docstring says how its
schemas are turned back into Kubernetes' OpenAPI; installing crossfn does not
install that package.

The document is read once per process on first use (about 20 ms) and then
shared read-only: it is package data, not state.
"""

from __future__ import annotations

import functools
import gzip
import importlib.resources
import json
from typing import Any

__all__ = ["document", "kubernetes_version"]

_DATA = "kubernetes.json.gz"


def kubernetes_version() -> str:
    """The Kubernetes release whose schemas are served, e.g. ``v1.37.0``."""
    return str(_document()["info"]["version"])


def document() -> dict[str, Any]:
    """The built-in kinds as one OpenAPI v3 document (shared: callers must not change it)."""
    return _document()


@functools.cache
def _document() -> dict[str, Any]:
    data = importlib.resources.files("crossfn.schemas").joinpath(_DATA).read_bytes()
    doc: dict[str, Any] = json.loads(gzip.decompress(data))
    return doc
