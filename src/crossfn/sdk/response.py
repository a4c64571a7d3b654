"""Build a RunFunctionResponse: the reply a function sends back to Crossplane.

``to(req)`` starts a response that passes the request's desired state and
context through, as the protocol demands: a function that drops desired state
it does not own deletes those resources. The other helpers add to it: results
(events), conditions, requirements, context keys, output, and desired state.

Names and signatures match the official SDK's ``crossplane.function.response``
where it has the helper. The additions come from the Go SDK: ``reason`` and
``target`` on results and conditions, readiness and connection details on
desired resources, and ``set_context_key``.

Neighbours: ``request`` reads the request, ``resource`` converts dicts.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Mapping
from typing import Any

from google.protobuf import duration_pb2, struct_pb2

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = [
    "DEFAULT_TTL",
    "fatal",
    "normal",
    "require_resources",
    "require_schema",
    "set_conditions",
    "set_context_key",
    "set_desired_composed_resource",
    "set_desired_composed_resources",
    "set_desired_composite_connection_details",
    "set_desired_composite_resource",
    "set_desired_composite_status",
    "set_output",
    "set_ready",
    "to",
    "warning",
]

DEFAULT_TTL = datetime.timedelta(seconds=60)
"""How long Crossplane may cache a response by default, as in the official SDK."""


@functools.lru_cache(maxsize=64)
def _duration(ttl: datetime.timedelta) -> tuple[int, int]:
    d = duration_pb2.Duration()
    d.FromTimedelta(ttl)
    return d.seconds, d.nanos


def to(
    req: fnv1.RunFunctionRequest, ttl: datetime.timedelta = DEFAULT_TTL, *, empty_context: bool = True
) -> fnv1.RunFunctionResponse:
    """Start a response to ``req``: same tag, desired state and context passed through.

    Desired state is always present in the response. So is context, empty when
    the request had none, as the official SDK makes it; ``empty_context=False``
    keeps an absent context absent, as the Go SDK does (and as a ``compose``
    function's response starts). Every served call starts here, so it avoids
    building a Duration per call.
    """
    rsp = fnv1.RunFunctionResponse()
    meta = rsp.meta
    meta.tag = req.meta.tag
    meta.ttl.seconds, meta.ttl.nanos = _duration(ttl)
    rsp.desired.CopyFrom(req.desired)
    if empty_context or req.HasField("context"):
        rsp.context.CopyFrom(req.context)
    return rsp


def _valid_utf8(text: str) -> str:
    return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)


def _result(
    rsp: fnv1.RunFunctionResponse,
    severity: fnv1.Severity.ValueType,
    message: str,
    reason: str | None,
    target: fnv1.Target.ValueType | None,
) -> None:
    try:
        r = rsp.results.add(severity=severity, message=message)
    except UnicodeEncodeError:
        # Invalid UTF-8 from user data (carried as lone surrogates) cannot go into a
        # protobuf string: each bad code point becomes U+FFFD, as Go's JSON encoding does.
        r = rsp.results.add(severity=severity, message=_valid_utf8(message))
    if reason is not None:
        r.reason = reason
    if target is not None:
        r.target = target


def normal(
    rsp: fnv1.RunFunctionResponse,
    message: str,
    *,
    reason: str | None = None,
    target: fnv1.Target.ValueType | None = None,
) -> None:
    """Add a Normal result: an informational event on the composite."""
    _result(rsp, fnv1.SEVERITY_NORMAL, message, reason, target)


def warning(
    rsp: fnv1.RunFunctionResponse,
    message: str,
    *,
    reason: str | None = None,
    target: fnv1.Target.ValueType | None = None,
) -> None:
    """Add a Warning result: the pipeline goes on, the composite gets a Warning event."""
    _result(rsp, fnv1.SEVERITY_WARNING, message, reason, target)


def fatal(
    rsp: fnv1.RunFunctionResponse,
    message: str,
    *,
    reason: str | None = None,
    target: fnv1.Target.ValueType | None = None,
) -> None:
    """Add a Fatal result: Crossplane stops the pipeline and keeps the resources as they are."""
    _result(rsp, fnv1.SEVERITY_FATAL, message, reason, target)


_STATUS = {
    "True": fnv1.STATUS_CONDITION_TRUE,
    "False": fnv1.STATUS_CONDITION_FALSE,
    "Unknown": fnv1.STATUS_CONDITION_UNKNOWN,
}


def set_conditions(
    rsp: fnv1.RunFunctionResponse,
    *conditions: resource.Condition,
    target: fnv1.Target.ValueType | None = None,
) -> None:
    """Add status conditions for Crossplane to set on the XR (and its claim, with ``target``).

    ``last_transition_time`` is ignored: Crossplane sets it. Don't set ``Ready``;
    Crossplane derives it from the composed resources. A status other than
    ``True``/``False``/``Unknown`` is sent as ``Unknown``.
    """
    for c in conditions:
        out = rsp.conditions.add(type=c.typ, status=_STATUS.get(c.status, fnv1.STATUS_CONDITION_UNKNOWN))
        out.reason = c.reason or ""
        if c.message:
            out.message = c.message
        if target is not None:
            out.target = target


def set_output(rsp: fnv1.RunFunctionResponse, output: Mapping[str, Any] | struct_pb2.Struct) -> None:
    """Set an operation function's output (Crossplane writes it to the Operation's status).

    Raises ``TypeError`` for anything but a mapping or a Struct.
    """
    if isinstance(output, struct_pb2.Struct):
        rsp.output.CopyFrom(output)
    elif isinstance(output, Mapping):
        rsp.output.Clear()
        resource.fill_struct(rsp.output, output)
    else:
        raise TypeError(f"cannot set output from {type(output).__name__}")


def require_resources(
    rsp: fnv1.RunFunctionResponse,
    name: str,
    api_version: str,
    kind: str,
    *,
    match_name: str | None = None,
    match_labels: Mapping[str, str] | None = None,
    namespace: str | None = None,
) -> None:
    """Ask Crossplane to fetch resources into ``req.required_resources[name]`` on the next call.

    With neither ``match_name`` nor ``match_labels`` every resource of that kind
    matches; giving both raises ``ValueError``. Without ``namespace`` the
    selector matches cluster-scoped resources, or namespaced ones in every
    namespace.
    """
    if match_name is not None and match_labels is not None:
        raise ValueError("match_name and match_labels are mutually exclusive")
    selector = fnv1.ResourceSelector(api_version=api_version, kind=kind)
    if match_name is not None:
        selector.match_name = match_name
    if match_labels is not None:
        selector.match_labels.labels.update(match_labels)
    if namespace is not None:
        selector.namespace = namespace
    rsp.requirements.resources[name].CopyFrom(selector)


def require_schema(rsp: fnv1.RunFunctionResponse, name: str, api_version: str, kind: str) -> None:
    """Ask Crossplane to fetch the OpenAPI schema of a kind into ``req.required_schemas[name]``."""
    rsp.requirements.schemas[name].CopyFrom(fnv1.SchemaSelector(api_version=api_version, kind=kind))


def set_context_key(rsp: fnv1.RunFunctionResponse, key: str, value: Any) -> None:
    """Set pipeline context ``key`` (JSON-like value) for the steps that follow."""
    resource.fill_struct(rsp.context, {key: value})


def _ready(ready: bool | None) -> fnv1.Ready.ValueType:
    if ready is None:
        return fnv1.READY_UNSPECIFIED
    return fnv1.READY_TRUE if ready else fnv1.READY_FALSE


def set_desired_composite_resource(
    rsp: fnv1.RunFunctionResponse,
    composite: Mapping[str, Any],
    *,
    ready: bool | None = None,
) -> None:
    """Replace the desired XR with ``composite``; Crossplane honours only its ``status``.

    ``ready`` overrides readiness of the XR (``None`` lets Crossplane derive it).
    Connection details already on the desired XR are kept.
    """
    xr = rsp.desired.composite
    xr.resource.Clear()
    resource.fill_struct(xr.resource, composite)
    xr.ready = _ready(ready)


def set_desired_composite_status(rsp: fnv1.RunFunctionResponse, status: Mapping[str, Any]) -> None:
    """Replace the desired XR's ``status`` (the only part of the XR Crossplane takes from a function)."""
    resource.fill_struct(rsp.desired.composite.resource, {"status": status})


def set_desired_composite_connection_details(
    rsp: fnv1.RunFunctionResponse,
    details: Mapping[str, bytes | str],
) -> None:
    """Add connection details to the desired XR (str values are UTF-8 encoded).

    Crossplane honours these only for legacy XRs, which write a connection Secret.
    """
    cd = rsp.desired.composite.connection_details
    for k, v in details.items():
        cd[k] = v.encode() if isinstance(v, str) else v


def set_desired_composed_resource(
    rsp: fnv1.RunFunctionResponse,
    name: str,
    composed: Mapping[str, Any],
    *,
    ready: bool | None = None,
) -> None:
    """Set (replace) desired composed resource ``name`` and, optionally, its readiness.

    ``ready=None`` leaves readiness to Crossplane (or a later auto-ready step).
    """
    r = rsp.desired.resources[name]
    if r.resource.fields:
        r.resource.Clear()
    resource.fill_struct(r.resource, composed)
    if ready is not None or r.ready:
        r.ready = _ready(ready)


def set_desired_composed_resources(
    rsp: fnv1.RunFunctionResponse,
    composed: Mapping[str, Mapping[str, Any]],
    *,
    ready: bool | None = None,
) -> None:
    """Set several desired composed resources by composition resource name; others are kept."""
    for name, body in composed.items():
        set_desired_composed_resource(rsp, name, body, ready=ready)


def set_ready(rsp: fnv1.RunFunctionResponse, name: str, ready: bool | None) -> None:
    """Mark desired composed resource ``name`` ready or not (``None`` lets Crossplane decide).

    Raises ``KeyError`` when there is no such desired resource: setting
    readiness would otherwise create an empty one.
    """
    if name not in rsp.desired.resources:
        raise KeyError(f"no desired composed resource named {name!r}")
    rsp.desired.resources[name].ready = _ready(ready)
