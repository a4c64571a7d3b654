"""A servicer's ``RunFunction(req, context)`` gets the real gRPC context when served, ``None`` in-process.

Served cases run against real servers on ephemeral ports: the threaded server
(sync servicers, sync ``grpc.ServicerContext``) and the asyncio server (async
servicers, ``grpc.aio.ServicerContext``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import grpc
import pytest

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossfn.proto.v1beta1 import run_function_pb2_grpc as fnv1beta1grpc
from crossfn.sdk import function, metrics, response, runtime, settings, testing

_INSECURE = settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True))
_METADATA_KEY = "x-crossfn-test"


def _describe(req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
    """Answer with what the context shows: the client's metadata value and the peer."""
    rsp = response.to(req)
    metadata = dict(context.invocation_metadata())
    response.normal(rsp, f"{metadata.get(_METADATA_KEY)}|{context.peer()}")
    return rsp


class _SyncDescriber:
    def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        return _describe(req, context)


class _AsyncDescriber:
    async def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        return _describe(req, context)


class _SyncAborter:
    def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        if req.meta.tag == "set-code":
            context.set_code(grpc.StatusCode.FAILED_PRECONDITION)
            context.set_details("not yet")
            raise RuntimeError("after set_code")
        if req.meta.tag == "bug":
            raise ValueError("boom")
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "x")
        raise AssertionError("abort returned")


class _AsyncAborter:
    async def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        if req.meta.tag == "set-code":
            context.set_code(grpc.StatusCode.FAILED_PRECONDITION)
            context.set_details("not yet")
            raise RuntimeError("after set_code")
        if req.meta.tag == "bug":
            raise ValueError("boom")
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "x")
        raise AssertionError("abort returned")


class _RecordingMetrics:
    def __init__(self) -> None:
        self.outcomes: list[str] = []

    def observe(self, version: str, outcome: metrics.Outcome, seconds: float) -> None:
        self.outcomes.append(outcome)


async def _call_served(
    fn: object,
    threaded: bool,
    req: fnv1.RunFunctionRequest,
    *,
    v1beta1: bool = False,
    sink: metrics.ServerMetrics = metrics.NO_METRICS,
) -> fnv1.RunFunctionResponse:
    """Serve ``fn`` on the chosen server, make one call with test metadata, stop the server."""
    server: runtime.ThreadedFunctionServer | runtime.FunctionServer
    if threaded:
        server = runtime.ThreadedFunctionServer(fn, _INSECURE, server_metrics=sink)
        port = server.start()
    else:
        server = runtime.FunctionServer(fn, _INSECURE, server_metrics=sink)
        port = await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            metadata = ((_METADATA_KEY, "hello"),)
            if v1beta1:
                beta = await fnv1beta1grpc.FunctionRunnerServiceStub(channel).RunFunction(
                    fnv1beta1.RunFunctionRequest.FromString(req.SerializeToString()), metadata=metadata
                )
                return fnv1.RunFunctionResponse.FromString(beta.SerializeToString())
            rsp: fnv1.RunFunctionResponse = await fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(
                req, metadata=metadata
            )
            return rsp
    finally:
        # A grace period lets the handler finish recording its outcome: the client
        # can see an aborted call's status before the server's handler has returned.
        if isinstance(server, runtime.ThreadedFunctionServer):
            server.stop(10).wait(10)
        else:
            await server.stop(10)


@pytest.mark.parametrize(
    ("reason", "fn", "threaded", "v1beta1"),
    [
        pytest.param(
            "The threaded server hands a sync servicer its grpc.ServicerContext.",
            _SyncDescriber(),
            True,
            False,
            id="ThreadedSyncServicer",
        ),
        pytest.param(
            "The asyncio server hands an async servicer its grpc.aio.ServicerContext.",
            _AsyncDescriber(),
            False,
            False,
            id="AsyncioAsyncServicer",
        ),
        pytest.param(
            "The asyncio server passes its context to a sync servicer it runs in a worker thread.",
            _SyncDescriber(),
            False,
            False,
            id="AsyncioSyncServicerOffloaded",
        ),
        pytest.param(
            "v1beta1 calls reach the servicer with the context too (threaded).",
            _SyncDescriber(),
            True,
            True,
            id="ThreadedV1beta1",
        ),
        pytest.param(
            "v1beta1 calls reach the servicer with the context too (asyncio).",
            _AsyncDescriber(),
            False,
            True,
            id="AsyncioV1beta1",
        ),
    ],
)
async def test_served_servicer_sees_the_context(
    reason: str, fn: object, threaded: bool, v1beta1: bool
) -> None:
    rsp = await _call_served(
        fn, threaded, fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="t")), v1beta1=v1beta1
    )
    assert rsp.results[0].severity == fnv1.SEVERITY_NORMAL, f"{reason}: {rsp.results[0].message}"
    value, _, peer = rsp.results[0].message.partition("|")
    assert value == "hello", f"{reason}: the client's invocation metadata is visible"
    assert peer.startswith("ipv4:127.0.0.1:"), f"{reason}: the peer is the client's address, got {peer!r}"


@pytest.mark.parametrize(
    ("reason", "fn", "threaded", "tag", "want"),
    [
        pytest.param(
            "A sync context.abort reaches the client as its status and details, not a Fatal result.",
            _SyncAborter(),
            True,
            "abort",
            (grpc.StatusCode.INVALID_ARGUMENT, "x"),
            id="ThreadedAbort",
        ),
        pytest.param(
            "An async context.abort (grpc.aio.AbortError) reaches the client as its status and details.",
            _AsyncAborter(),
            False,
            "abort",
            (grpc.StatusCode.INVALID_ARGUMENT, "x"),
            id="AsyncioAbort",
        ),
        pytest.param(
            "Raising after set_code/set_details gives that status, as gRPC does for the official runtime.",
            _SyncAborter(),
            True,
            "set-code",
            (grpc.StatusCode.FAILED_PRECONDITION, "not yet"),
            id="ThreadedSetCodeThenRaise",
        ),
        pytest.param(
            "Raising after set_code gives that code under the asyncio server too; grpc.aio writes its own details.",
            _AsyncAborter(),
            False,
            "set-code",
            (grpc.StatusCode.FAILED_PRECONDITION, "Unexpected <class 'RuntimeError'>: after set_code"),
            id="AsyncioSetCodeThenRaise",
        ),
    ],
)
async def test_abort_becomes_the_grpc_status(
    reason: str, fn: object, threaded: bool, tag: str, want: tuple[grpc.StatusCode, str]
) -> None:
    sink = _RecordingMetrics()
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _call_served(fn, threaded, fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag=tag)), sink=sink)
    assert (caught.value.code(), caught.value.details()) == want, reason
    assert sink.outcomes == ["aborted"], f"{reason}: the call ended in a status, not in a (Fatal) response"


@pytest.mark.parametrize(
    ("reason", "fn", "threaded"),
    [
        pytest.param(
            "A plain exception stays a Fatal result (threaded).", _SyncAborter(), True, id="Threaded"
        ),
        pytest.param(
            "A plain exception stays a Fatal result (asyncio).", _AsyncAborter(), False, id="Asyncio"
        ),
    ],
)
async def test_served_servicer_exception_without_status_is_fatal(
    reason: str, fn: object, threaded: bool
) -> None:
    rsp = await _call_served(fn, threaded, fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="bug")))
    assert (rsp.results[0].severity, rsp.results[0].message) == (fnv1.SEVERITY_FATAL, "ValueError: boom"), (
        reason
    )


class _RecordingServicer:
    """Records the context it was called with."""

    def __init__(self) -> None:
        self.contexts: list[object] = []

    def RunFunction(self, req: fnv1.RunFunctionRequest, context: object) -> fnv1.RunFunctionResponse:
        self.contexts.append(context)
        return response.to(req)


class _AsyncRecordingServicer(_RecordingServicer):
    async def RunFunction(  # type: ignore[override] # the async twin of the same servicer
        self, req: fnv1.RunFunctionRequest, context: object
    ) -> fnv1.RunFunctionResponse:
        self.contexts.append(context)
        return response.to(req)


@pytest.mark.parametrize(
    ("reason", "servicer"),
    [
        pytest.param("testing.run calls a sync servicer with context=None.", _RecordingServicer(), id="Sync"),
        pytest.param(
            "testing.run calls an async servicer with context=None.", _AsyncRecordingServicer(), id="Async"
        ),
    ],
)
def test_in_process_context_is_none(reason: str, servicer: _RecordingServicer) -> None:
    testing.run(servicer, fnv1.RunFunctionRequest())
    assert servicer.contexts == [None], reason


def test_sync_handler_without_context_passes_none() -> None:
    servicer = _RecordingServicer()
    function.to_sync_handler(servicer)(fnv1.RunFunctionRequest())
    assert servicer.contexts == [None], "a SyncHandler called with the request alone passes context=None"


@dataclasses.dataclass
class _FakeContext:
    """A stand-in servicer context: only the status code the adapters read."""

    status: object = None

    def code(self) -> object:
        return self.status


class _Raiser:
    def RunFunction(self, req: fnv1.RunFunctionRequest, context: object) -> fnv1.RunFunctionResponse:
        raise ValueError("boom")


@pytest.mark.parametrize(
    ("reason", "context", "raises"),
    [
        pytest.param("Without a context an exception is a Fatal result.", None, False, id="NoContext"),
        pytest.param(
            "With a context but no status set, an exception is a Fatal result.",
            _FakeContext(),
            False,
            id="NoStatus",
        ),
        pytest.param(
            "With a status set on the context, the exception is re-raised for gRPC.",
            _FakeContext(grpc.StatusCode.INVALID_ARGUMENT),
            True,
            id="StatusSet",
        ),
    ],
)
async def test_handlers_reraise_only_when_a_status_is_set(
    reason: str, context: _FakeContext | None, raises: bool
) -> None:
    req = fnv1.RunFunctionRequest()
    for handle in (function.to_sync_handler(_Raiser()), function.to_handler(_Raiser())):
        try:
            out = handle(req, context)
            rsp = await out if not isinstance(out, fnv1.RunFunctionResponse) else out
        except ValueError:
            assert raises, reason
            continue
        assert not raises, reason
        assert rsp.results[0].message == "ValueError: boom", reason
