"""Crossplane's pipeline inspector transport: gRPC over a unix socket
(upstream core-1.6; core-4.8 socket_test.go).

A sidecar serving ``crossplane.pipeline.v1alpha1.PipelineInspectorService``
listens on a unix socket (Crossplane's default
``/var/run/pipeline-inspector/socket``); :class:`SocketInspector` sends it what
:class:`~crossfn.engine.InspectedRunner` emits, so the sidecars written for
Crossplane work unchanged. The service and its messages are generated from
``crossfn/proto/pipeline/v1alpha1/pipeline_inspector.proto``. Errors are translated into :class:`~crossfn.errors.CrossfnError`;
the inspected runner logs and counts them.
"""

from __future__ import annotations

import grpc
import grpc.aio

from crossfn import errors
from crossfn.engine import _grpc, _inspected
from crossfn.proto.pipeline.v1alpha1 import pipeline_inspector_pb2 as inspectorpb
from crossfn.proto.pipeline.v1alpha1 import pipeline_inspector_pb2_grpc as inspectorgrpc

__all__ = ["DEFAULT_SOCKET", "SocketInspector"]

DEFAULT_SOCKET = "/var/run/pipeline-inspector/socket"


def _step_meta(meta: _inspected.StepMeta) -> inspectorpb.StepMeta:
    out = inspectorpb.StepMeta(
        trace_id=meta.trace_id,
        span_id=meta.span_id,
        step_index=meta.step_index,
        step_name=meta.step_name,
        iteration=meta.iteration,
        function_name=meta.function_name,
    )
    out.timestamp.FromDatetime(meta.timestamp)
    if meta.operation_name or meta.operation_uid:
        out.operation_meta.CopyFrom(
            inspectorpb.OperationMeta(operation_name=meta.operation_name, operation_uid=meta.operation_uid)
        )
        return out
    out.composition_meta.CopyFrom(
        inspectorpb.CompositionMeta(
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

    def _stub(self) -> inspectorgrpc.PipelineInspectorServiceAsyncStub:
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(self._target)
        # An aio channel gives the async stub; without grpc stubs mypy sees only the sync one.
        return inspectorgrpc.PipelineInspectorServiceStub(self._channel)  # type: ignore[return-value, unused-ignore]

    async def emit_request(self, request: bytes, meta: _inspected.StepMeta) -> None:
        try:
            await self._stub().EmitRequest(
                inspectorpb.EmitRequestRequest(request=request, meta=_step_meta(meta))
            )
        except grpc.aio.AioRpcError as exc:
            raise _emit_error(exc) from exc

    async def emit_response(self, response: bytes, error: str, meta: _inspected.StepMeta) -> None:
        msg = inspectorpb.EmitResponseRequest(response=response, error=error, meta=_step_meta(meta))
        try:
            await self._stub().EmitResponse(msg)
        except grpc.aio.AioRpcError as exc:
            raise _emit_error(exc) from exc

    async def aclose(self) -> None:
        """Close the connection to the socket."""
        if self._channel is not None:
            await self._channel.close()
            self._channel = None


def _emit_error(exc: grpc.aio.AioRpcError) -> errors.CrossfnError:
    code = _grpc.go_code(exc.code())
    return errors.CrossfnError(
        f"cannot emit to pipeline inspector: rpc error: code = {code} desc = {exc.details()}"
    )
