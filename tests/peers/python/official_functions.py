"""Functions written against the official Python SDK only, as its template writes them.

crossfn runs them unchanged: in-process (render's InProcess runtime, ``crossfn
test``) and under ``crossfn function serve official_functions:NAME``. The
last few cannot be served; crossfn must refuse them when it loads them.
"""

from __future__ import annotations

from crossplane.function import request, resource, response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from crossplane.function.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossplane.function.proto.v1beta1 import run_function_pb2_grpc as grpcv1beta1


def _greet(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse, how: str) -> None:
    xr = resource.struct_to_dict(req.observed.composite.resource)
    greeting = xr.get("spec", {}).get("greeting", "hello")
    name = resource.child_name(xr["metadata"]["name"], "greeting")
    resource.update(
        rsp.desired.resources["greeting"],
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"greeting": greeting}},
    )
    rsp.desired.resources["greeting"].ready = fnv1.READY_TRUE
    capabilities = "capabilities" if request.advertises_capabilities(req) else "no capabilities"
    response.normal(rsp, f"{how} said {greeting!r} ({capabilities})")


class FunctionRunner(grpcv1.FunctionRunnerServiceServicer):
    """The template's shape: a servicer class with an async RunFunction and an argument-free __init__."""

    def __init__(self) -> None:
        self.how = "async class"

    async def RunFunction(self, req: fnv1.RunFunctionRequest, _: object) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        _greet(req, rsp, self.how)
        return rsp


class SyncFunctionRunner(grpcv1.FunctionRunnerServiceServicer):
    """A sync RunFunction."""

    def RunFunction(self, req: fnv1.RunFunctionRequest, _: object) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        _greet(req, rsp, "sync class")
        return rsp


runner = FunctionRunner()
runner.how = "instance"


class BetaFunctionRunner(grpcv1beta1.FunctionRunnerServiceServicer):
    """A v1beta1 servicer: it gets and returns v1beta1 messages."""

    def RunFunction(self, req: fnv1beta1.RunFunctionRequest, _: object) -> fnv1beta1.RunFunctionResponse:
        assert type(req) is fnv1beta1.RunFunctionRequest, type(req)
        rsp = fnv1beta1.RunFunctionResponse()
        rsp.meta.tag = req.meta.tag
        rsp.desired.CopyFrom(req.desired)
        rsp.results.add(severity=fnv1beta1.SEVERITY_NORMAL, message="v1beta1 servicer")
        return rsp


class NeedsArgs(grpcv1.FunctionRunnerServiceServicer):
    """Cannot be created without arguments."""

    def __init__(self, greeting: str) -> None:
        self.greeting = greeting


class OneArgument(grpcv1.FunctionRunnerServiceServicer):
    """A RunFunction that cannot take the context."""

    def RunFunction(self, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:  # type: ignore[override]
        return response.to(req)


not_a_function = 42
