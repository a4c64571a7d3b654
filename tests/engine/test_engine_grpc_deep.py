"""Deep objects cross the function protocol both ways: engine client to SDK server and back (issue 15)."""

from __future__ import annotations

from typing import Any

from crossfn import engine
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, runtime, settings

_INSECURE = settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True))


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": True}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def _compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Echo the XR's spec back, and compose a resource nested 40 objects deep."""
    xr = resource.struct_to_dict(req.observed.composite.resource)
    rsp.desired.composite.resource.update({"spec": xr["spec"]})
    resource.update(rsp.desired.resources["deep"], {"spec": _nested(40)})


async def test_deep_xr_and_deep_response_cross_grpc() -> None:
    server = runtime.FunctionServer(_compose, _INSECURE)
    port = await server.start()
    runner = engine.GrpcRunner({"fn": f"127.0.0.1:{port}"}, timeout=10)
    req = fnv1.RunFunctionRequest()
    resource.update(req.observed.composite, {"apiVersion": "x/v1", "kind": "X", "spec": _nested(100)})
    try:
        rsp = await runner.run_function("fn", req)
    finally:
        await runner.aclose()
        await server.stop(0)
    assert list(rsp.results) == [], "the server decoded a request nested 100 objects deep"
    assert resource.struct_to_dict(rsp.desired.composite.resource)["spec"] == _nested(100), (
        "the XR came back whole"
    )
    got = resource.struct_to_dict(rsp.desired.resources["deep"].resource)
    assert got == {"spec": _nested(40)}, "the client decoded a response nested 40 objects deep"
