"""The controller runs a function-kcl Function on the built-in, in its own process: no gRPC, no Deployment."""

from __future__ import annotations

from google.protobuf import json_format

from crossfn.controller.packages import _functions
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

from .test_functions import FakeCache, function

SOURCE = 'items = [{apiVersion: "v1", kind: "ConfigMap", metadata.name = option("params").oxr.metadata.name}]'


async def test_function_kcl_runs_the_builtin_in_process() -> None:
    """A Function of function-kcl v0.11.2 is routed to the built-in behaving as v0.11.2, and it composes."""
    pkg = "xpkg.upbound.io/crossplane-contrib/function-kcl:v0.11.2"
    fns = FakeCache(function("kcl", pkg))
    assert _functions.route(fns.get("kcl")) == _functions.Route("builtin", "kcl@v0.11.2")
    transport = _functions.FunctionTransport(fns, FakeCache())
    req = json_format.ParseDict(
        {
            "observed": {
                "composite": {"resource": {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "cm"}}}
            },
            "input": {"apiVersion": "krm.kcl.dev/v1alpha1", "kind": "KCLInput", "spec": {"source": SOURCE}},
        },
        fnv1.RunFunctionRequest(),
    )
    rsp = await transport.run_function("kcl", req)
    await transport.aclose()
    assert list(rsp.results) == []
    assert resource.struct_to_dict(rsp.desired.resources["cm"].resource) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cm"},
    }
