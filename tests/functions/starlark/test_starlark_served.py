"""A served Starlark function keeps answering while a runaway script is being stopped.

Runs the real gRPC server (``crossfn.sdk.runtime.FunctionServer``) on an
ephemeral port and calls it over the wire, as Crossplane would.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import AsyncIterator

import grpc
import pytest
from google.protobuf import json_format

from crossfn.functions import starlark
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.sdk import runtime, settings

# One comparison that never ends: two distinct lists of 2**60 shared leaves each,
# compared element by element inside a single `==`, where the evaluator's
# deadline is never consulted and no memory is allocated. (A large string
# replace, used before, finished inside the time limit on a fast machine.)
RUNAWAY = (
    "def main(req):\n"
    "    a = [1]\n"
    "    b = [1]\n"
    "    for _ in range(60):\n"
    "        a = [a, a]\n"
    "        b = [b, b]\n"
    "    return {'equal': a == b}\n"
)
QUICK = "def main(req):\n    return {'ttl': 3}\n"


def _request(script: str) -> fnv1.RunFunctionRequest:
    return json_format.ParseDict(
        {
            "input": {
                "apiVersion": "starlark.fn.crossfn.io/v1alpha1",
                "kind": "StarlarkScript",
                "script": script,
            }
        },
        fnv1.RunFunctionRequest(),
    )


@pytest.fixture
async def stub() -> AsyncIterator[fnv1grpc.FunctionRunnerServiceAsyncStub]:
    fn = starlark.Starlark(
        timeout=datetime.timedelta(seconds=1), grace=datetime.timedelta(seconds=1), workers=2
    )
    server = runtime.FunctionServer(
        fn, settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True))
    )
    port = await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield fnv1grpc.FunctionRunnerServiceStub(channel)
    finally:
        await server.stop(0)
        fn.close()


async def test_served_function_survives_a_stuck_script(stub: fnv1grpc.FunctionRunnerServiceAsyncStub) -> None:
    """A script stuck inside one builtin call is killed; calls before, during and after it succeed."""
    runaway = asyncio.ensure_future(stub.RunFunction(_request(RUNAWAY)))
    await asyncio.sleep(0.05)
    # No wall-clock bound here (CI machines are loaded): the claim is the order.
    # The quick call is answered while the stuck one is still held, 1 s + 1 s grace.
    quick = await stub.RunFunction(_request(QUICK))
    assert not runaway.done(), "the stuck script should still be running"
    assert (list(quick.results), quick.meta.ttl.seconds) == ([], 3)
    stuck = await runaway
    assert [r.severity for r in stuck.results] == [fnv1.SEVERITY_FATAL]
    assert "its sandbox was stopped" in stuck.results[0].message
    after = await stub.RunFunction(_request(QUICK))
    assert after.meta.ttl.seconds == 3
