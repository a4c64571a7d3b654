"""A composition function built with the official Python SDK, served in its own process.

The engine tests start this file with ``subprocess`` and reach it over gRPC,
served by the official SDK's own runtime, as a cluster would reach it. It composes one resource named after what the
previous step put in the context, marks it ready, and says hello.

Usage: ``python official_sdk_function.py PORT``
"""

import sys

import grpc
from crossplane.function import resource, response, runtime
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1


class Function(grpcv1.FunctionRunnerServiceServicer):
    async def RunFunction(
        self, req: fnv1.RunFunctionRequest, _: grpc.aio.ServicerContext[object, object]
    ) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        greeting = req.context["greeting"] if "greeting" in req.context else "nobody"  # noqa: SIM401 -- protobuf Struct has no .get()
        resource.update(
            rsp.desired.resources["from-official-sdk"],
            {"apiVersion": "example.org/v1", "kind": "Official", "spec": {"greeting": greeting}},
        )
        rsp.desired.resources["from-official-sdk"].ready = fnv1.READY_TRUE
        response.normal(rsp, f"official SDK saw {len(req.desired.resources)} desired resources")
        return rsp


if __name__ == "__main__":
    runtime.serve(Function(), f"127.0.0.1:{sys.argv[1]}", creds=None, insecure=True)  # type: ignore[arg-type]  # the SDK's own template passes None
