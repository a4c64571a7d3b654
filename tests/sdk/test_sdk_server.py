"""Tests for crossfn.sdk.runtime.FunctionServer against a real gRPC server on an ephemeral port."""

from __future__ import annotations

import asyncio
import collections
import os
import pathlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossfn.proto.v1beta1 import run_function_pb2_grpc as fnv1beta1grpc
from crossfn.sdk import response, runtime, settings


class _RecordingMetrics:
    def __init__(self) -> None:
        self.seen: collections.Counter[tuple[str, str]] = collections.Counter()

    def observe(self, version: str, outcome: Any, seconds: float) -> None:
        assert seconds >= 0
        self.seen[(version, outcome)] += 1


class _BrokenMetrics:
    def observe(self, version: str, outcome: Any, seconds: float) -> None:
        raise RuntimeError("metrics backend down")


def _compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Sync on purpose: the server must run it off the event loop."""
    if req.meta.tag == "raise":
        raise ValueError("boom")
    if req.meta.tag == "warn":
        response.warning(rsp, "careful")
    response.normal(rsp, f"thread={threading.current_thread().name} pid={os.getpid()}")


_INSECURE = settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True))


@pytest.fixture
async def served() -> AsyncIterator[tuple[grpc.aio.Channel, _RecordingMetrics]]:
    sink = _RecordingMetrics()
    server = runtime.FunctionServer(_compose, _INSECURE, server_metrics=sink)
    port = await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield channel, sink
    await server.stop(0)


async def test_v1_and_v1beta1_are_served(served: tuple[grpc.aio.Channel, _RecordingMetrics]) -> None:
    channel, sink = served
    rsp = await fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(
        fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="a"))
    )
    beta = await fnv1beta1grpc.FunctionRunnerServiceStub(channel).RunFunction(
        fnv1beta1.RunFunctionRequest(meta=fnv1beta1.RequestMeta(tag="b"))
    )
    assert rsp.meta.tag == "a" and beta.meta.tag == "b"
    assert rsp.results[0].message.startswith("thread=") and "MainThread" not in rsp.results[0].message, (
        "a sync function runs in a worker thread"
    )
    assert beta.results[0].severity == fnv1beta1.SEVERITY_NORMAL
    assert sink.seen == {("v1", "success"): 1, ("v1beta1", "success"): 1}


@pytest.mark.parametrize(
    ("reason", "tag", "want"),
    [
        pytest.param(
            "An exception becomes a Fatal result carrying its message.",
            "raise",
            (fnv1.SEVERITY_FATAL, "ValueError: boom", "fatal"),
            id="RaisesFatal",
        ),
        pytest.param(
            "A warning result is counted as a warning.",
            "warn",
            (fnv1.SEVERITY_WARNING, "careful", "warning"),
            id="Warning",
        ),
    ],
)
async def test_outcomes(
    served: tuple[grpc.aio.Channel, _RecordingMetrics], reason: str, tag: str, want: tuple[int, str, str]
) -> None:
    channel, sink = served
    rsp = await fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(
        fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag=tag))
    )
    assert (rsp.results[0].severity, rsp.results[0].message) == want[:2], reason
    assert sink.seen == {("v1", want[2]): 1}, reason


async def test_health_reports_serving(served: tuple[grpc.aio.Channel, _RecordingMetrics]) -> None:
    channel, _ = served
    stub = health_pb2_grpc.HealthStub(channel)
    for service in ("", runtime.V1_SERVICE, runtime.V1BETA1_SERVICE):
        got = await stub.Check(health_pb2.HealthCheckRequest(service=service))  # type: ignore[attr-defined]  # typeshed's HealthStub declares no methods
        assert got.status == health_pb2.HealthCheckResponse.SERVING, service


async def test_reflection_lists_both_versions(served: tuple[grpc.aio.Channel, _RecordingMetrics]) -> None:
    channel, _ = served
    # typeshed types only the synchronous stub; over an aio channel its call returns an async iterator.
    stub: Any = reflection_pb2_grpc.ServerReflectionStub(channel)  # type: ignore[arg-type]
    names: set[str] = set()
    async for rsp in stub.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    ):
        names |= {s.name for s in rsp.list_services_response.service}
    assert {runtime.V1_SERVICE, runtime.V1BETA1_SERVICE} <= names


async def test_failing_metrics_never_fail_a_call() -> None:
    server = runtime.FunctionServer(_compose, _INSECURE, server_metrics=_BrokenMetrics())
    port = await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            rsp = await fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(fnv1.RunFunctionRequest())
        assert rsp.results[0].severity == fnv1.SEVERITY_NORMAL
    finally:
        await server.stop(0)


async def test_stop_lets_in_flight_calls_finish() -> None:
    started, release = asyncio.Event(), asyncio.Event()

    async def slow(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        started.set()
        await release.wait()
        response.normal(rsp, "finished")

    server = runtime.FunctionServer(slow, _INSECURE)
    port = await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(fnv1.RunFunctionRequest())
        await started.wait()
        stopping = asyncio.create_task(server.stop(5))
        done, _ = await asyncio.wait({stopping}, timeout=0.1)
        assert not done, "stop must wait for the call in flight"
        release.set()
        rsp = await call
        await stopping
    assert rsp.results[0].message == "finished"


@pytest.mark.parametrize(
    ("reason", "listen", "message"),
    [
        pytest.param(
            "Neither certificates nor --insecure: refuse, as the official SDK does.",
            settings.ListenSettings(address="127.0.0.1:0"),
            "no TLS certificates directory given",
            id="NoCredentials",
        ),
        pytest.param(
            "A certificates directory without the files names the missing file.",
            settings.ListenSettings(address="127.0.0.1:0", tls_certs_dir="/nonexistent"),
            "cannot load TLS certificates: cannot read /nonexistent/tls.crt",
            id="MissingCertificates",
        ),
        pytest.param(
            "An address that cannot be bound is an input error.",
            settings.ListenSettings(address="256.0.0.1:1", insecure=True),
            "cannot listen on 256.0.0.1:1",
            id="BadAddress",
        ),
    ],
)
async def test_start_errors(reason: str, listen: settings.ListenSettings, message: str) -> None:
    server = runtime.FunctionServer(_compose, settings.ServerSettings(listen=listen))
    with pytest.raises(errors.InputError, match=message):
        await server.start()


@pytest.mark.parametrize(
    ("reason", "spec", "message"),
    [
        pytest.param("A spec without a colon.", "nocolon", "want MODULE:OBJECT", id="NoColon"),
        pytest.param(
            "A module that does not exist.",
            "no_such_module_xyz:f",
            "cannot import no_such_module_xyz",
            id="NoModule",
        ),
        pytest.param(
            "An attribute that does not exist.",
            "crossfn.sdk.response:nope",
            "has no attribute nope",
            id="NoAttribute",
        ),
    ],
)
def test_load_function_errors(reason: str, spec: str, message: str) -> None:
    with pytest.raises(errors.InputError, match=message):
        runtime.load_function(spec)


def test_load_function_dotted() -> None:
    assert runtime.load_function("crossfn.sdk.settings:ServerSettings.__name__") == "ServerSettings"


async def test_threaded_server_calls_sync_functions_on_its_threads() -> None:
    sink = _RecordingMetrics()
    server = runtime.ThreadedFunctionServer(_compose, _INSECURE, server_metrics=sink)
    port = server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            v1 = fnv1grpc.FunctionRunnerServiceStub(channel)
            ok = await v1.RunFunction(fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="a")))
            fatal = await v1.RunFunction(fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="raise")))
            beta = await fnv1beta1grpc.FunctionRunnerServiceStub(channel).RunFunction(
                fnv1beta1.RunFunctionRequest()
            )
            health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())  # type: ignore[attr-defined]  # typeshed's HealthStub declares no methods
    finally:
        server.stop(0).wait(10)
    assert ok.meta.tag == "a" and "thread=crossfn-fn" in ok.results[0].message
    assert (fatal.results[0].severity, fatal.results[0].message) == (fnv1.SEVERITY_FATAL, "ValueError: boom")
    assert beta.results[0].severity == fnv1beta1.SEVERITY_NORMAL
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert sink.seen == {("v1", "success"): 1, ("v1", "fatal"): 1, ("v1beta1", "success"): 1}


def test_threaded_server_refuses_async_functions() -> None:
    async def compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        return None

    with pytest.raises(TypeError, match="is async"):
        runtime.ThreadedFunctionServer(compose, _INSECURE)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param(
            "def compose(req, rsp)\n    pass\n",
            r"SyntaxError: expected ':' \(at .*mod\.py:1\)",
            id="SyntaxError",
        ),
        pytest.param(
            "raise RuntimeError('no config')\n", r"RuntimeError: no config \(at .*mod\.py:1\)", id="Raises"
        ),
    ],
)
def test_load_function_module_errors_are_one_line(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, source: str, message: str
) -> None:
    """A user's module that does not compile or raises on import is one line naming where, not a traceback."""
    module = f"crossfn_load_{tmp_path.name}"
    (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(
        errors.InputError, match=f"importing {module} raised .*{message.replace('mod', module)}"
    ):
        runtime.load_function(f"{module}:compose")
