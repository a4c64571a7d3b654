"""Structural-schema defaulting, as the Kubernetes API server applies it to custom resources.

The API server fills ``default`` values while it decodes an object, before it
validates it, and Crossplane's ``render --xrd`` does the same to the XR
(crossplane-core spec §3.3 step 8). The rules, from apiextensions-apiserver's
``structuraldefaulting``:

* a property that is absent gets a deep copy of its schema's ``default``;
* a property that is ``null`` gets its default too, unless its schema is
  ``nullable`` (the API server prunes such nulls, then defaults them);
* values already present are never changed;
* defaulting recurses through ``properties``, ``additionalProperties`` and
  ``items``, including into values that were just defaulted (so a defaulted
  object receives its own children's defaults).

Defaults inside ``allOf``/``anyOf``/``oneOf``/``not`` are not applied: a
structural schema may not carry them there.

Neighbours: :mod:`crossfn.validate` calls :func:`apply_defaults` before it
validates, so that a defaulted field is not reported missing.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["apply_defaults"]


def apply_defaults(obj: dict[str, Any], schema: Mapping[str, Any]) -> None:
    """Fill ``obj`` in place with the defaults of ``schema`` (an OpenAPI v3 structural schema)."""
    _default(obj, schema)


def _default(value: Any, schema: Mapping[str, Any]) -> None:
    if isinstance(value, dict):
        _default_object(value, schema)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for item in value:
                _default(item, items)


def _default_object(obj: dict[str, Any], schema: Mapping[str, Any]) -> None:
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            if not isinstance(prop, dict):
                continue
            if "default" in prop and (name not in obj or (obj[name] is None and not prop.get("nullable"))):
                obj[name] = copy.deepcopy(prop["default"])
            if name in obj:
                _default(obj[name], prop)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        known = properties if isinstance(properties, dict) else {}
        for name, item in obj.items():
            if name not in known:
                _default(item, extra)
