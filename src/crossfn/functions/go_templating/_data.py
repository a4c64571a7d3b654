"""The data a template runs on: the request as ``protojson`` writes it, read back as Kubernetes' JSON reads it.

Upstream marshals the whole ``RunFunctionRequest`` with ``protojson`` and
decodes it with ``k8s.io/apimachinery/pkg/util/json`` into a
``map[string]any``. So keys are the proto's JSON names (``observed``,
``connectionDetails``, ``extraResources``), bytes are base64 strings, enums
their names (``READY_TRUE``), fields at their zero value and empty maps are
absent, and a number is an ``int64`` when it is whole and fits (protojson
writes whole numbers below 1e21 without an exponent), else a ``float64``.

Only the fields the release's function-sdk-go knew reach the template; later
ones arrive as unknown fields and are not marshalled.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from crossfn.functions.go_templating._release import Release
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["request_map"]


def _b64(data: Mapping[str, bytes]) -> dict[str, str]:
    return {k: base64.b64encode(v).decode("ascii") for k, v in data.items()}


def _resource(r: fnv1.Resource) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if r.HasField("resource"):
        out["resource"] = resource.struct_to_dict(r.resource)
    if r.connection_details:
        out["connectionDetails"] = _b64(r.connection_details)
    if r.ready != fnv1.READY_UNSPECIFIED:
        out["ready"] = fnv1.Ready.Name(r.ready)
    return out


def _state(s: fnv1.State) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if s.HasField("composite"):
        out["composite"] = _resource(s.composite)
    if s.resources:
        out["resources"] = {name: _resource(r) for name, r in s.resources.items()}
    return out


def _resources(m: Mapping[str, fnv1.Resources]) -> dict[str, Any]:
    return {name: {"items": [_resource(i) for i in rs.items]} if rs.items else {} for name, rs in m.items()}


def request_map(req: fnv1.RunFunctionRequest, r: Release) -> dict[str, Any]:
    """The template data for ``req`` as release ``r`` builds it (``convertToMap``)."""
    out: dict[str, Any] = {}
    if req.HasField("meta"):
        meta: dict[str, Any] = {}
        if req.meta.tag:
            meta["tag"] = req.meta.tag
        if r.has_required_resources and req.meta.capabilities:
            meta["capabilities"] = [fnv1.Capability.Name(c) for c in req.meta.capabilities]
        out["meta"] = meta
    if req.HasField("observed"):
        out["observed"] = _state(req.observed)
    if req.HasField("desired"):
        out["desired"] = _state(req.desired)
    if req.HasField("input"):
        out["input"] = resource.struct_to_dict(req.input)
    if req.HasField("context"):
        out["context"] = resource.struct_to_dict(req.context)
    if r.has_extra_resources and req.extra_resources:
        out["extraResources"] = _resources(req.extra_resources)
    if r.has_credentials and req.credentials:
        out["credentials"] = {
            name: {"credentialData": {"data": _b64(c.credential_data.data)} if c.credential_data.data else {}}
            if c.HasField("credential_data")
            else {}
            for name, c in req.credentials.items()
        }
    if r.has_required_resources:
        if req.required_resources:
            out["requiredResources"] = _resources(req.required_resources)
        if req.required_schemas:
            out["requiredSchemas"] = {
                name: {"openapiV3": resource.struct_to_dict(s.openapi_v3)} if s.HasField("openapi_v3") else {}
                for name, s in req.required_schemas.items()
            }
    if r.extra_resources_prefer_required and "extraResources" not in out and "requiredResources" in out:
        out["extraResources"] = out["requiredResources"]
    return out
