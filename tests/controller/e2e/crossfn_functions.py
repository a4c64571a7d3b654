"""Functions the end-to-end tests serve with ``crossfn function serve`` (each in its own process).

``compose`` adds a Widget named ``crossfn`` whose spec shows what the function
saw: the XR's size, a required ConfigMap's value (read from the live API
server) and whether the required Widget schema (from the API server's
``/openapi/v3``) knows ``spec.size``. ``slow`` answers after 30 s, for the
timeout fault; ``delayed`` after 2 s, so calls are in flight when a test freezes the controller; ``hang``
never answers; ``noisy`` warns with a timestamp and loops its XR.
"""

from __future__ import annotations

import asyncio
import os
import time

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, response

WIDGET_API = os.environ.get("E2E_WIDGET_API", "e2e.crossfn.io/v1")


def compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    xr = request.get_observed_composite_resource(req)
    namespace = xr.get("metadata", {}).get("namespace") or "default"
    response.require_resources(rsp, "input", "v1", "ConfigMap", match_name="e2e-input", namespace=namespace)
    response.require_schema(rsp, "widget", WIDGET_API, "Widget")
    found = request.get_required_resource(req, "input")
    schema = request.get_required_schema(req, "widget") or {}
    spec_props = schema.get("properties", {}).get("spec", {}).get("properties", {})
    widget = {
        "apiVersion": WIDGET_API,
        "kind": "Widget",
        "metadata": {"namespace": namespace},
        "spec": {
            "size": xr.get("spec", {}).get("size", ""),
            "input": (found or {}).get("data", {}).get("value", "missing"),
            "schemaKnowsSize": "size" in spec_props,
        },
    }
    response.set_desired_composed_resource(rsp, "crossfn", widget)


async def slow(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    await asyncio.sleep(30)


async def delayed(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Answer after ``E2E_DELAY`` seconds (default 2), changing nothing: calls stay in flight a while."""
    await asyncio.sleep(float(os.environ.get("E2E_DELAY", "2")))


async def hang(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Never answer: the call holds until the controller's timeout or cancellation."""
    await asyncio.Event().wait()


def noisy(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """A timestamped warning on every call, and the timestamp in the XR's status: each status write
    changes the XR, which is reconciled again at once, so the XR loops and warns as fast as it can."""
    now = f"{time.time():.6f}"
    response.warning(rsp, f"something is off at {now}")
    response.set_desired_composite_status(rsp, {"seen": now})
