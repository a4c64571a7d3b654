"""Running crossfn SDK functions in the engine's own process: same messages, no gRPC.

Render and tests run built-in and user Python functions this way: a request
goes to the function's :class:`~crossfn.sdk.function.Handler` as the very
message a server would have decoded, so a function behaves the same served
or in-process, minus the encoding and the network. Names this runner does
not know go to ``fallback`` (typically a :class:`GrpcRunner`), which is how
one pipeline mixes in-process and remote functions.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from crossfn import errors
from crossfn.engine import _metrics, _runner
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import function

__all__ = ["IN_PROCESS_TARGET", "InProcessRunner"]

IN_PROCESS_TARGET = "in-process"
"""The ``grpc_target`` metric label of in-process calls."""


class InProcessRunner:
    """Runs functions by name from a map of function objects (compose functions or servicers)."""

    def __init__(
        self,
        functions: Mapping[str, object],
        *,
        fallback: _runner.FunctionRunner | None = None,
        metrics: _metrics.Metrics | None = None,
    ) -> None:
        # Sync functions run on the loop: the pipeline calls one function at a
        # time, so a thread hop would only add latency.
        self._handlers = {name: function.to_handler(fn, offload_sync=False) for name, fn in functions.items()}
        self._fallback = fallback
        self._metrics = _metrics.guarded(metrics)

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        handler = self._handlers.get(name)
        if handler is not None:
            # The handler may edit its request; the pipeline and the fetching
            # runner reuse theirs, so the function gets its own copy.
            own = fnv1.RunFunctionRequest()
            own.CopyFrom(req)
            self._metrics.run_started(name, IN_PROCESS_TARGET, "")
            start = time.perf_counter()
            rsp = await handler(own)
            severity = _metrics.result_severity([r.severity for r in rsp.results])
            self._metrics.run_finished(
                name, target=IN_PROCESS_TARGET, method="", code="OK", severity=severity,
                seconds=time.perf_counter() - start,
            )  # fmt: skip
            return rsp
        if self._fallback is not None:
            return await self._fallback.run_function(name, req)
        raise errors.FunctionRunError(f"cannot run Function {errors.quote(name)}: no such in-process function")
