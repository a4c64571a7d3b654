"""What a composition function is, to crossfn: anything :func:`to_handler` accepts.

A function author writes one of:

* ``def compose(req, rsp)`` or ``async def compose(req, rsp)``: ``rsp`` arrives
  started with :func:`crossfn.sdk.response.to` (tag, TTL, desired state and
  context passed through); the function edits it in place. Returning a
  ``RunFunctionResponse`` instead replaces it.
* a servicer object with ``RunFunction(req, context)``, sync or async, as the
  official SDK's ``FunctionRunner``; ``context`` is the server's
  ``grpc.ServicerContext`` (``grpc.aio.ServicerContext`` under the asyncio
  server) when served, and ``None`` when run in-process. A servicer *class* is
  instantiated, with no arguments.

An official-SDK servicer (a subclass of ``crossplane.function``'s
``FunctionRunnerServiceServicer``, v1 or v1beta1) runs unchanged: it gets
requests of the SDK's message type and may return the SDK's responses. Where
the installed SDK's messages are crossfn's own classes (its descriptors are
byte-identical, :mod:`crossfn.proto._registry`) nothing is converted; else a
request is serialised once on the way in and a response once on the way out.

:func:`servable` checks all this when a function is loaded, not at its first
call: what cannot be served (not callable, a ``RunFunction`` or compose
function that cannot take two arguments, a class that cannot be created
without arguments) raises :class:`NotServableError`, one line naming the object.

:func:`to_handler` turns any of them into one async ``Handler``: request in (with the
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
import dataclasses
import functools
import importlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Generator
from typing import Protocol, TypeVar

from google.protobuf import message

from crossfn import errors
from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

__all__ = [
    "Handler",
    "NotServableError",
    "ServicerContext",
    "SyncHandler",
    "is_async",
    "servable",
    "to_handler",
    "to_sync_handler",
]

_log = logging.getLogger("crossfn.sdk.function")
_T = TypeVar("_T")


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
    rsp = response.to(req, empty_context=False)
    response.fatal(rsp, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    return rsp


class NotServableError(errors.InputError, TypeError):
    """An object that cannot be served as a function (module doc); its message names the object."""


_SDK_SERVICER = "FunctionRunnerServiceServicer"
_SDK_GRPC_MODULES = (
    "crossplane.function.proto.v1.run_function_pb2_grpc",
    "crossplane.function.proto.v1beta1.run_function_pb2_grpc",
)
"""Where the official SDK's servicer base classes live; the messages are in the ``_pb2`` module next door."""


@dataclasses.dataclass(frozen=True)
class _Servicer:
    """A servicer's ``RunFunction`` and the request type it takes (``None``: crossfn's own)."""

    run_function: Callable[..., object]
    request_type: type[message.Message] | None


def servable(fn: object) -> object:
    """The object to serve for ``fn``: a servicer class instantiated, anything else checked and returned as is.

    Raises :class:`NotServableError` (one line naming ``fn``) for what cannot
    be served; see the module doc.
    """
    return _servable(fn)[0]


def _servable(fn: object) -> tuple[object, _Servicer | None]:
    """``fn`` checked (a class instantiated), and its servicer when it is one."""
    name = _name(fn)
    if inspect.isclass(fn):
        fn = _instantiate(fn, name)
    run_function = getattr(fn, "RunFunction", None)
    if run_function is not None:
        if not callable(run_function):
            raise NotServableError(f"cannot serve {name}: its RunFunction is not callable")
        if _generated_stub(type(fn)):
            raise NotServableError(f"cannot serve {name}: it does not implement RunFunction")
        _check_arity(run_function, f"cannot serve {name}: RunFunction must take (request, context)")
        return fn, _Servicer(run_function, _sdk_request_type(fn))
    if not callable(fn):
        raise NotServableError(
            f"cannot serve {name}: it is neither a compose(req, rsp) function nor a servicer with RunFunction"
        )
    _check_arity(fn, f"cannot serve {name}: a compose function must take (req, rsp)")
    return fn, None


def _name(fn: object) -> str:
    qualname = getattr(fn, "__qualname__", None)
    if isinstance(qualname, str):
        return f"{getattr(fn, '__module__', None) or '?'}.{qualname}"
    return f"{type(fn).__module__}.{type(fn).__qualname__} object"


def _instantiate(cls: type, name: str) -> object:
    try:
        inspect.signature(cls).bind()
    except TypeError as exc:
        raise NotServableError(
            f"cannot serve {name}: the class cannot be created without arguments: {exc}"
        ) from exc
    except ValueError:  # no signature to read (a class implemented in C): creating it will tell
        pass
    try:
        return cls()
    except Exception as exc:
        raise NotServableError(
            f"cannot serve {name}: creating it raised {type(exc).__name__}: {exc}"
        ) from exc


def _check_arity(fn: Callable[..., object], problem: str) -> None:
    """Refuse ``fn`` if it cannot be called with two positional arguments (when its signature is readable)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature to read: the first call will tell
        return
    try:
        signature.bind(None, None)
    except TypeError as exc:
        raise NotServableError(f"{problem}; it takes ({', '.join(signature.parameters)})") from exc


def _generated_stub(cls: type) -> bool:
    """Tell whether ``cls`` inherits ``RunFunction`` unchanged from a generated servicer base (it answers UNIMPLEMENTED)."""
    run_function = getattr(cls, "RunFunction", None)
    return getattr(run_function, "__qualname__", "") == f"{_SDK_SERVICER}.RunFunction" and str(
        getattr(run_function, "__module__", "")
    ).endswith("run_function_pb2_grpc")


def _sdk_request_type(servicer: object) -> type[message.Message] | None:
    """The official SDK's request class if ``servicer`` subclasses its servicer base, unless it is crossfn's own."""
    for base in type(servicer).__mro__:
        if base.__name__ == _SDK_SERVICER and base.__module__ in _SDK_GRPC_MODULES:
            messages = importlib.import_module(base.__module__.removesuffix("_grpc"))
            request_type: type[message.Message] = messages.RunFunctionRequest
            return None if request_type is fnv1.RunFunctionRequest else request_type
    return None


def _request_for(servicer: _Servicer, req: fnv1.RunFunctionRequest) -> object:
    """The request as the servicer's message type: itself, or parsed once from its bytes."""
    if servicer.request_type is None:
        return req
    return wire.parse(servicer.request_type, req.SerializeToString())


def _response_from(req: fnv1.RunFunctionRequest, out: object) -> fnv1.RunFunctionResponse:
    """A servicer's answer as crossfn's response: itself, parsed once from another message type's bytes, or Fatal."""
    if isinstance(out, fnv1.RunFunctionResponse):
        return out
    if isinstance(out, message.Message) and out.DESCRIPTOR.name == "RunFunctionResponse":
        return wire.parse(fnv1.RunFunctionResponse, out.SerializeToString())
    return _fatal_from(
        req, TypeError(f"RunFunction returned {type(out).__name__}, not a RunFunctionResponse")
    )


def to_handler(fn: object, *, offload_sync: bool = True) -> Handler:
    """Adapt a compose function or a servicer (object or class) into a :class:`Handler`.

    ``offload_sync`` runs sync functions in a worker thread so they never block
    the event loop (what a server needs). The in-process engine runner turns it
    off: it calls one function at a time and a thread hop only costs time.

    The handler passes the ``context`` it is called with to a servicer's
    ``RunFunction``; compose functions never see it. A sync servicer served by
    the asyncio server gets the ``grpc.aio`` context in its worker thread, whose
    coroutine methods (``abort``) it cannot await: serve sync functions with
    the threaded server, as :func:`crossfn.sdk.runtime.serve` does.
    Raises :class:`NotServableError` for what cannot be served.
    """
    target, flow = _plan(fn)
    is_async = _is_async(target)

    async def handle(
        req: fnv1.RunFunctionRequest, context: ServicerContext | None = None
    ) -> fnv1.RunFunctionResponse:
        call = flow(req, context)
        args = _step(call.send, None)
        if isinstance(args, fnv1.RunFunctionResponse):
            return args
        try:
            if is_async:
                out = await target(*args)  # type: ignore[misc] # checked async above
            elif offload_sync:
                out = await asyncio.to_thread(target, *args)
            else:
                out = target(*args)
        except _RAISED as exc:
            return _last(call.throw, exc)
        return _last(call.send, out)

    return handle


def to_sync_handler(fn: object) -> SyncHandler:
    """Adapt a *sync* compose function or servicer (object or class) into a :class:`SyncHandler`.

    The threaded server calls it straight from its worker threads: no event
    loop, no thread hop. Exceptions become a Fatal result, as with
    :func:`to_handler`. Raises ``TypeError`` for an async function, and
    :class:`NotServableError` for what cannot be served.
    """
    if is_async(fn):
        raise TypeError(f"{fn!r} is async; use to_handler")
    target, flow = _plan(fn)
    if flow is _compose_flow:
        return _sync_compose_handler(target)

    def handle(
        req: fnv1.RunFunctionRequest, context: ServicerContext | None = None
    ) -> fnv1.RunFunctionResponse:
        call = flow(req, context)
        args = _step(call.send, None)
        if isinstance(args, fnv1.RunFunctionResponse):
            return args
        try:
            out = target(*args)
        except _RAISED as exc:
            return _last(call.throw, exc)
        return _last(call.send, out)

    return handle


def _sync_compose_handler(compose: Callable[..., object]) -> SyncHandler:
    """:func:`_compose_flow` for a sync compose function, without a generator.

    The threaded server's every call takes this path; stepping a generator and
    catching its ``StopIteration`` cost about two microseconds a call.
    """

    def handle(
        req: fnv1.RunFunctionRequest, context: ServicerContext | None = None
    ) -> fnv1.RunFunctionResponse:
        rsp = response.to(req, empty_context=False)
        try:
            out = compose(req, rsp)
        except _RAISED as exc:
            return _fatal_from(req, exc)
        return out if isinstance(out, fnv1.RunFunctionResponse) else rsp

    return handle


_Flow = Generator[tuple[object, ...], object, fnv1.RunFunctionResponse]
"""What one call of a function means, written once for the async and the sync handler.

A flow yields the arguments to call the function with, once, and receives
what the call returned (``send``) or raised (``throw``); it returns the
response. It may return without yielding (the request could not be given to
the function) or re-raise what it is thrown (the exception must reach gRPC).
"""


def _plan(
    fn: object,
) -> tuple[Callable[..., object], Callable[[fnv1.RunFunctionRequest, ServicerContext | None], _Flow]]:
    """``fn`` checked (:func:`_servable`): the callable to call and the flow of one call."""
    fn, servicer = _servable(fn)
    if servicer is not None:
        return servicer.run_function, functools.partial(_servicer_flow, servicer)
    return fn, _compose_flow  # type: ignore[return-value] # _servable checked it is callable


def _servicer_flow(
    servicer: _Servicer, req: fnv1.RunFunctionRequest, context: ServicerContext | None
) -> _Flow:
    try:
        out = yield (_request_for(servicer, req), context)
    except _RAISED as exc:
        if _status_set(context):
            raise
        return _fatal_from(req, exc)
    return _response_from(req, out)


def _compose_flow(req: fnv1.RunFunctionRequest, context: ServicerContext | None) -> _Flow:
    # The sync handler has this flow written out: _sync_compose_handler. Change both together.
    rsp = response.to(req, empty_context=False)
    try:
        out = yield (req, rsp)
    except _RAISED as exc:
        return _fatal_from(req, exc)
    return out if isinstance(out, fnv1.RunFunctionResponse) else rsp


def _step(
    step: Callable[[_T], tuple[object, ...]], value: _T
) -> tuple[object, ...] | fnv1.RunFunctionResponse:
    """Advance a flow (``step`` is its ``send`` or ``throw``): the arguments it asks a call with, or its response."""
    try:
        return step(value)
    except StopIteration as done:
        response_: fnv1.RunFunctionResponse = done.value
        return response_


def _last(step: Callable[[_T], tuple[object, ...]], value: _T) -> fnv1.RunFunctionResponse:
    """The response a flow returns once given the call's outcome."""
    done = _step(step, value)
    if isinstance(done, fnv1.RunFunctionResponse):
        return done
    raise AssertionError("a flow asks for one call only")
