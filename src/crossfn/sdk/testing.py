"""Test a composition function in-process: build requests, run, compare as dicts.

A function test reads as three lines::

    req = testing.request_from_yaml(REQUEST_YAML)
    rsp = testing.run(compose, req)
    testing.assert_response(rsp, WANT_YAML)

:func:`build_request` builds a composition function's request from dicts;
:func:`build_operation_request` an operation function's (no observed state, the
watched resource of a WatchOperation under its requirement name).

Requests and responses are written in the protobuf JSON mapping (camelCase
field names, the same shape ``crossplane render`` and the Go SDK's tests use),
as YAML or as dicts. :func:`run` goes through the same adapter the server uses
(:func:`crossfn.sdk.function.to_handler`), so exceptions become a Fatal result
here too. :func:`assert_response` fails with a unified diff of the two sides
as YAML, with whole numbers printed as integers.

The pytest fixture ``crossfn_function`` (registered by the ``crossfn`` pytest
plugin) wraps these helpers for tests that prefer a fixture.
"""

from __future__ import annotations

import asyncio
import difflib
import pathlib
from collections.abc import Iterable, Mapping
from typing import Any

import yaml
from google.protobuf import json_format, message

from crossfn import errors
from crossfn.gocompat import yaml_loader
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import function, request, resource

__all__ = [
    "arun",
    "assert_response",
    "build_operation_request",
    "build_request",
    "diff",
    "request_from_dict",
    "request_from_yaml",
    "response_from_dict",
    "run",
    "to_dict",
]


def _parse(data: object, into: message.Message, what: str) -> None:
    if not isinstance(data, Mapping):
        raise errors.InputError(f"cannot parse {what}: want a mapping, got {type(data).__name__}")
    try:
        json_format.ParseDict(dict(data), into)
    except json_format.ParseError as exc:
        raise errors.InputError(f"cannot parse {what}: {exc}") from exc


def request_from_dict(data: Mapping[str, Any]) -> fnv1.RunFunctionRequest:
    """Build a request from its protobuf-JSON form (``observed.composite.resource``, ``input``, ...)."""
    req = fnv1.RunFunctionRequest()
    _parse(data, req, "RunFunctionRequest")
    return req


def request_from_yaml(source: str | pathlib.Path) -> fnv1.RunFunctionRequest:
    """Build a request from YAML text, or from a file when given a ``Path``."""
    what = str(source) if isinstance(source, pathlib.Path) else "request YAML"
    try:
        text = source.read_text() if isinstance(source, pathlib.Path) else source
        docs = yaml_loader.load_all(text, as_json=True)
        data = docs[0] if docs else None
    except (OSError, errors.InputError) as exc:
        raise errors.InputError(f"cannot read {what}: {exc}") from exc
    return request_from_dict(data or {})


def response_from_dict(data: Mapping[str, Any]) -> fnv1.RunFunctionResponse:
    """Build a response from its protobuf-JSON form."""
    rsp = fnv1.RunFunctionResponse()
    _parse(data, rsp, "RunFunctionResponse")
    return rsp


def _resource(body: Mapping[str, Any] | None) -> fnv1.Resource:
    r = fnv1.Resource()
    if body is not None:
        resource.fill_struct(r.resource, body)
    return r


def build_request(
    *,
    tag: str = "",
    observed_composite: Mapping[str, Any] | None = None,
    observed_resources: Mapping[str, Mapping[str, Any]] | None = None,
    desired_composite: Mapping[str, Any] | None = None,
    desired_resources: Mapping[str, Mapping[str, Any]] | None = None,
    input: Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    required_resources: Mapping[str, Iterable[Mapping[str, Any]]] | None = None,
    required_schemas: Mapping[str, Mapping[str, Any] | None] | None = None,
    credentials: Mapping[str, Mapping[str, bytes]] | None = None,
    capabilities: Iterable[fnv1.Capability.ValueType] = (),
) -> fnv1.RunFunctionRequest:
    """Build a request from plain dicts, as Crossplane would send it.

    A ``required_resources`` entry with no items and a ``required_schemas``
    entry of ``None`` are "resolved, nothing found", as on the wire.
    """
    req = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag=tag, capabilities=list(capabilities)))
    req.observed.composite.CopyFrom(_resource(observed_composite))
    for name, body in (observed_resources or {}).items():
        req.observed.resources[name].CopyFrom(_resource(body))
    if desired_composite is not None:
        req.desired.composite.CopyFrom(_resource(desired_composite))
    for name, body in (desired_resources or {}).items():
        req.desired.resources[name].CopyFrom(_resource(body))
    if context is not None:
        req.context.CopyFrom(resource.dict_to_struct(context))
    _fill(req, input, required_resources or {}, required_schemas, credentials)
    return req


def _fill(
    req: fnv1.RunFunctionRequest,
    input: Mapping[str, Any] | None,
    required_resources: Mapping[str, Iterable[Mapping[str, Any]]],
    required_schemas: Mapping[str, Mapping[str, Any] | None] | None,
    credentials: Mapping[str, Mapping[str, bytes]] | None,
) -> None:
    """The parts of a request every function gets: input, required resources and schemas, credentials."""
    if input is not None:
        req.input.CopyFrom(resource.dict_to_struct(input))
    for name, items in required_resources.items():
        entry = req.required_resources[name]
        entry.SetInParent()
        for item in items:
            entry.items.add().CopyFrom(_resource(item))
    for name, schema in (required_schemas or {}).items():
        req.required_schemas[name].SetInParent()
        if schema is not None:
            req.required_schemas[name].openapi_v3.CopyFrom(resource.dict_to_struct(schema))
    for name, data in (credentials or {}).items():
        req.credentials[name].credential_data.data.update(data)


def build_operation_request(
    *,
    tag: str = "",
    input: Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    desired_resources: Mapping[str, Mapping[str, Any]] | None = None,
    required_resources: Mapping[str, Iterable[Mapping[str, Any]]] | None = None,
    watched_resource: Mapping[str, Any] | None = None,
    required_schemas: Mapping[str, Mapping[str, Any] | None] | None = None,
    credentials: Mapping[str, Mapping[str, bytes]] | None = None,
    capabilities: Iterable[fnv1.Capability.ValueType] = (),
) -> fnv1.RunFunctionRequest:
    """Build a request as Crossplane sends it to an operation function (a step of an Operation).

    An Operation has no composite, so there is no observed state at all; ``desired`` and
    ``context`` are present, empty unless given, as for the first step of a pipeline (later steps
    get what the step before them returned: pass ``desired_resources`` and ``context``).
    ``watched_resource`` is the resource whose change made a WatchOperation create the Operation:
    it arrives as the ``ops.crossplane.io/watched-resource`` requirement
    (:func:`crossfn.sdk.request.get_watched_resource` reads it). The other arguments are
    :func:`build_request`'s.
    """
    req = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag=tag, capabilities=list(capabilities)))
    req.desired.SetInParent()
    for name, body in (desired_resources or {}).items():
        req.desired.resources[name].CopyFrom(_resource(body))
    req.context.CopyFrom(resource.dict_to_struct(context or {}))
    required = dict(required_resources or {})
    if watched_resource is not None:
        required[request.WATCHED_RESOURCE] = [watched_resource]
    _fill(req, input, required, required_schemas, credentials)
    return req


async def arun(fn: object, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    """Run ``fn`` (compose function or servicer) on ``req`` inside a running event loop."""
    return await function.to_handler(fn, offload_sync=False)(req)


def run(fn: object, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    """Run ``fn`` on ``req`` from sync code (starts an event loop; use :func:`arun` inside one)."""
    return asyncio.run(arun(fn, req))


def _integers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _integers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integers(v) for v in value]
    return value


def to_dict(msg: message.Message | Mapping[str, Any] | str) -> dict[str, Any]:
    """Give a message, a dict or YAML text as a comparable dict (protobuf JSON, whole numbers as int)."""
    if isinstance(msg, str):
        docs = yaml_loader.load_all(msg, as_json=True)
        data = (docs[0] if docs else None) or {}
    elif isinstance(msg, message.Message):
        data = json_format.MessageToDict(msg)
    else:
        data = dict(msg)
    out: dict[str, Any] = _integers(data)
    return out


def _drop(d: dict[str, Any], path: str) -> None:
    head, _, rest = path.partition(".")
    if head not in d:
        return
    if not rest:
        del d[head]
        return
    if isinstance(d[head], dict):
        _drop(d[head], rest)


def diff(want: Any, got: Any, *, ignore: Iterable[str] = ()) -> str:
    """A unified diff (``-want +got``) of two messages/dicts/YAML texts; empty when they are equal.

    ``ignore`` lists dotted protobuf-JSON paths to leave out, e.g. ``meta.ttl``.
    """
    sides = [to_dict(want), to_dict(got)]
    for path in ignore:
        for side in sides:
            _drop(side, path)
    if sides[0] == sides[1]:
        return ""
    a, b = (yaml.safe_dump(s, sort_keys=True).splitlines() for s in sides)
    return "\n".join(difflib.unified_diff(a, b, "want", "got", lineterm=""))


def assert_response(got: Any, want: Any, *, ignore: Iterable[str] = ()) -> None:
    """Fail with a readable ``-want +got`` diff unless ``got`` equals ``want``."""
    d = diff(want, got, ignore=ignore)
    if d:
        raise AssertionError(f"response differs (-want +got):\n{d}")
