"""A function written with the official Python SDK, served by its own runtime in its own process.

Usage: python official_function.py ADDRESS

It adds a Widget named ``official`` whose ``spec.size`` is the XR's. It runs
the official SDK's own runtime, so the controller talks to a function crossfn
had no part in serving.
"""

from __future__ import annotations

import os
import sys

from crossplane.function import resource, response, runtime
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as fnv1grpc

WIDGET_API = os.environ.get("E2E_WIDGET_API", "e2e.crossfn.io/v1")


class Official(fnv1grpc.FunctionRunnerServiceServicer):
    async def RunFunction(self, req: fnv1.RunFunctionRequest, context: object) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        xr = resource.struct_to_dict(req.observed.composite.resource)
        namespace = xr.get("metadata", {}).get("namespace") or "default"
        widget = {
            "apiVersion": WIDGET_API,
            "kind": "Widget",
            "metadata": {"namespace": namespace},
            "spec": {"size": xr.get("spec", {}).get("size", ""), "by": "official-sdk"},
        }
        resource.update(rsp.desired.resources["official"], widget)
        return rsp


if __name__ == "__main__":
    runtime.serve(Official(), sys.argv[1], creds=None, insecure=True)  # type: ignore[arg-type]  # the SDK's own template passes None
