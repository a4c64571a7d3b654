"""``option("params")`` and the other top-level arguments function-kcl gives a KCL program.

``option("params")`` holds the step input's ``spec.params`` and, over them,
what the request carries, shaped as function-sdk-go's types marshal to JSON:

==================== ================================================================
``oxr``              the observed XR
``dxr``              the desired XR, with the observed XR's apiVersion and kind
``ocds``             observed composed resources: ``{name: {"Resource": ..., "ConnectionDetails": {key: base64}}}``
``dcds``             desired composed resources: ``{name: {"Resource": ..., "Ready": "Unspecified|True|False"}}``
``ctx``              the pipeline context
``extraResources``   (v0.10.1) ``{name: [{"Resource": ...}]}`` from the request's extra resources
``requiredResources`` (v0.12.2) the same, from the request's required resources
==================== ================================================================

Go marshals maps with their keys sorted, and KCL keeps the order it is given
(it shows in the output of a program that iterates a map), so every map here
is sorted the same way. ``option("resource_list")`` is the KRM ResourceList
whose ``functionConfig`` is the input (as ``KCLRun``); ``option("items")`` is
empty. ``option("env")`` and ``option("PATH")`` are empty: upstream passes its
process environment, which a built-in does not hand to user code.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from crossfn.functions._releases.kcl import Behaviour
from crossfn.functions.kcl import _input
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["arguments", "params"]

_READY = {fnv1.READY_UNSPECIFIED: "Unspecified", fnv1.READY_TRUE: "True", fnv1.READY_FALSE: "False"}


def _dict(s: Any) -> dict[str, Any]:
    return resource.struct_to_dict(s)


def _details(details: Mapping[str, bytes]) -> dict[str, str]:
    return {k: base64.b64encode(v).decode("ascii") for k, v in details.items()}


def _items(selected: Mapping[str, fnv1.Resources]) -> dict[str, list[dict[str, Any]]]:
    return {name: [{"Resource": _dict(i.resource)} for i in rs.items] for name, rs in selected.items()}


def request_params(req: fnv1.RunFunctionRequest, behaviour: Behaviour) -> dict[str, Any]:
    """What the request puts into ``option("params")`` (the keys of the table above)."""
    oxr = _dict(req.observed.composite.resource)
    dxr = _dict(req.desired.composite.resource)
    dxr["apiVersion"] = oxr.get("apiVersion", "")
    dxr["kind"] = oxr.get("kind", "")
    out: dict[str, Any] = {
        "oxr": oxr,
        "dxr": dxr,
        "dcds": {
            name: {"Resource": _dict(r.resource), "Ready": _READY.get(r.ready, "Unspecified")}
            for name, r in req.desired.resources.items()
        },
        "ocds": {
            name: {"Resource": _dict(r.resource), "ConnectionDetails": _details(r.connection_details)}
            for name, r in req.observed.resources.items()
        },
        "ctx": _dict(req.context),
    }
    if behaviour.extra_resources:
        out["extraResources"] = _items(req.extra_resources)
    if behaviour.required_resources:
        out["requiredResources"] = _items(req.required_resources)
    return out


def params(inp: _input.Input, from_request: Mapping[str, Any]) -> dict[str, Any]:
    """``option("params")``: the input's params with the request's over them."""
    return {**inp.params, **from_request}


def _function_config(inp: _input.Input, all_params: Mapping[str, Any]) -> dict[str, Any]:
    spec = dict(inp.raw.get("spec") or {})
    spec["source"] = inp.source
    spec["target"] = inp.target
    spec["params"] = dict(all_params)
    return {**inp.raw, "apiVersion": "krm.kcl.dev/v1alpha1", "kind": "KCLRun", "spec": spec}


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def arguments(
    inp: _input.Input, all_params: Mapping[str, Any], *, user_arguments: bool
) -> list[tuple[str, str]]:
    """The program's top-level arguments (``kcl -D name=value``), in krm-kcl's order: the user's first."""
    out: list[tuple[str, str]] = []
    if user_arguments:
        for arg in inp.config.arguments:
            name, _, value = arg.partition("=")
            out.append((name, value))
    resource_list = {
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [],
        "functionConfig": _function_config(inp, all_params),
    }
    out += [
        ("resource_list", _json(resource_list)),
        ("items", "[]"),
        ("params", _json(all_params)),
        ("PATH", ""),
        ("env", "{}"),
    ]
    return out
