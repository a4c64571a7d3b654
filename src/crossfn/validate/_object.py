"""Validate one object: against a schema, or against what a schema store knows of its kind.

The steps follow the API server's order for a custom resource: apply the
schema's defaults (so a defaulted field is not reported missing), run the
value validations, prune unknown fields (each one a problem, as ``crossplane
beta validate`` reports them), then evaluate the CEL rules on the pruned
object. The caller's object is never changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crossfn.gocompat import values
from crossfn.schemas import defaults
from crossfn.schemas import store as schema_store
from crossfn.validate import _cel, _problem, _structural

__all__ = ["gvk_string", "resource_name", "validate_object", "validate_resource"]

_ABSENT: Any = object()
_COMPOSITION_RESOURCE_NAME = "crossplane.io/composition-resource-name"


def validate_object(
    obj: Mapping[str, Any],
    schema: Mapping[str, Any],
    *,
    structural: bool = True,
    old: Mapping[str, Any] | None = None,
) -> list[_problem.Problem]:
    """Every problem of ``obj`` (a whole resource) under ``schema``, in the API server's order.

    ``structural`` is true for a CRD's schema: its defaults are applied and
    objects without properties keep nothing. It is false for a built-in
    kind's published schema, whose defaults and free-form objects come from
    Go types. ``old`` is the previous version of the object, for CEL
    transition rules (``oldSelf``); without it they are skipped.
    """
    work = values.deep_copy_json(obj)
    if structural:
        defaults.apply_defaults(work, schema)
    problems = _structural.check_values(work, schema, "", root=True)
    for path, child in _structural.prune(work, schema, "", structural=structural):
        problems.append(
            _problem.Problem(
                path, _problem.ErrorType.INVALID, f"unknown field: {_problem.go_value(child)}", child
            )
        )
    problems.extend(_cel.check_rules(work, schema, "", old=_ABSENT if old is None else old))
    return problems


def validate_resource(
    obj: Mapping[str, Any], store: schema_store.SchemaStore, *, old: Mapping[str, Any] | None = None
) -> list[_problem.Problem] | None:
    """Validate ``obj`` against its kind's schema in ``store``; ``None`` when the store has no schema for it."""
    api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    schema = store.validation_schema(api_version, kind)
    if schema is None:
        return None
    return validate_object(obj, schema, structural=store.is_crd(api_version, kind), old=old)


def gvk_string(obj: Mapping[str, Any]) -> str:
    """The kind as Go's ``GroupVersionKind.String()`` prints it: ``group/version, Kind=Kind``."""
    api_version = str(obj.get("apiVersion", ""))
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={obj.get('kind', '')}"


def resource_name(obj: Mapping[str, Any]) -> str:
    """The object's name, else its composition resource name (a render output may have no name yet)."""
    metadata = obj.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    name = metadata.get("name")
    if isinstance(name, str) and name:
        return name
    annotations = metadata.get("annotations")
    if isinstance(annotations, Mapping):
        return str(annotations.get(_COMPOSITION_RESOURCE_NAME, ""))
    return ""
