"""Shared builders for the patch-and-transform tests: requests and responses as protobuf-JSON dicts."""

from __future__ import annotations

import base64
from typing import Any

from google.protobuf import json_format

from crossfn.functions import patch_and_transform
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

XR = {"apiVersion": "example.org/v1", "kind": "XR"}
CD = {"apiVersion": "example.org/v1", "kind": "CD"}
ENV_GVK = {"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment"}
ENV_KEY = "apiextensions.crossplane.io/environment"
TTL = {"ttl": "60s"}


def inp(**fields: Any) -> dict[str, Any]:
    """A ``Resources`` input with the given fields."""
    return {"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", **fields}


def b64(s: str) -> str:
    """Bytes fields in protobuf JSON are base64."""
    return base64.b64encode(s.encode()).decode()


def env_context(**data: Any) -> dict[str, Any]:
    """A context holding an environment with the default GVK plus ``data``."""
    return {ENV_KEY: {**ENV_GVK, **data}}


def fatal(message: str) -> dict[str, Any]:
    return {"severity": "SEVERITY_FATAL", "message": message, "target": "TARGET_COMPOSITE"}


def warning(message: str) -> dict[str, Any]:
    return {"severity": "SEVERITY_WARNING", "message": message, "target": "TARGET_COMPOSITE"}


def _prune(v: Any) -> Any:
    """Drop empty containers, so "absent" and "present but empty" compare equal, as in Go's cmp with protocmp."""
    if isinstance(v, dict):
        out = {k: _prune(x) for k, x in v.items()}
        return {k: x for k, x in out.items() if x not in ({}, [], None)}
    if isinstance(v, list):
        return [_prune(x) for x in v]
    return v


def run(req: dict[str, Any]) -> dict[str, Any]:
    """Run compose on a request given as protobuf JSON; return the response as pruned protobuf JSON."""
    msg = json_format.ParseDict(req, fnv1.RunFunctionRequest())
    rsp = response.to(msg)
    patch_and_transform.compose(msg, rsp)
    pruned: dict[str, Any] = _prune(json_format.MessageToDict(rsp))
    return pruned


def want(rsp: dict[str, Any]) -> dict[str, Any]:
    """Normalise an expected response the same way :func:`run` normalises actual ones."""
    pruned: dict[str, Any] = _prune(
        json_format.MessageToDict(json_format.ParseDict(rsp, fnv1.RunFunctionResponse()))
    )
    return pruned
