"""Crossplane's pipeline inspector transport: gRPC over a unix socket (§1.6; §4.8 socket_test.go).

A sidecar serving ``crossplane.pipeline.v1alpha1.PipelineInspectorService``
listens on a unix socket (Crossplane's default
``/var/run/pipeline-inspector/socket``); :class:`SocketInspector` sends it what
:class:`~crossfn.engine.InspectedRunner` emits, so the sidecars written for
Crossplane work unchanged. The service's messages are built from a descriptor
here rather than generated: four small messages do not warrant a generated
module. Errors are translated into :class:`~crossfn.errors.CrossfnError`;
the inspected runner logs and counts them.
"""

from __future__ import annotations

from typing import Any

import grpc
import grpc.aio
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2

from crossfn import errors
from crossfn.engine import _grpc, _inspected

__all__ = ["DEFAULT_SOCKET", "METHOD_EMIT_REQUEST", "METHOD_EMIT_RESPONSE", "SocketInspector", "messages"]

DEFAULT_SOCKET = "/var/run/pipeline-inspector/socket"
_PACKAGE = "crossplane.pipeline.v1alpha1"
METHOD_EMIT_REQUEST = f"/{_PACKAGE}.PipelineInspectorService/EmitRequest"
METHOD_EMIT_RESPONSE = f"/{_PACKAGE}.PipelineInspectorService/EmitResponse"

_STRING, _BYTES, _INT32, _MESSAGE = 9, 12, 5, 11
_OPTIONAL = 1


def _build() -> dict[str, Any]:
    """Message classes of ``crossplane/pipeline/v1alpha1``, keyed by short name."""
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    f = descriptor_pb2.FileDescriptorProto(
        name="crossfn/internal/pipeline_inspector.proto",
        package=_PACKAGE,
        dependency=["google/protobuf/timestamp.proto"],
        syntax="proto3",
    )

    def message(name: str, *fields: tuple[str, int, int, str]) -> descriptor_pb2.DescriptorProto:
        m = f.message_type.add(name=name)
        for field_name, number, kind, type_name in fields:
            field = m.field.add(name=field_name, number=number, type=kind, label=_OPTIONAL)
            if type_name:
                field.type_name = type_name
        return m

    message("CompositionMeta", *(
        (n, i, _STRING, "") for i, n in enumerate((
            "composition_name", "composite_resource_uid", "composite_resource_name",
            "composite_resource_namespace", "composite_resource_api_version", "composite_resource_kind",
        ), start=1)
    ))  # fmt: skip
    message("OperationMeta", ("operation_name", 1, _STRING, ""), ("operation_uid", 2, _STRING, ""))
    step = message(
        "StepMeta",
        ("timestamp", 1, _MESSAGE, ".google.protobuf.Timestamp"),
        ("trace_id", 2, _STRING, ""),
        ("span_id", 3, _STRING, ""),
        ("step_index", 4, _INT32, ""),
        ("step_name", 5, _STRING, ""),
        ("iteration", 6, _INT32, ""),
        ("function_name", 7, _STRING, ""),
        ("operation_meta", 8, _MESSAGE, f".{_PACKAGE}.OperationMeta"),
        ("composition_meta", 9, _MESSAGE, f".{_PACKAGE}.CompositionMeta"),
    )
    step.oneof_decl.add(name="context")
    step.field[7].oneof_index = 0
    step.field[8].oneof_index = 0
    message("EmitRequestRequest", ("request", 1, _BYTES, ""), ("meta", 2, _MESSAGE, f".{_PACKAGE}.StepMeta"))
    message(
        "EmitResponseRequest",
        ("response", 1, _BYTES, ""),
        ("error", 2, _STRING, ""),
        ("meta", 3, _MESSAGE, f".{_PACKAGE}.StepMeta"),
    )
    message("EmitRequestResponse")
    message("EmitResponseResponse")
    pool.Add(f)
    names = ("CompositionMeta", "OperationMeta", "StepMeta", "EmitRequestRequest", "EmitResponseRequest")
    return {n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{n}")) for n in names}


messages = _build()
"""The inspector protocol's message classes by name (``StepMeta``, ``EmitRequestRequest``, ...)."""


def _step_meta(meta: _inspected.StepMeta) -> Any:
    out = messages["StepMeta"](
        trace_id=meta.trace_id,
        span_id=meta.span_id,
        step_index=meta.step_index,
        step_name=meta.step_name,
        iteration=meta.iteration,
        function_name=meta.function_name,
    )
    out.timestamp.FromDatetime(meta.timestamp)
    out.composition_meta.CopyFrom(
        messages["CompositionMeta"](
            composition_name=meta.composition_name,
            composite_resource_uid=meta.composite_resource_uid,
            composite_resource_name=meta.composite_resource_name,
            composite_resource_namespace=meta.composite_resource_namespace,
            composite_resource_api_version=meta.composite_resource_api_version,
            composite_resource_kind=meta.composite_resource_kind,
        )
    )
    return out


class SocketInspector:
    """Sends emits to a PipelineInspectorService on a unix socket."""

    def __init__(self, path: str = DEFAULT_SOCKET) -> None:
        self._target = f"unix://{path}"
        self._channel: grpc.aio.Channel | None = None

    def _ch(self) -> grpc.aio.Channel:
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(self._target)
        return self._channel

    async def _send(self, method: str, data: bytes) -> None:
        try:
            call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = self._ch().unary_unary(method)
            await call(data)
        except grpc.aio.AioRpcError as exc:
            raise errors.CrossfnError(
                f"cannot emit to pipeline inspector: rpc error: code = {_grpc.go_code(exc.code())} desc = {exc.details()}"
            ) from exc

    async def emit_request(self, request: bytes, meta: _inspected.StepMeta) -> None:
        msg = messages["EmitRequestRequest"](request=request)
        msg.meta.CopyFrom(_step_meta(meta))
        await self._send(METHOD_EMIT_REQUEST, msg.SerializeToString())

    async def emit_response(self, response: bytes, error: str, meta: _inspected.StepMeta) -> None:
        msg = messages["EmitResponseRequest"](response=response, error=error)
        msg.meta.CopyFrom(_step_meta(meta))
        await self._send(METHOD_EMIT_RESPONSE, msg.SerializeToString())

    async def aclose(self) -> None:
        """Close the connection to the socket."""
        if self._channel is not None:
            await self._channel.close()
            self._channel = None
