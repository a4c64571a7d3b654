"""The pipeline inspector: show every request and response, secrets redacted (upstream core-2.5 item 1;
upstream core-4.8).

:class:`InspectedRunner` emits the sanitised request before the call and the
response (or the error) after it to a :class:`PipelineInspector`, with a
:class:`StepMeta` naming the trace, step, iteration and XR. Crossplane sends
these over a gRPC unix socket; the transport is the caller's, this module
only decides *what* is emitted. Inspection is a side concern: an emit that
fails or takes longer than its budget is logged and counted, and the call
goes on; metadata that cannot be built skips inspection, never the call.

Sanitising keeps keys and replaces values with ``**REDACTED**``: credential
data, every connection detail (observed, desired, required), and the
``data``/``stringData`` of ``v1`` Secrets anywhere in the request.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Protocol

from google.protobuf import json_format, struct_pb2

from crossfn.engine import _callctx, _clock, _runner
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = [
    "REDACTED",
    "InspectedRunner",
    "InspectorMetrics",
    "PipelineInspector",
    "StepMeta",
    "sanitize_request",
    "sanitize_response",
]

_log = logging.getLogger("crossfn.engine.inspected")

REDACTED = "**REDACTED**"
_EMIT_TIMEOUT = 0.1  # Crossplane's 100 ms budget per emit: inspection must not slow the pipeline


@dataclasses.dataclass(frozen=True)
class StepMeta:
    """Where an emitted message belongs (Crossplane's ``StepMeta``, with ``CompositionMeta``, or
    ``OperationMeta`` when ``operation_uid`` or ``operation_name`` is set)."""

    timestamp: datetime.datetime
    trace_id: str
    span_id: str
    step_index: int
    step_name: str
    iteration: int
    function_name: str
    composition_name: str
    composite_resource_uid: str
    composite_resource_name: str
    composite_resource_namespace: str
    composite_resource_api_version: str
    composite_resource_kind: str
    operation_name: str = ""
    operation_uid: str = ""


class PipelineInspector(Protocol):
    """Receives what the pipeline sends and gets: protojson bytes of sanitised messages."""

    async def emit_request(self, request: bytes, meta: StepMeta) -> None: ...

    async def emit_response(self, response: bytes, error: str, meta: StepMeta) -> None:
        """``response`` is empty when the call failed; ``error`` is empty when it did not."""
        ...


class InspectorMetrics(Protocol):
    """Counts emit failures as ``function_run_function_pipeline_inspector_errors_total``."""

    def inspector_error(self, function: str, kind: str) -> None:
        """``kind`` is ``request`` or ``response``."""
        ...


class _NoInspectorMetrics:
    def inspector_error(self, function: str, kind: str) -> None:
        return None


class InspectedRunner:
    """Wraps a runner, emitting each request and response to an inspector."""

    def __init__(
        self,
        wrapped: _runner.FunctionRunner,
        inspector: PipelineInspector,
        *,
        metrics: InspectorMetrics | None = None,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
    ) -> None:
        self._wrapped = wrapped
        self._inspector = inspector
        self._metrics = metrics or _NoInspectorMetrics()
        self._clock = clock

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        try:
            meta = self._meta(name, req)
        except Exception:
            _log.exception("cannot build pipeline inspector metadata for function %r", name)
            meta = None
        if meta is None:
            return await self._wrapped.run_function(name, req)
        await self._emit(name, "request", self._inspector.emit_request(_json(sanitize_request(req)), meta))
        try:
            rsp = await self._wrapped.run_function(name, req)
        except Exception as exc:
            await self._emit(name, "response", self._inspector.emit_response(b"", str(exc), meta))
            raise
        await self._emit(
            name, "response", self._inspector.emit_response(_json(sanitize_response(rsp)), "", meta)
        )
        return rsp

    def _meta(self, name: str, req: fnv1.RunFunctionRequest) -> StepMeta | None:
        """The step's metadata, or ``None`` (inspection skipped) outside a pipeline step."""
        step = _callctx.STEP.get()
        if step is None:
            _log.debug("no pipeline step in context; not inspecting call to function %r", name)
            return None
        xr = req.observed.composite.resource
        meta = xr.fields["metadata"].struct_value if "metadata" in xr.fields else struct_pb2.Struct()

        def text(s: struct_pb2.Struct, key: str) -> str:
            return s.fields[key].string_value if key in s.fields else ""

        return StepMeta(
            timestamp=self._clock(),
            trace_id=step.trace_id,
            span_id=str(uuid.uuid4()),
            step_index=step.index,
            step_name=step.name,
            iteration=_callctx.ITERATION.get(),
            function_name=name,
            composition_name=step.composition_name,
            composite_resource_uid=text(meta, "uid"),
            composite_resource_name=text(meta, "name"),
            composite_resource_namespace=text(meta, "namespace"),
            composite_resource_api_version=text(xr, "apiVersion"),
            composite_resource_kind=text(xr, "kind"),
            operation_name=step.operation[0] if step.operation else "",
            operation_uid=step.operation[1] if step.operation else "",
        )

    async def _emit(self, name: str, kind: str, emit: Awaitable[None]) -> None:
        try:
            await asyncio.wait_for(emit, _EMIT_TIMEOUT)
        except Exception:
            _log.exception("cannot emit %s of function %r to the pipeline inspector", kind, name)
            try:
                self._metrics.inspector_error(name, kind)
            except Exception:
                _log.exception("cannot count pipeline inspector error")


def _json(msg: fnv1.RunFunctionRequest | fnv1.RunFunctionResponse) -> bytes:
    return json_format.MessageToJson(msg, indent=None).encode()


def sanitize_request(req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionRequest:
    """A copy of ``req`` with credentials, connection details and Secret data redacted."""
    out = fnv1.RunFunctionRequest()
    out.CopyFrom(req)
    for cred in out.credentials.values():
        data = cred.credential_data.data
        for key in list(data):  # never write a protobuf map while iterating it
            data[key] = REDACTED.encode()
    _sanitize_state(out.observed)
    _sanitize_state(out.desired)
    for group in (out.required_resources, out.extra_resources):
        for resources in group.values():
            for item in resources.items:
                _sanitize_resource(item)
    return out


def sanitize_response(rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    """A copy of ``rsp`` with desired connection details and Secret data redacted."""
    out = fnv1.RunFunctionResponse()
    out.CopyFrom(rsp)
    _sanitize_state(out.desired)
    return out


def _sanitize_state(state: fnv1.State) -> None:
    _sanitize_resource(state.composite)
    for r in state.resources.values():
        _sanitize_resource(r)


def _sanitize_resource(r: fnv1.Resource) -> None:
    details = r.connection_details
    for key in list(details):
        details[key] = REDACTED.encode()
    fields = r.resource.fields
    is_secret = (
        "apiVersion" in fields and fields["apiVersion"].string_value == "v1"
        and "kind" in fields and fields["kind"].string_value == "Secret"
    )  # fmt: skip
    if not is_secret:
        return
    for section in ("data", "stringData"):
        if section in fields and fields[section].HasField("struct_value"):
            values = fields[section].struct_value.fields
            for key in list(values):
                values[key].string_value = REDACTED
