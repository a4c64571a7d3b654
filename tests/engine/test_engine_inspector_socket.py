"""The pipeline inspector's unix-socket transport against a real gRPC server
(upstream core-4.8 socket_test.go)."""

import datetime
import json
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from crossfn import engine, errors
from crossfn.engine import _callctx, _inspector_socket
from crossfn.proto.pipeline.v1alpha1 import pipeline_inspector_pb2 as inspectorpb
from crossfn.proto.v1 import run_function_pb2 as fnv1

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
META = engine.StepMeta(
    timestamp=NOW, trace_id="trace", span_id="span", step_index=1, step_name="step", iteration=2, function_name="fn",
    composition_name="comp", composite_resource_uid="uid", composite_resource_name="xr",
    composite_resource_namespace="ns", composite_resource_api_version="example.org/v1", composite_resource_kind="XR",
)  # fmt: skip


class Sidecar:
    """A PipelineInspectorService that records what it receives, or fails every call."""

    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.responses: list[Any] = []
        self.fail = False

    def handler(self) -> grpc.GenericRpcHandler:
        def record(into: list[Any], cls: Any) -> Any:
            async def handle(data: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
                if self.fail:
                    await context.abort(grpc.StatusCode.UNAVAILABLE, "sidecar down")
                into.append(cls.FromString(data))
                return b""

            return grpc.unary_unary_rpc_method_handler(handle)

        return grpc.method_handlers_generic_handler(
            "crossplane.pipeline.v1alpha1.PipelineInspectorService",
            {
                "EmitRequest": record(self.requests, inspectorpb.EmitRequestRequest),
                "EmitResponse": record(self.responses, inspectorpb.EmitResponseRequest),
            },
        )


@pytest.fixture
async def sidecar() -> AsyncIterator[tuple[Sidecar, str]]:
    car = Sidecar()
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((car.handler(),))
    # Unix socket paths are limited to about 100 bytes: keep the directory short.
    with tempfile.TemporaryDirectory(prefix="xfn", dir="/tmp" if Path("/tmp").is_dir() else None) as d:
        path = str(Path(d) / "s")
        server.add_insecure_port(f"unix://{path}")
        await server.start()
        yield car, path
        await server.stop(None)


async def test_TestSocketPipelineInspectorEmitRequest_SuccessfulEmission(
    sidecar: tuple[Sidecar, str],
) -> None:
    car, path = sidecar
    inspector = _inspector_socket.SocketInspector(path)
    await inspector.emit_request(b'{"meta":{}}', META)
    await inspector.aclose()
    (got,) = car.requests
    assert got.request == b'{"meta":{}}', "the request bytes arrive as sent"
    assert (got.meta.trace_id, got.meta.step_index, got.meta.iteration, got.meta.function_name) == (
        "trace",
        1,
        2,
        "fn",
    )
    assert (
        got.meta.composition_meta.composite_resource_kind == "XR"
        and got.meta.WhichOneof("context") == "composition_meta"
    )
    assert got.meta.timestamp.ToDatetime(tzinfo=datetime.UTC) == NOW


async def test_TestSocketPipelineInspectorEmitResponse_CapturesFunctionError(
    sidecar: tuple[Sidecar, str],
) -> None:
    car, path = sidecar
    inspector = _inspector_socket.SocketInspector(path)
    await inspector.emit_response(b"", "boom", META)
    await inspector.aclose()
    (got,) = car.responses
    assert (got.response, got.error) == (b"", "boom"), "NilResponse: empty bytes and the error text"


async def test_TestSocketPipelineInspector_GRPCCallFails(sidecar: tuple[Sidecar, str]) -> None:
    car, path = sidecar
    car.fail = True
    inspector = _inspector_socket.SocketInspector(path)
    with pytest.raises(
        errors.CrossfnError,
        match="cannot emit to pipeline inspector: rpc error: code = Unavailable desc = sidecar down",
    ):
        await inspector.emit_request(b"{}", META)
    await inspector.aclose()


async def test_inspected_runner_over_the_socket_redacts(sidecar: tuple[Sidecar, str]) -> None:
    car, path = sidecar
    inspector = _inspector_socket.SocketInspector(path)

    async def fn(name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        rsp = fnv1.RunFunctionResponse()
        rsp.desired.composite.connection_details["password"] = b"hunter2"
        return rsp

    req = fnv1.RunFunctionRequest()
    req.credentials["db"].credential_data.data["password"] = b"hunter2"
    token = _callctx.STEP.set(_callctx.Step("trace", 0, "step"))
    try:
        await engine.InspectedRunner(engine.runner_from(fn), inspector).run_function("fn", req)
    finally:
        _callctx.STEP.reset(token)
        await inspector.aclose()
    sent = json.loads(car.requests[0].request)
    got = json.loads(car.responses[0].response)
    assert "hunter2" not in json.dumps(sent) and "hunter2" not in json.dumps(got), (
        "StripsCredentials, StripsDesiredConnectionDetails"
    )
    assert "aHVudGVyMg" not in json.dumps(sent) + json.dumps(got), "not even base64-encoded"


async def test_an_operations_step_meta_is_operation_meta(sidecar: tuple[Sidecar, str]) -> None:
    """Steps of an Operation are sent with OperationMeta, as Crossplane's ``ForOperations`` context does."""
    car, path = sidecar
    inspector = _inspector_socket.SocketInspector(path)
    meta = engine.StepMeta(
        timestamp=NOW, trace_id="trace", span_id="span", step_index=0, step_name="step", iteration=0,
        function_name="fn", composition_name="", composite_resource_uid="", composite_resource_name="",
        composite_resource_namespace="", composite_resource_api_version="", composite_resource_kind="",
        operation_name="op", operation_uid="op-uid",
    )  # fmt: skip
    await inspector.emit_request(b"{}", meta)
    await inspector.aclose()
    (got,) = car.requests
    assert got.meta.WhichOneof("context") == "operation_meta"
    assert (got.meta.operation_meta.operation_name, got.meta.operation_meta.operation_uid) == ("op", "op-uid")
