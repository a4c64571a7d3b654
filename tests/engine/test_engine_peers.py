"""One pipeline mixing an in-process function, a crossfn-served function and an official-SDK function.

The official-SDK function is served by the SDK's own runtime in a subprocess
(``peers/official_sdk_function.py``) on a free port; the engine reaches it
through :class:`GrpcRunner` exactly as it would reach it in a cluster.
"""

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from crossfn import engine
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response, runtime, settings

PEER = Path(__file__).parent / "peers" / "official_sdk_function.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def official_sdk_target() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(PEER), str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def in_process(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    rsp.context.update({"greeting": "hello from in-process"})
    rsp.desired.resources["from-in-process"].resource.CopyFrom(
        resource.dict_to_struct({"apiVersion": "example.org/v1", "kind": "InProcess"})
    )
    rsp.desired.resources["from-in-process"].ready = fnv1.READY_TRUE


def crossfn_served(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    rsp.desired.resources["from-crossfn-server"].resource.CopyFrom(
        resource.dict_to_struct(
            {"apiVersion": "example.org/v1", "kind": "Served", "spec": {"saw": sorted(req.desired.resources)}}
        )
    )
    rsp.desired.resources["from-crossfn-server"].ready = fnv1.READY_TRUE
    response.normal(rsp, "crossfn server ran")


@pytest.mark.peer
async def test_pipeline_mixes_in_process_crossfn_served_and_official_sdk(official_sdk_target: str) -> None:
    server = runtime.FunctionServer(
        crossfn_served, settings.ServerSettings(listen=settings.ListenSettings("127.0.0.1:0", insecure=True))
    )
    port = await server.start()
    grpc_runner = engine.GrpcRunner(
        {"served": f"127.0.0.1:{port}", "official": official_sdk_target}, timeout=30
    )
    routes: dict[str, engine.FunctionRunner] = {
        "local": engine.InProcessRunner({"local": in_process}),
        "served": grpc_runner,
        "official": grpc_runner,
    }
    runner = engine.build_runner(engine.RoutingRunner(routes))
    xr = {
        "apiVersion": "example.org/v1", "kind": "XMixed",
        "metadata": {"name": "mixed", "uid": "uid-1", "labels": {"crossplane.io/composite": "mixed"}},
    }  # fmt: skip
    steps = [
        engine.PipelineStep("local", "local"),
        engine.PipelineStep("served", "served"),
        engine.PipelineStep("official", "official"),
    ]
    try:
        result = await engine.compose(xr, steps, runner)
    finally:
        await grpc_runner.aclose()
        await server.stop(0)
    result.raise_for_fatal()
    by_name = {c.name: c.resource for c in result.composed}
    assert set(by_name) == {"from-in-process", "from-crossfn-server", "from-official-sdk"}, (
        "each step added its resource"
    )
    assert by_name["from-crossfn-server"]["spec"]["saw"] == ["from-in-process"], (
        "the served step saw the in-process step's output"
    )
    assert by_name["from-official-sdk"]["spec"]["greeting"] == "hello from in-process", (
        "context flows to the official SDK"
    )
    assert [e.message for e in result.events] == [
        "crossfn server ran",
        "official SDK saw 2 desired resources",
    ]
    assert result.ready_condition is not None and result.ready_condition.status == "True", (
        "all three marked ready"
    )
