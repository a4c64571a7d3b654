"""An embedded Python function: labels every desired composed resource with the XR's region."""

from crossplane.function import request, resource, response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1


class FunctionRunner(grpcv1.FunctionRunnerService):
    async def RunFunction(self, req: fnv1.RunFunctionRequest, _: object) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        region = req.observed.composite.resource["spec"]["region"]
        for name in rsp.desired.resources:
            body = resource.struct_to_dict(rsp.desired.resources[name].resource)
            body.setdefault("metadata", {}).setdefault("labels", {})["acme.io/region"] = region
            resource.update(rsp.desired.resources[name], body)
        return rsp
