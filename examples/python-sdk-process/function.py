"""A composition function written with the official Python SDK (crossplane-function-sdk-python).

It composes one ConfigMap holding the XR's ``spec.greeting`` and reports a
Normal result. crossfn render starts it with the Process runtime as
``python function.py --insecure --address=127.0.0.1:<port>``; the SDK's
standard CLI options parse those flags.
"""

import click
from crossplane.function import cli as sdkcli
from crossplane.function import resource, response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1


class FunctionRunner(grpcv1.FunctionRunnerServiceServicer):
    """Greets: one ConfigMap per XR."""

    async def RunFunction(self, req: fnv1.RunFunctionRequest, _: object) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        xr = resource.struct_to_dict(req.observed.composite.resource)
        greeting = xr.get("spec", {}).get("greeting", "hello")
        resource.update(
            rsp.desired.resources["greeting"],
            {"apiVersion": "v1", "kind": "ConfigMap", "data": {"greeting": greeting}},
        )
        rsp.desired.resources["greeting"].ready = fnv1.READY_TRUE
        response.normal(rsp, f"said {greeting!r}")
        return rsp


@click.command()
@sdkcli.standard_options
def main(**kwargs: object) -> None:
    sdkcli.run(FunctionRunner(), **kwargs)


if __name__ == "__main__":
    main()
