"""Running crossfn SDK functions in the engine's own process: same messages, no gRPC.

Render and tests run built-in and user Python functions this way: a request
goes to the function's :class:`~crossfn.sdk.function.Handler` as the very
message a server would have decoded, so a function behaves the same served
or in-process, minus the encoding and the network. One pipeline mixes
in-process and remote functions through a :class:`~crossfn.engine.RoutingRunner`
over this runner and a :class:`GrpcRunner`.

Functions run off the caller's event loop, on one worker thread, so that
``render --timeout``, a test's ``timeoutSeconds`` and the controller's function
deadlines hold for them too: a function that never returns (a runaway built-in,
a user's loop) cannot block the timeout. When the caller gives up, the function
is interrupted at its next Python bytecode and its worker is abandoned (a daemon
thread, which cannot keep the process alive); the next call gets a fresh one.
The pipeline calls one step at a time, so one worker serves them all. A sync
function (every built-in) is called straight from the worker thread; only an
async one runs on the worker's own event loop, whose turns would otherwise cost
a sync call about as much as the hop itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.engine import _metrics
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import _calls, function

__all__ = ["IN_PROCESS_TARGET", "InProcessRunner"]

IN_PROCESS_TARGET = "in-process"
"""The ``grpc_target`` metric label of in-process calls."""


class InProcessRunner:
    """Runs functions by name from a map of function objects (compose functions, servicers or servicer classes)."""

    def __init__(
        self,
        functions: Mapping[str, object],
        *,
        metrics: _metrics.Metrics | None = None,
    ) -> None:
        self._handlers = {name: _call_on_worker(fn) for name, fn in functions.items()}
        self._metrics = _metrics.guarded(metrics)
        self._idle: list[_Worker] = []

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        handler = self._handlers.get(name)
        if handler is not None:
            # The handler may edit its request; the pipeline and the fetching
            # runner reuse theirs, so the function gets its own copy.
            own = fnv1.RunFunctionRequest()
            own.CopyFrom(req)
            self._metrics.run_started(name, IN_PROCESS_TARGET, "")
            start = time.perf_counter()
            rsp = await self._off_loop(handler, own)
            severity = _metrics.result_severity([r.severity for r in rsp.results])
            self._metrics.run_finished(
                name, target=IN_PROCESS_TARGET, method="", code="OK", severity=severity,
                seconds=time.perf_counter() - start,
            )  # fmt: skip
            return rsp
        raise errors.FunctionRunError(
            f"cannot run Function {errors.quote(name)}: no such in-process function"
        )

    async def _off_loop(self, handler: _OnWorker, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        # An idle worker if there is one, else a new one: concurrent calls (several
        # pipelines sharing this runner) still run side by side.
        while True:
            worker = self._idle.pop() if self._idle else _Worker()
            try:
                rsp: fnv1.RunFunctionResponse = await worker.call(lambda loop: handler(req, loop))
            except _WorkerEndedError:
                continue  # it ended, idle, just before: take another
            finally:
                if worker.usable:
                    self._idle.append(worker)
            return rsp


class _WorkerEndedError(Exception):
    """The idle worker picked ended before it could take the call."""


_OnWorker = Callable[[fnv1.RunFunctionRequest, asyncio.AbstractEventLoop], fnv1.RunFunctionResponse]
"""A function as a worker thread calls it: the request and the worker's own event loop, the response."""


def _call_on_worker(fn: object) -> _OnWorker:
    """``fn`` called from a worker thread: a sync function directly, an async one on the worker's loop."""
    if function.is_async(fn):
        handler = function.to_handler(fn, offload_sync=False)

        def on_loop(
            req: fnv1.RunFunctionRequest, loop: asyncio.AbstractEventLoop
        ) -> fnv1.RunFunctionResponse:
            return loop.run_until_complete(handler(req))

        return on_loop
    sync = function.to_sync_handler(fn)
    return lambda req, loop: sync(req)


_Job = tuple[Callable[[asyncio.AbstractEventLoop], Any], Callable[[Any, BaseException | None], None]]

_IDLE_SECONDS = 5.0
"""A worker with nothing to do for this long ends its thread; the next call starts another."""


class _Worker:
    """A daemon thread with its own event loop that runs one call at a time and can be abandoned.

    A worker ends by itself once idle for :data:`_IDLE_SECONDS`, so runners
    that are done with (one per render) leave no threads behind.
    Queuing a call and the idle exit agree under a lock, so that a call is
    never handed to a worker that has just decided to end.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self.usable = True
        # Made here, not in the thread: a caller that gives up interrupts the thread, and an interrupt
        # landing inside new_event_loop() left a half-made loop whose __del__ printed a traceback.
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="crossfn-in-process", daemon=True)
        self._thread.start()

    def _submit(self, job: _Job) -> bool:
        """Queue ``job``, unless this worker has ended (then False)."""
        with self._lock:
            if self.usable:
                self._jobs.put(job)
            return self.usable

    def _next(self) -> _Job | None:
        while True:
            try:
                return self._jobs.get(timeout=_IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():
                        self.usable = False
                        return None

    def _serve(self) -> None:
        loop = self._loop
        try:
            try:
                while (job := self._next()) is not None:
                    run, done = job
                    try:
                        out = run(loop)
                    except BaseException as exc:  # handed to the caller, whatever it is
                        done(None, exc)
                    else:
                        done(out, None)
            finally:
                loop.close()
        except _calls.DeadlineExceeded:
            return  # interrupted between jobs, after its caller gave up: it was retired anyway

    async def call(self, run: Callable[[asyncio.AbstractEventLoop], Any]) -> Any:
        """Call ``run(loop)`` on this worker's thread (``loop`` is the worker's own event loop); if the
        caller is cancelled, interrupt it and retire."""
        caller = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = caller.create_future()

        def done(out: Any, exc: BaseException | None) -> None:
            # A closed caller loop (RuntimeError) means nobody waits for this answer.
            with contextlib.suppress(RuntimeError):
                caller.call_soon_threadsafe(_settle, answer, out, exc)

        if not self._submit((run, done)):
            raise _WorkerEndedError
        try:
            return await answer
        except asyncio.CancelledError:
            with self._lock:
                self.usable = False
            self._jobs.put(None)
            if self._thread.ident is not None:
                _calls.interrupt(self._thread.ident)
            raise


def _settle(answer: asyncio.Future[Any], out: Any, exc: BaseException | None) -> None:
    if answer.done():
        return
    if exc is not None:
        answer.set_exception(exc)
    else:
        answer.set_result(out)
