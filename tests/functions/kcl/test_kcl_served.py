"""``crossfn function serve kcl``: the built-in served over gRPC keeps answering while a runaway program is stopped."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import AsyncIterator

import grpc
import pytest
from kcl_support import request

from crossfn import functions
from crossfn.functions import kcl
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.sdk import runtime, settings

ENDLESS = "f = lambda n: int -> int { 0 if n == 0 else f(n - 1) + f(n - 1) }\na = f(60)"
QUICK = 'items = [{apiVersion: "v1", kind: "A", metadata.name = "quick"}]'
XR = {"apiVersion": "v1", "kind": "X"}


def test_serve_names_the_builtin() -> None:
    """``serve kcl`` serves function-kcl's newest behaviour."""
    assert functions.BUILTINS["kcl"] == "crossfn.functions.kcl:compose"


@pytest.fixture
async def stub() -> AsyncIterator[fnv1grpc.FunctionRunnerServiceAsyncStub]:
    limits = kcl.Limits(timeout=datetime.timedelta(seconds=2), workers=2)
    server = runtime.FunctionServer(
        kcl.Kcl(limits=limits),
        settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True)),
    )
    port = await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield fnv1grpc.FunctionRunnerServiceStub(channel)
    finally:
        await server.stop(0)
        limits.close()


async def test_served_function_answers_while_a_program_runs_away(
    stub: fnv1grpc.FunctionRunnerServiceAsyncStub,
) -> None:
    runaway = asyncio.ensure_future(stub.RunFunction(request(ENDLESS, xr=XR)))
    await asyncio.sleep(0.05)
    quick = await stub.RunFunction(request(QUICK, xr=XR))
    assert not runaway.done(), "the runaway program should still be running"
    assert (list(quick.results), list(quick.desired.resources)) == ([], ["quick"])
    stopped = await runaway
    assert [(r.severity, r.message) for r in stopped.results] == [
        (
            fnv1.SEVERITY_FATAL,
            "failed to run kcl function pipelines: the KCL program exceeded its time limit of 2s and was stopped",
        )
    ]
