"""What is wrong with an XRD's versions and schemas, as field errors (``<path>: <problem>``).

Two kinds of problem, kept apart because they are refused in different places:

* :func:`schema_errors`: a version's ``openAPIV3Schema`` that is not a
  ``JSONSchemaProps`` (``properties: {spec: "a string"}``, ``required: yes``).
  Crossplane cannot parse such a schema (``json.Unmarshal`` into
  ``JSONSchemaProps`` fails: ``cannot parse validation schema``), so neither
  its controller nor its render generates a CRD from it; crossfn refuses it
  everywhere too, instead of quietly dropping what does not parse.
* :func:`definition_errors`: an XRD that parses but cannot be served as
  written. Not exactly one referenceable version (Crossplane leaves that to the
  API server, whose error carries a dump of Go structs), two versions of the
  same name, or an XR, ``spec`` or ``status`` schema whose ``type`` is not
  ``object`` (Crossplane silently makes them objects). Only the controller
  refuses these, up front; render and validate keep Crossplane's leniency.

Paths follow the API server's notation (``properties[spec].type``) so that an
error reads like the one ``kubectl apply`` of the generated CRD would give.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["definition_errors", "schema_errors"]

_MAX_SHOWN = 60


def _show(value: Any) -> str:
    """The offending value, short: JSON, cut at 60 characters."""
    text = json.dumps(value, default=str, sort_keys=True)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _invalid(path: str, value: Any, expected: str) -> list[str]:
    return [f"{path}: Invalid value: {_show(value)}: must be {expected}"]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string(value: Any, path: str) -> list[str]:
    return [] if isinstance(value, str) else _invalid(path, value, "a string")


def _bool(value: Any, path: str) -> list[str]:
    return [] if isinstance(value, bool) else _invalid(path, value, "a boolean")


def _int(value: Any, path: str) -> list[str]:
    return [] if _is_int(value) else _invalid(path, value, "an integer")


def _number(value: Any, path: str) -> list[str]:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return [] if ok else _invalid(path, value, "a number")


def _anything(value: Any, path: str) -> list[str]:
    return []


def _list(value: Any, path: str) -> list[str]:
    return [] if isinstance(value, list) else _invalid(path, value, "a list")


def _strings(value: Any, path: str) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return []
    return _invalid(path, value, "a list of strings")


def _schema(value: Any, path: str) -> list[str]:
    return schema_errors(value, path)


def _schemas(value: Any, path: str) -> list[str]:
    if not isinstance(value, list):
        return _invalid(path, value, "a list of schemas")
    return [e for i, v in enumerate(value) for e in schema_errors(v, f"{path}[{i}]")]


def _schema_map(value: Any, path: str) -> list[str]:
    if not isinstance(value, Mapping):
        return _invalid(path, value, "a map of schemas")
    return [e for k, v in value.items() for e in schema_errors(v, f"{path}[{k}]")]


def _schema_or_list(value: Any, path: str) -> list[str]:
    return _schemas(value, path) if isinstance(value, list) else schema_errors(value, path)


def _schema_or_bool(value: Any, path: str) -> list[str]:
    return [] if isinstance(value, bool) else schema_errors(value, path, "a schema (an object) or a boolean")


def _dependencies(value: Any, path: str) -> list[str]:
    if not isinstance(value, Mapping):
        return _invalid(path, value, "a map of schemas or lists of strings")
    out = []
    for k, v in value.items():
        out.extend(_strings(v, f"{path}[{k}]") if isinstance(v, list) else schema_errors(v, f"{path}[{k}]"))
    return out


def _fields(fields: Mapping[str, Callable[[Any, str], list[str]]]) -> Callable[[Any, str], list[str]]:
    """A checker of an object whose known fields have these checkers (unknown fields are ignored, as Go's)."""

    def check(value: Any, path: str) -> list[str]:
        if not isinstance(value, Mapping):
            return _invalid(path, value, "an object")
        return [
            e for k, v in value.items() if k in fields and v is not None for e in fields[k](v, f"{path}.{k}")
        ]

    return check


def _each(item: Callable[[Any, str], list[str]]) -> Callable[[Any, str], list[str]]:
    def check(value: Any, path: str) -> list[str]:
        if not isinstance(value, list):
            return _invalid(path, value, "a list")
        return [e for i, v in enumerate(value) for e in item(v, f"{path}[{i}]")]

    return check


_RULE = _fields(
    {
        "rule": _string,
        "message": _string,
        "messageExpression": _string,
        "reason": _string,
        "fieldPath": _string,
        "optionalOldSelf": _bool,
    }
)

_SCHEMA_FIELDS: dict[str, Callable[[Any, str], list[str]]] = {
    **dict.fromkeys(("id", "$schema", "$ref", "description", "type", "format", "title", "pattern"), _string),
    **dict.fromkeys(("x-kubernetes-list-type", "x-kubernetes-map-type"), _string),
    **dict.fromkeys(("default", "example"), _anything),
    "enum": _list,
    **dict.fromkeys(("maximum", "minimum", "multipleOf"), _number),
    **dict.fromkeys(
        (
            "exclusiveMaximum",
            "exclusiveMinimum",
            "uniqueItems",
            "nullable",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-embedded-resource",
            "x-kubernetes-int-or-string",
        ),
        _bool,
    ),
    **dict.fromkeys(
        ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"), _int
    ),
    **dict.fromkeys(("required", "x-kubernetes-list-map-keys"), _strings),
    "items": _schema_or_list,
    **dict.fromkeys(("allOf", "oneOf", "anyOf"), _schemas),
    "not": _schema,
    **dict.fromkeys(("properties", "patternProperties", "definitions"), _schema_map),
    **dict.fromkeys(("additionalProperties", "additionalItems"), _schema_or_bool),
    "dependencies": _dependencies,
    "externalDocs": _fields({"description": _string, "url": _string}),
    "x-kubernetes-validations": _each(_RULE),
}


def schema_errors(schema: Any, path: str, expected: str = "a schema (an object)") -> list[str]:
    """Why ``schema`` (found at ``path``) does not parse as a Kubernetes ``JSONSchemaProps``; [] when it does.

    Go's rules: ``null`` is allowed anywhere, unknown keywords are ignored,
    an integer field takes no fraction (``5.0`` is refused).
    """
    if schema is None:
        return []
    if not isinstance(schema, Mapping):
        return _invalid(path, schema, expected)
    return [
        e
        for k, v in schema.items()
        if k in _SCHEMA_FIELDS and v is not None
        for e in _SCHEMA_FIELDS[k](v, f"{path}.{k}")
    ]


def definition_errors(spec: Mapping[str, Any]) -> list[str]:
    """What makes a parsed XRD spec unservable as written (see the module docstring); [] when nothing does."""
    versions = [v for v in spec.get("versions") or () if isinstance(v, Mapping)]
    out: list[str] = []
    referenceable = [str(v.get("name")) for v in versions if v.get("referenceable") is True]
    if len(referenceable) != 1:
        found = ", ".join(json.dumps(n) for n in referenceable) if referenceable else "none"
        out.append(f"spec.versions: exactly one version must be marked as referenceable, found {found}")
    seen: set[str] = set()
    for i, v in enumerate(versions):
        name = str(v.get("name"))
        if name in seen:
            out.append(f"spec.versions[{i}].name: Duplicate value: {json.dumps(name)}")
        seen.add(name)
        out.extend(_object_types(v, f"spec.versions[{i}].schema.openAPIV3Schema"))
    return out


def _object_types(version: Mapping[str, Any], path: str) -> list[str]:
    """The XR, its spec and its status must be objects: Crossplane would make them so, dropping the type."""
    wrapper = version.get("schema")
    schema = wrapper.get("openAPIV3Schema") if isinstance(wrapper, Mapping) else None
    if not isinstance(schema, Mapping):
        return []
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    nodes = [(path, schema), *((f"{path}.properties[{k}]", props.get(k)) for k in ("spec", "status"))]
    out = []
    for where, node in nodes:
        type_ = node.get("type") if isinstance(node, Mapping) else None
        if type_ is not None and type_ != "object":
            out.append(f'{where}.type: Unsupported value: {_show(type_)}: supported values: "object"')
    return out
