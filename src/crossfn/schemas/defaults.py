"""Structural-schema defaulting, as the Kubernetes API server applies it to custom resources.

The API server fills ``default`` values while it decodes an object, before it
validates it, and Crossplane's ``render --xrd`` does the same to the XR
(upstream core-3.3 step 8). The rules, from apiextensions-apiserver's
``structuraldefaulting``:

* a property that is absent gets a deep copy of its schema's ``default``;
  ``default: null`` is no default (Go decodes it as nil);
* a value that is ``null``, as a property, an ``additionalProperties`` value or
  an array item, gets its schema's default too, unless that schema is
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
            for i, item in enumerate(value):
                if _null_to_default(item, items):
                    value[i] = copy.deepcopy(items["default"])
                _default(value[i], items)


def _null_to_default(value: Any, schema: Mapping[str, Any]) -> bool:
    """A null that the API server replaces with ``schema``'s default (a non-nullable null, a non-null default)."""
    return value is None and not schema.get("nullable") and schema.get("default") is not None


def _default_object(obj: dict[str, Any], schema: Mapping[str, Any]) -> None:
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            if not isinstance(prop, dict) or prop.get("default") is None:
                continue
            if name not in obj or _null_to_default(obj[name], prop):
                obj[name] = copy.deepcopy(prop["default"])
    known = properties if isinstance(properties, dict) else {}
    extra = schema.get("additionalProperties")
    for name in list(obj):
        prop = known.get(name)
        if isinstance(prop, dict):
            _default(obj[name], prop)
        elif name not in known and isinstance(extra, dict):
            if _null_to_default(obj[name], extra):
                obj[name] = copy.deepcopy(extra["default"])
            _default(obj[name], extra)
