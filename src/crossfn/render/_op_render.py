"""Render an Operation as ``crossplane render op`` does: one reconcile of the Operation controller (upstream ops-5).

``crossplane render op`` hands its inputs to the render engine, which runs one real Operation
reconcile against an in-memory API server and reports what the reconciler wrote; the CLI prints
it. Here the reconcile is crossfn's own (:func:`crossfn.engine.reconcile_operation`, the one
``crossfn controller`` runs) and render supplies the world around it:

1. the in-memory API server (:class:`_Store`): the Operation (``resourceVersion: "999"``), the
   required resources (the watched one included) and the credential Secrets, keyed by apiVersion,
   kind, namespace and name (a later object replaces an earlier one with the same key); required
   resources and credentials are read from it, the status writes and applies recorded;
2. with ``--context-files``/``--context-values``, a first step that seeds the context, and with
   ``-c`` a last step that captures it, both run by the CLI's in-process context function
   (:class:`_ContextFunction`) and printed in the Operation's pipeline, as the CLI adds them;
3. the Functions started as ``crossfn render`` starts them, and a failure to start one is
   ``cannot start function runtimes: ...``;
4. what it prints (:func:`documents`): the Operation as last written, after Go's typed round trip,
   then the applied resources, the events as ``Result`` documents (``-r``) and the captured
   context (``-c``). Every condition time reads 2024-01-01T00:00:00Z; the CLI means to do that
   for the Operation too, but its helper edits a copy of the typed object, so upstream prints the
   real times (docs/compatibility.md). ``-o`` changes nothing: the engine's Operation already has
   the input's spec.

A failed reconcile, a fatal result included, prints nothing: ``cannot render operation: <error>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import datetime
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.render import _engine_mode, _load, _op_inputs, _optypes, _render
from crossfn.sdk import resource

__all__ = ["CONTEXT_FUNCTION", "OperationInclude", "Recorded", "documents", "reconcile", "render_documents"]

CONTEXT_FUNCTION = "crossplane-render-context"
"""The CLI's in-process context function."""
_SEED = ("crossplane-render-inject-context", "Seed")
_CAPTURE = ("crossplane-render-extract-context", "Capture")
_RESULT_API_VERSION = "render.crossplane.io/v1beta1"
_FIXED_TIME = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
_RESOURCE_VERSION = "999"


@dataclasses.dataclass(frozen=True)
class OperationInclude:
    """What to print besides the Operation and the applied resources (``-r``, ``-o``, ``-c``)."""

    function_results: bool = False
    full_operation: bool = False
    context: bool = False


_Key = tuple[str, str, str, str]


def _key(obj: Mapping[str, Any]) -> _Key:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return (
        str(obj.get("apiVersion") or ""),
        str(obj.get("kind") or ""),
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
    )


class _Store:
    """The render engine's in-memory API server: reads for the pipeline, writes recorded."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self._objects = {_key(o): copy.deepcopy(o) for o in objects}
        self.updated: list[dict[str, Any]] = []
        """Every status write of the Operation, as stored (spec and metadata the store's, status the writer's)."""
        self.applied: list[dict[str, Any]] = []
        """Every server-side apply, in order."""

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        found = self._objects.get((api_version, kind, namespace, name))
        return copy.deepcopy(found) if found is not None else None

    async def list(
        self, api_version: str, kind: str, namespace: str | None, labels: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        found = engine.InMemoryResources(self._objects.values())
        return copy.deepcopy(await found.list(api_version, kind, namespace, labels))

    async def secret(self, namespace: str, name: str) -> Mapping[str, bytes] | None:
        found = self._objects.get(("v1", "Secret", namespace, name))
        if found is None:
            # The in-memory client's NotFound names the kind, not the resource (the API server says "secrets").
            raise errors.CrossfnError(f"Secret {errors.quote(name)} not found")
        return _load.secret_data(found, f"Secret {namespace}/{name}")

    async def update_status(self, op: dict[str, Any]) -> None:
        key = _key(op)
        merged = copy.deepcopy(self._objects.get(key, op))
        merged["status"] = copy.deepcopy(op.get("status") or {})
        self._objects[key] = merged
        self.updated.append(copy.deepcopy(merged))
        op.clear()
        op.update(copy.deepcopy(merged))

    async def apply(self, obj: dict[str, Any], *, field_owner: str) -> None:
        self.applied.append(copy.deepcopy(obj))
        self._objects[_key(obj)] = copy.deepcopy(obj)


class _ContextFunction:
    """The CLI's context function: ``Seed`` merges the given context in, ``Capture`` keeps what it was sent."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)
        self.captured: dict[str, Any] | None = None

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        mode = req.input.fields["mode"].string_value if "mode" in req.input.fields else ""
        rsp = fnv1.RunFunctionResponse()
        rsp.meta.tag = req.meta.tag
        if req.HasField("desired"):
            rsp.desired.CopyFrom(req.desired)
        if mode == _SEED[1]:
            merged = resource.struct_to_dict(req.context) if req.HasField("context") else {}
            merged.update(self._data)
            rsp.context.CopyFrom(resource.dict_to_struct(merged))
        elif mode == _CAPTURE[1]:
            self.captured = resource.struct_to_dict(req.context) if req.HasField("context") else None
        else:
            raise errors.FunctionRunError(
                f"rpc error: code = InvalidArgument desc = unsupported mode {errors.quote(mode)}"
            )
        return rsp


def _step(names: tuple[str, str]) -> dict[str, Any]:
    return {"step": names[0], "functionRef": {"name": CONTEXT_FUNCTION}, "input": {"mode": names[1]}}


@dataclasses.dataclass
class Recorded:
    """What the in-memory API server saw during the reconcile."""

    updated: list[dict[str, Any]]
    applied: list[dict[str, Any]]
    events: list[engine.Event]
    context: dict[str, Any] | None
    """What the capture step was sent (``-c``), or ``None``."""
    error: errors.CrossfnError | None


def _schemas(inputs: _op_inputs.Inputs) -> engine.SchemaSource:
    if not inputs.schema_documents:
        return engine.NoSchemas()
    from crossfn.schemas import store  # noqa: PLC0415 -- only --required-schemas needs it; keep startup fast

    schemas = store.SchemaStore(builtins=False)
    for doc in inputs.schema_documents:
        schemas.add(doc)
    return schemas


async def reconcile(
    inputs: _op_inputs.Inputs,
    transport: engine.FunctionRunner,
    include: OperationInclude,
    *,
    clock: Callable[[], datetime.datetime] = lambda: _FIXED_TIME,
) -> Recorded:
    """One reconcile of the Operation in ``inputs`` through ``transport`` (the module docstring's steps 1–2)."""
    op = copy.deepcopy(inputs.operation)
    pipeline = list(op["spec"].get("pipeline") or [])
    context_fn = _ContextFunction(inputs.context)
    if inputs.seed_context:
        pipeline.insert(0, _step(_SEED))
    if include.context:
        pipeline.append(_step(_CAPTURE))
    op["spec"]["pipeline"] = pipeline if pipeline or op["spec"].get("pipeline") is not None else None
    op["metadata"]["resourceVersion"] = _RESOURCE_VERSION
    store = _Store([op, *inputs.required, *inputs.credentials])
    sources = engine.Sources(resources=store, schemas=_schemas(inputs), credentials=store)
    routes = engine.RoutingRunner(lambda name: context_fn if name == CONTEXT_FUNCTION else transport)
    runner = engine.build_runner(routes, sources=sources, options=engine.ComposeOptions.operation())
    outcome = await engine.reconcile_operation(op, runner, store=store, sources=sources, clock=clock)
    return Recorded(
        updated=store.updated,
        applied=store.applied,
        events=outcome.events,
        context=context_fn.captured,
        error=outcome.error,
    )


def _operation(written: Mapping[str, Any]) -> dict[str, Any]:
    """The Operation as the CLI prints it: through Go's typed ``Operation``, condition times fixed."""
    op = _optypes.round_trip(written, _optypes.OPERATION)
    for condition in op["status"].get("conditions") or []:
        condition["lastTransitionTime"] = _engine_mode.FIXED_TIME
    return op


def documents(recorded: Recorded, include: OperationInclude) -> list[Any]:
    """The documents ``crossplane render op`` prints, in order (upstream ops-5)."""
    docs: list[Any] = []
    if recorded.updated:
        docs.append(_operation(recorded.updated[-1]))
    for obj in recorded.applied:
        applied = copy.deepcopy(obj)
        _engine_mode.normalise_condition_times(applied)
        docs.append(applied)
    if include.function_results:
        docs.extend(
            {
                "apiVersion": _RESULT_API_VERSION,
                "kind": "Result",
                "message": e.message,
                "reason": e.reason,
                "severity": e.type,
            }
            for e in recorded.events
        )
    if include.context and recorded.context is not None:
        docs.append({"apiVersion": _RESULT_API_VERSION, "kind": "Context", "fields": recorded.context})
    return docs


def _unknown(name: str) -> Exception:
    return _engine_mode.CURRENT.unknown_function(name)


async def _reconcile_started(
    inputs: _op_inputs.Inputs, include: OperationInclude, timeout: float, report: Callable[[str], None]
) -> Recorded:
    async with contextlib.AsyncExitStack() as stack:
        try:
            transport = await stack.enter_async_context(
                _render.functions_transport(
                    inputs.functions, inputs.functions_dir, timeout=timeout, report=report, unknown=_unknown
                )
            )
        except errors.CrossfnError as exc:
            raise errors.wrap(exc, "cannot start function runtimes") from exc
        return await reconcile(inputs, transport, include)


async def render_documents(
    inputs: _op_inputs.Inputs,
    *,
    include: OperationInclude = OperationInclude(),
    timeout: float = 60.0,
    report: Callable[[str], None] = lambda _: None,
) -> list[Any]:
    """Render ``inputs`` within ``timeout`` seconds; a failed reconcile is ``cannot render operation: ...``.

    ``report`` receives one line per Function saying which runtime it uses (``--verbose``).
    """
    try:
        async with asyncio.timeout(timeout):
            recorded = await _reconcile_started(inputs, include, timeout, report)
    except TimeoutError as exc:
        raise errors.CrossfnError("cannot render operation: context deadline exceeded") from exc
    if recorded.error is not None:
        raise errors.wrap(recorded.error, "cannot render operation") from recorded.error
    return documents(recorded, include)
