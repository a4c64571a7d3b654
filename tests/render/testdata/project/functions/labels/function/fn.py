"""An embedded Python function: labels every desired composed resource with the XR's region."""

from typing import Any

from crossplane.function import resource, response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1


class FunctionRunner(grpcv1.FunctionRunnerServiceServicer):
    async def RunFunction(self, req: fnv1.RunFunctionRequest, _: Any) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        region = resource.struct_to_dict(req.observed.composite.resource)["spec"]["region"]
        for name in rsp.desired.resources:
            body = resource.struct_to_dict(rsp.desired.resources[name].resource)
            body.setdefault("metadata", {}).setdefault("labels", {})["acme.io/region"] = region
            resource.update(rsp.desired.resources[name], body)
        return rsp
