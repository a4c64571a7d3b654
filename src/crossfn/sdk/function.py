"""What a composition function is, to crossfn: anything :func:`to_handler` accepts.

A function author writes one of:

* ``def compose(req, rsp)`` or ``async def compose(req, rsp)``: ``rsp`` arrives
  started with :func:`crossfn.sdk.response.to` (tag, TTL, desired state and
  context passed through); the function edits it in place. Returning a
  ``RunFunctionResponse`` instead replaces it.
* a servicer object with ``RunFunction(req, context)``, sync or async, as the
  official SDK's ``FunctionRunner``; ``context`` is the server's
  ``grpc.ServicerContext`` (``grpc.aio.ServicerContext`` under the asyncio
  server) when served, and ``None`` when run in-process.

:func:`to_handler` turns either into one async ``Handler``: request in (with the
gRPC context, when there is one), response out. The asyncio server and the
engine's in-process runner call handlers; the threaded server calls a sync
function through :func:`to_sync_handler`, with the same contract, straight from
its threads. So a function behaves the same whether it is served or run
in-process. An exception raised by the function becomes a Fatal result carrying
its message, ``KeyboardInterrupt`` and ``SystemExit`` included; the traceback
goes to the log.

One exception to that: a servicer that set a gRPC status on its context and
then raised (``context.abort(code, details)`` does both) asked for that status,
not for a result. The exception is re-raised so gRPC sends the status, exactly
as under the official SDK's runtime. grpc signals an abort with a bare
``Exception`` (sync) or ``grpc.aio.AbortError`` (asyncio); both set the code
first, so ``context.code()`` is what tells them apart from a bug.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Generator
from typing import Protocol

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

__all__ = ["Handler", "ServicerContext", "SyncHandler", "is_async", "to_handler", "to_sync_handler"]

_log = logging.getLogger("crossfn.sdk.function")


class ServicerContext(Protocol):
    """The part of a gRPC servicer context (sync or asyncio) the adapters read.

    A structural type so this module need not import grpc: in-process runs
    (the engine, :mod:`crossfn.sdk.testing`) never load it. The servicer gets
    the whole context object, not just this.
    """

    def code(self) -> object:
        """The status code the servicer set (``abort`` sets one), or ``None``."""
        ...


class Handler(Protocol):
    """An async composition function: a request in (with the gRPC context when served), a response out."""

    def __call__(
        self, req: fnv1.RunFunctionRequest, context: ServicerContext | None = None, /
    ) -> Awaitable[fnv1.RunFunctionResponse]: ...


class SyncHandler(Protocol):
    """A sync composition function, called on the caller's thread: as :class:`Handler`, without await."""

    def __call__(
        self, req: fnv1.RunFunctionRequest, context: ServicerContext | None = None, /
    ) -> fnv1.RunFunctionResponse: ...


def is_async(fn: object) -> bool:
    """Tell whether ``fn`` (a compose function or a servicer) is async, seeing through partials and wrappers."""
    run_function = getattr(fn, "RunFunction", None)
    return _is_async(run_function if run_function is not None else fn)


def _is_async(fn: object) -> bool:
    while True:
        if inspect.iscoroutinefunction(fn):
            return True
        inner = getattr(fn, "func", None) or getattr(fn, "__wrapped__", None)
        if inner is None:
            call = getattr(fn, "__call__", None)  # noqa: B004 -- looking through callable objects, not testing callability
            return call is not None and not inspect.isfunction(fn) and inspect.iscoroutinefunction(call)
        fn = inner


_RAISED = (Exception, KeyboardInterrupt, SystemExit)
"""What a function may raise and still get a Fatal result. ``KeyboardInterrupt`` and
``SystemExit`` raised *by the function* must not stop the server (async) or leave the
call unanswered (threaded); cancellation and the servers' own deadline exception are
left to pass."""


def _status_set(context: ServicerContext | None) -> bool:
    """Tell whether the servicer set a gRPC status, so a raised exception must go to gRPC (see module doc)."""
    return context is not None and context.code() is not None


def _fatal_from(req: fnv1.RunFunctionRequest, exc: BaseException) -> fnv1.RunFunctionResponse:
    _log.exception("function raised an exception", exc_info=exc)
    rsp = response.to(req)
    response.fatal(rsp, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    return rsp


def to_handler(fn: object, *, offload_sync: bool = True) -> Handler:
    """Adapt a compose function or a servicer into a :class:`Handler`.

    ``offload_sync`` runs sync functions in a worker thread so they never block
    the event loop (what a server needs). The in-process engine runner turns it
    off: it calls one function at a time and a thread hop only costs time.

    The handler passes the ``context`` it is called with to a servicer's
    ``RunFunction``; compose functions never see it. A sync servicer served by
    the asyncio server gets the ``grpc.aio`` context in its worker thread, whose
    coroutine methods (``abort``) it cannot await: serve sync functions with
    the threaded server, as :func:`crossfn.sdk.runtime.serve` does.
    """
    flow, target = _flow_for(fn)
    target_is_async = _is_async(target)

    async def handle(
        req: fnv1.RunFunctionRequest, context: ServicerContext | None = None
    ) -> fnv1.RunFunctionResponse:
        steps = flow(target, req, context)
        call, args = next(steps)
        if not target_is_async:
            if offload_sync:
                return await asyncio.to_thread(_drive, steps, call, args)
            return _drive(steps, call, args)
        try:
            out = await call(*args)  # type: ignore[misc] # checked async above
        except BaseException as exc:
            return _finish(steps, exc=exc)
        return _finish(steps, out)

    return handle


def to_sync_handler(fn: object) -> SyncHandler:
    """Adapt a *sync* compose function or servicer into a :class:`SyncHandler`.

    The threaded server calls it straight from its worker threads: no event
    loop, no thread hop. Exceptions become a Fatal result, as with
    :func:`to_handler`. Raises ``TypeError`` for an async function.
    """
    if is_async(fn):
        raise TypeError(f"{fn!r} is async; use to_handler")
    flow, target = _flow_for(fn)

    def handle(
        req: fnv1.RunFunctionRequest, context: ServicerContext | None = None
    ) -> fnv1.RunFunctionResponse:
        steps = flow(target, req, context)
        return _drive(steps, *next(steps))

    return handle


# What a call means is written once, for both handlers, as a flow: a generator that
# yields the one call to make, receives its result (or its exception, thrown in) and
# returns the response. The handlers only make the call, awaited or not.
_Call = tuple[Callable[..., object], tuple[object, ...]]
_Flow = Generator[_Call, object, fnv1.RunFunctionResponse]


def _flow_for(fn: object) -> tuple[Callable[..., _Flow], Callable[..., object]]:
    run_function = getattr(fn, "RunFunction", None)
    if run_function is not None:
        return _servicer_flow, run_function
    if callable(fn):
        return _compose_flow, fn
    raise TypeError(f"{fn!r} is neither a compose(req, rsp) function nor a servicer with RunFunction")


def _servicer_flow(
    run_function: Callable[..., object], req: fnv1.RunFunctionRequest, context: ServicerContext | None
) -> _Flow:
    try:
        out = yield run_function, (req, context)
    except _RAISED as exc:
        if _status_set(context):
            raise
        return _fatal_from(req, exc)
    if not isinstance(out, fnv1.RunFunctionResponse):
        return _fatal_from(req, TypeError(f"RunFunction returned {type(out).__name__}, not a RunFunctionResponse"))
    return out


def _compose_flow(
    compose: Callable[..., object], req: fnv1.RunFunctionRequest, context: ServicerContext | None
) -> _Flow:
    del context  # a compose function never sees it
    rsp = response.to(req)
    try:
        out = yield compose, (req, rsp)
    except _RAISED as exc:
        return _fatal_from(req, exc)
    return out if isinstance(out, fnv1.RunFunctionResponse) else rsp


def _drive(steps: _Flow, call: Callable[..., object], args: tuple[object, ...]) -> fnv1.RunFunctionResponse:
    """Make a flow's call on this thread and finish the flow with its outcome."""
    try:
        out = call(*args)
    except BaseException as exc:
        return _finish(steps, exc=exc)
    return _finish(steps, out)


def _finish(steps: _Flow, out: object = None, *, exc: BaseException | None = None) -> fnv1.RunFunctionResponse:
    """Send the call's result (or throw its exception) into the flow; its return value is the response."""
    try:
        if exc is not None:
            steps.throw(exc)
        else:
            steps.send(out)
    except StopIteration as done:
        rsp: fnv1.RunFunctionResponse = done.value
        return rsp
    raise AssertionError("a handler flow makes exactly one call")
