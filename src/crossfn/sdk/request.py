"""Read a RunFunctionRequest: what Crossplane sends a function.

Names and signatures match the official SDK's ``crossplane.function.request``
where it has the helper; the rest fill its gaps with what the Go and
TypeScript SDKs offer: resolved-or-not for requirements, the plural
``get_required_schemas``, context keys, typed input, and the observed and
desired state as plain dicts.

Protocol pitfalls these helpers hide:

* A requirement Crossplane has not resolved yet is *absent* from
  ``required_resources``/``required_schemas``; one it resolved but found nothing
  for is *present and empty*. ``get_required_resources`` returns ``[]`` in both
  cases (as the official SDK does); ask :func:`required_resources_resolved` or
  :func:`required_schema_resolved` to tell them apart.
* Bracket access on a protobuf map inserts an empty entry. Every helper here
  tests membership first, so reading never changes the request.
* Credentials and connection details are bytes on the wire; they stay bytes.

Neighbours: ``resource`` converts Structs, ``response`` writes the reply.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, TypeVar

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

if TYPE_CHECKING:
    import pydantic

__all__ = [
    "ENVIRONMENT_KEY",
    "WATCHED_RESOURCE",
    "Credentials",
    "advertises_capabilities",
    "get_context_key",
    "get_credentials",
    "get_desired_composed_resources",
    "get_desired_composite_resource",
    "get_input",
    "get_observed_composed_connection_details",
    "get_observed_composed_resources",
    "get_observed_composite_connection_details",
    "get_observed_composite_resource",
    "get_required_resource",
    "get_required_resources",
    "get_required_schema",
    "get_required_schemas",
    "get_watched_resource",
    "has_capability",
    "required_resources_resolved",
    "required_schema_resolved",
]

ENVIRONMENT_KEY = "apiextensions.crossplane.io/environment"
"""The context key functions use to pass the composition environment along the pipeline.

Since Crossplane v1.18 this is only a convention between functions
(function-environment-configs writes it; patch-and-transform reads it).
"""

WATCHED_RESOURCE = "ops.crossplane.io/watched-resource"
"""The requirement name under which a WatchOperation passes the resource that changed."""

_M = TypeVar("_M", bound="pydantic.BaseModel")


@dataclasses.dataclass(frozen=True)
class Credentials:
    """Credentials Crossplane passed to the function (from a Secret the step names).

    ``data`` keeps the raw bytes: secrets may be binary (keys, keystores), and
    decoding them as UTF-8, as the official SDK does, breaks those.
    """

    type: str
    """``credential_data`` when found, ``data`` when the step supplied none of that name."""

    data: dict[str, bytes]
    """The secret's keys and raw values."""


def get_required_resources(req: fnv1.RunFunctionRequest, name: str) -> list[dict[str, Any]]:
    """Get the resources Crossplane fetched for requirement ``name``, as dicts.

    Returns ``[]`` both when the requirement is not resolved yet and when it was
    resolved but nothing matched; :func:`required_resources_resolved` tells the
    two apart. Declare the requirement on every call either way: Crossplane
    stops calling once the requirements stop changing.
    """
    if name not in req.required_resources:
        return []
    return [resource.struct_to_dict(item.resource) for item in req.required_resources[name].items]


def get_required_resource(req: fnv1.RunFunctionRequest, name: str) -> dict[str, Any] | None:
    """Get the first resource fetched for requirement ``name``, or ``None``."""
    items = get_required_resources(req, name)
    return items[0] if items else None


def required_resources_resolved(req: fnv1.RunFunctionRequest, name: str) -> bool:
    """Tell whether Crossplane has resolved requirement ``name`` (even if it matched nothing)."""
    return name in req.required_resources


def get_watched_resource(req: fnv1.RunFunctionRequest) -> dict[str, Any] | None:
    """Get the resource whose change triggered this operation (WatchOperation), or ``None``."""
    return get_required_resource(req, WATCHED_RESOURCE)


def get_required_schema(req: fnv1.RunFunctionRequest, name: str) -> dict[str, Any] | None:
    """Get the OpenAPI v3 schema Crossplane fetched for requirement ``name``, or ``None``.

    ``None`` means either "not resolved yet" or "resolved, no such kind";
    :func:`required_schema_resolved` tells them apart.
    """
    if name not in req.required_schemas:
        return None
    schema = req.required_schemas[name]
    if not schema.HasField("openapi_v3"):
        return None
    return resource.struct_to_dict(schema.openapi_v3)


def required_schema_resolved(req: fnv1.RunFunctionRequest, name: str) -> bool:
    """Tell whether Crossplane has resolved schema requirement ``name`` (even if it found none)."""
    return name in req.required_schemas


def get_required_schemas(req: fnv1.RunFunctionRequest) -> dict[str, dict[str, Any] | None]:
    """Get every resolved schema requirement: name -> schema, ``None`` where the kind was not found.

    Requirements not resolved yet are absent from the result.
    """
    return {name: get_required_schema(req, name) for name in req.required_schemas}


def get_credentials(req: fnv1.RunFunctionRequest, name: str) -> Credentials:
    """Get the credentials ``name``; empty ``Credentials("data", {})`` when there are none.

    Values are the raw bytes from the Secret; decode them yourself when they are text.
    """
    if name not in req.credentials:
        return Credentials(type="data", data={})
    cred = req.credentials[name]
    if cred.WhichOneof("source") != "credential_data":
        return Credentials(type="data", data={})
    return Credentials(type="credential_data", data=dict(cred.credential_data.data))


def advertises_capabilities(req: fnv1.RunFunctionRequest) -> bool:
    """Tell whether Crossplane advertises its capabilities (v2.2 and later).

    When it does not, :func:`has_capability` is always ``False`` even for
    features the older Crossplane supports.
    """
    return fnv1.CAPABILITY_CAPABILITIES in req.meta.capabilities


def has_capability(req: fnv1.RunFunctionRequest, cap: fnv1.Capability.ValueType) -> bool:
    """Tell whether Crossplane advertises capability ``cap``, e.g. ``fnv1.CAPABILITY_REQUIRED_SCHEMAS``."""
    return cap in req.meta.capabilities


def get_context_key(req: fnv1.RunFunctionRequest, key: str) -> tuple[Any, bool]:
    """Get pipeline context value ``key`` as plain Python, and whether it was present.

    Returns ``(None, False)`` when absent; a present JSON ``null`` is ``(None, True)``.
    """
    if not req.HasField("context") or key not in req.context.fields:
        return None, False
    return resource.value_to_python(req.context.fields[key]), True


def get_input(req: fnv1.RunFunctionRequest, model: type[_M]) -> _M:
    """Validate the step's ``input`` into the pydantic ``model``.

    Raises :class:`crossfn.errors.FunctionInputError` naming the first field at
    fault (``cannot validate input: spec.count: ...``), which the runtime turns
    into a Fatal result. An absent input validates as ``{}``, so a model whose
    fields all have defaults accepts it.
    """
    import pydantic  # noqa: PLC0415 -- pydantic costs ~0.1 s to import; only typed-input functions pay it

    data = resource.struct_to_dict(req.input) if req.HasField("input") else {}
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise errors.FunctionInputError(f"cannot validate input: {_first_error(exc)}") from exc


def _first_error(exc: pydantic.ValidationError) -> str:
    details = exc.errors(include_url=False)
    first = details[0]
    where = ".".join(str(p) for p in first["loc"]) or "input"
    more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
    return f"{where}: {first['msg']}{more}"


def get_observed_composite_resource(req: fnv1.RunFunctionRequest) -> dict[str, Any]:
    """Get the observed composite resource (XR) as a dict; ``{}`` when there is none."""
    return resource.struct_to_dict(req.observed.composite.resource)


def get_observed_composite_connection_details(req: fnv1.RunFunctionRequest) -> dict[str, bytes]:
    """Get the XR's observed connection details, values as bytes."""
    return dict(req.observed.composite.connection_details)


def get_observed_composed_resources(req: fnv1.RunFunctionRequest) -> dict[str, dict[str, Any]]:
    """Get the observed composed resources as dicts, keyed by composition resource name."""
    return {name: resource.struct_to_dict(r.resource) for name, r in req.observed.resources.items()}


def get_observed_composed_connection_details(req: fnv1.RunFunctionRequest) -> dict[str, dict[str, bytes]]:
    """Get each observed composed resource's connection details, keyed by composition resource name."""
    return {name: dict(r.connection_details) for name, r in req.observed.resources.items()}


def get_desired_composite_resource(req: fnv1.RunFunctionRequest) -> dict[str, Any]:
    """Get the desired XR accumulated by earlier steps as a dict; ``{}`` when there is none."""
    return resource.struct_to_dict(req.desired.composite.resource)


def get_desired_composed_resources(req: fnv1.RunFunctionRequest) -> dict[str, dict[str, Any]]:
    """Get the desired composed resources accumulated by earlier steps, keyed by composition resource name."""
    return {name: resource.struct_to_dict(r.resource) for name, r in req.desired.resources.items()}
