"""Helpers of the function-kcl tests: requests from dicts, running the function, reading the response."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Iterator
from typing import Any

from google.protobuf import json_format

from crossfn.functions import kcl
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response


def request(
    source: str | None = None,
    *,
    target: str | None = None,
    xr: dict[str, Any] | None = None,
    desired_xr: dict[str, Any] | None = None,
    desired: dict[str, dict[str, Any]] | None = None,
    spec: dict[str, Any] | None = None,
    **fields: Any,
) -> fnv1.RunFunctionRequest:
    """A RunFunctionRequest: ``source``/``target``/``spec`` make the KCLInput (none of them: no input)."""
    body: dict[str, Any] = {"meta": {"tag": "t"}, **fields}
    if xr is not None:
        body.setdefault("observed", {})["composite"] = {"resource": xr}
    state: dict[str, Any] = {}
    if desired_xr is not None:
        state["composite"] = {"resource": desired_xr}
    if desired:
        state["resources"] = {name: {"resource": r} for name, r in desired.items()}
    if state:
        body["desired"] = state
    if source is not None or spec is not None:
        s = dict(spec or {})
        if source is not None:
            s["source"] = source
        if target is not None:
            s["target"] = target
        body["input"] = {
            "apiVersion": "krm.kcl.dev/v1alpha1",
            "kind": "KCLInput",
            "metadata": {"name": "basic"},
            "spec": s,
        }
    return json_format.ParseDict(body, fnv1.RunFunctionRequest())


def run(fn: kcl.Kcl, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    rsp = response.to(req, empty_context=False)
    asyncio.run(fn(req, rsp))
    return rsp


def desired(rsp: fnv1.RunFunctionResponse) -> dict[str, Any]:
    """The desired composed resources as ``{name: resource}``, with ``{"ready": ...}`` added when not unspecified."""
    out = {}
    for name, r in rsp.desired.resources.items():
        body: dict[str, Any] = resource.struct_to_dict(r.resource)
        if r.ready:
            body = {"ready": fnv1.Ready.Name(r.ready), **body}
        out[name] = body
    return out


def results(rsp: fnv1.RunFunctionResponse) -> list[tuple[str, str]]:
    return [(fnv1.Severity.Name(r.severity), r.message) for r in rsp.results]


def pool_limits() -> Iterator[kcl.Limits]:
    """Small, quick limits for a test module's fixture: two workers, 5 s, 512 MiB; closed after the module."""
    lim = kcl.Limits(
        timeout=datetime.timedelta(seconds=5), memory_limit=512 << 20, max_output=1 << 20, workers=2
    )
    yield lim
    lim.close()
