"""A Crossplane composition function."""

import grpc
import pydantic

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as grpcv1
from crossfn.sdk import logging, resource, response


class Bucket(pydantic.BaseModel):
    """A composed resource as a pydantic model, as datamodel-code-generator writes them."""

    apiVersion: str = "s3.aws.upbound.io/v1beta2"  # noqa: N815 # the Kubernetes name
    kind: str = "Bucket"
    metadata: dict | None = None
    spec: dict | None = None


class FunctionRunner(grpcv1.FunctionRunnerServiceServicer):
    """A FunctionRunner handles gRPC RunFunctionRequests."""

    def __init__(self):
        """Create a new FunctionRunner."""
        self.log = logging.get_logger()

    async def RunFunction(
        self, req: fnv1.RunFunctionRequest, _: grpc.aio.ServicerContext
    ) -> fnv1.RunFunctionResponse:
        """Run the function."""
        log = self.log.bind(tag=req.meta.tag)
        log.info("Running function")

        rsp = response.to(req)

        version = req.input["version"]
        region = req.observed.composite.resource["spec"]["region"]
        xr = resource.struct_to_dict(req.observed.composite.resource)

        resource.update(
            rsp.desired.resources["bucket"],
            {
                "apiVersion": f"s3.aws.upbound.io/{version}",
                "kind": "Bucket",
                "spec": {"forProvider": {"region": region}},
            },
        )
        replica = resource.child_name(xr["metadata"]["name"], "replica", sep="")
        resource.update(
            rsp.desired.resources["replica"],
            Bucket(metadata={"name": replica}, spec={"forProvider": {"region": region}}),
        )
        ready = resource.get_condition(req.observed.resources.get("bucket"), "Ready")
        response.set_conditions(
            rsp, resource.Condition(typ="BucketReady", status=ready.status, reason="Observed")
        )

        response.normal(rsp, f"I was run with input {version}!")
        log.info("composed", count=len(rsp.desired.resources), region=region)
        log.debug("desired", resources=sorted(rsp.desired.resources))

        return rsp
