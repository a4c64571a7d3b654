"""Functions the comptest suite runs in-process: one never answers in time, one returns a fatal result."""

from __future__ import annotations

import asyncio

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response


async def sleepy(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Outlive any test's timeoutSeconds; the render's timeout must cancel it."""
    del req, rsp
    await asyncio.sleep(3600)


def fatal(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Fail the pipeline the way a function reports a user error."""
    del req
    response.fatal(rsp, "the bucket region is not allowed")


def runaway(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Loop in Python forever, as a runaway built-in did: only an interrupt stops it."""
    del req, rsp
    while True:
        pass
