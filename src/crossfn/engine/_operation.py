"""The Operation reconciler: run an Operation's pipeline once and apply what it returns (upstream ops-1).

An Operation (``ops.crossplane.io/v1alpha1``) is a function pipeline with no composite: each step
gets no observed state, the desired state and context of the step before it, and the resources it
requires; the desired resources the last step leaves are server-side applied as they are. Crossplane's
reconcile, in order (upstream ops-1 steps 1–10):

1. an Operation being deleted, or finished (``Succeeded`` ``True`` or ``False``), is left alone:
   an Operation never runs twice;
2. at ``status.failures >= spec.retryLimit`` (default 5) it is marked failed, ``failure limit of
   <n> reached``;
3. it is marked running (``Succeeded`` ``Unknown``, ``PipelineRunning``) and the status written,
   which fails on a stale copy;
4. every function must have the ``operation`` capability, else ``ValidPipeline`` is ``False``
   (``MissingCapabilities``) and the reconcile fails; then ``ValidPipeline`` is ``True``;
5. the pipeline runs (:func:`~crossfn.engine.run_pipeline`, with ``ComposeOptions.operation()``);
   as each step returns, its Normal and Warning results become ``RunPipelineStep`` events
   (``Pipeline step "<step>": <message>``) and its ``output`` is written to ``status.pipeline``;
6. an input that does not decode fails the Operation at once (no retry); any other failure (a
   credential, a bootstrap requirement, the call, a fatal result, an output with no JSON form, an
   apply) adds one to ``status.failures``, records a Warning event and sets ``Synced`` ``False``,
   and the reconcile fails so that the controller tries again later;
7. every desired resource is server-side applied with field owner
   ``ops.crossplane.io/operation/<uid>`` and forced ownership, and referenced, sorted, in
   ``status.appliedResourceRefs``;
8. ``Synced`` ``True`` and ``Succeeded`` ``True`` (``PipelineSuccess``).

:func:`reconcile_operation` is that reconcile, once, for every caller: ``crossfn render op`` runs it
against an in-memory store and ``crossfn controller`` against the API server, as Crossplane's render
runs its reconciler against an in-memory client. The Operation is a dict the reconcile updates in
place; writes go through the caller's :class:`OperationStore`, reads through the engine's sources,
and the events come back in :class:`OperationReconcile`. Crossplane applies the desired resources in
Go map order, which differs from run to run; crossfn applies them in name order.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from google.protobuf import struct_pb2

from crossfn import errors
from crossfn.engine import _clock, _model, _options, _pipeline, _runner, _sources, _steps, _tracing, _xr
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = [
    "CAPABILITY_OPERATION",
    "DEFAULT_RETRY_LIMIT",
    "FIELD_OWNER_PREFIX",
    "REQUIREMENT_WATCHED_RESOURCE",
    "OperationReconcile",
    "OperationStore",
    "add_resource_ref",
    "add_step_output",
    "inject_watched",
    "is_complete",
    "reconcile_operation",
    "watched_requirement",
]

FIELD_OWNER_PREFIX = "ops.crossplane.io/operation/"
"""With the Operation's uid, the server-side apply field owner of what it applies."""
DEFAULT_RETRY_LIMIT = 5
"""``spec.retryLimit`` when unset: how many failures an Operation may have."""
CAPABILITY_OPERATION = "operation"
"""What a Function's revision must advertise to run in an Operation."""
REQUIREMENT_WATCHED_RESOURCE = "ops.crossplane.io/watched-resource"
"""The requirement a WatchOperation adds to each step of the Operations it makes, naming the resource that changed."""

_SUCCEEDED = "Succeeded"
_VALID_PIPELINE = "ValidPipeline"
_SYNCED = "Synced"

# Event reasons (upstream ops-1).
_RUN_PIPELINE_STEP = "RunPipelineStep"
_FUNCTION_INVOCATION = "FunctionInvocation"
_INVALID_OUTPUT = "InvalidOutput"
_INVALID_RESOURCE = "InvalidResource"
_INVALID_PIPELINE = "InvalidPipeline"
_BOOTSTRAP_REQUIREMENTS = "BootstrapRequirements"

_REASONS = {
    _steps.Failure.CREDENTIAL: _FUNCTION_INVOCATION,
    _steps.Failure.BOOTSTRAP: _BOOTSTRAP_REQUIREMENTS,
    _steps.Failure.CALL: _FUNCTION_INVOCATION,
}


class OperationStore(Protocol):
    """Where the reconcile writes: the Operation's status and the resources its pipeline returned."""

    async def update_status(self, op: dict[str, Any]) -> None:
        """Write ``op``'s status (the status subresource); a stale ``op`` fails. May update ``op``'s metadata."""
        ...

    async def apply(self, obj: dict[str, Any], *, field_owner: str) -> None:
        """Server-side apply ``obj`` as ``field_owner``, forcing ownership of conflicting fields."""
        ...


CapabilityCheck = Callable[[Sequence[str]], Awaitable[None]]
"""Checks that the named Functions can run operations; raises a CrossfnError naming the one that cannot."""


@dataclasses.dataclass
class OperationReconcile:
    """What one reconcile did besides updating the Operation: events to record, and whether it failed."""

    events: list[_model.Event] = dataclasses.field(default_factory=list)
    """In the order Crossplane records them, on the Operation."""
    error: errors.CrossfnError | None = None
    """Why the reconcile failed: the controller tries again with backoff (unless the Operation is
    now finished), render fails with it. A fatal result is a :class:`~crossfn.errors.PipelineFatalError`."""
    ran: bool = False
    """Whether the Operation was reconciled at all (``False``: deleted or already finished)."""


def _meta(op: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = op.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _spec(op: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = op.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _status(op: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(op.get("status"), dict):
        op["status"] = {}
    status: dict[str, Any] = op["status"]
    return status


def _condition(op: Mapping[str, Any], type_: str) -> Mapping[str, Any]:
    status = op.get("status")
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    for c in conditions if isinstance(conditions, list) else []:
        if isinstance(c, Mapping) and c.get("type") == type_:
            return c
    return {}


def is_complete(op: Mapping[str, Any]) -> bool:
    """Whether the Operation has finished: ``Succeeded`` is ``True`` or ``False`` (both are final)."""
    return _condition(op, _SUCCEEDED).get("status") in ("True", "False")


def _int(value: object, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value)


def _retry_limit(op: Mapping[str, Any]) -> int:
    limit = _spec(op).get("retryLimit")
    return DEFAULT_RETRY_LIMIT if limit is None else _int(limit, DEFAULT_RETRY_LIMIT)


def add_resource_ref(refs: list[dict[str, Any]], obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``refs`` with a reference to ``obj`` added unless one is there, then sorted (Crossplane's ``AddResourceRef``).

    The sort key is apiVersion, kind, namespace and name joined with nothing between them, and the
    list is sorted only when a reference is added.
    """
    meta = _meta(obj)
    ref: dict[str, Any] = {
        "apiVersion": str(obj.get("apiVersion") or ""),
        "kind": str(obj.get("kind") or ""),
        "name": str(meta.get("name") or ""),
    }
    if meta.get("namespace"):
        ref["namespace"] = str(meta["namespace"])

    def key(r: Mapping[str, Any]) -> str:
        return (
            f"{r.get('apiVersion') or ''}{r.get('kind') or ''}{r.get('namespace') or ''}{r.get('name') or ''}"
        )

    if any(key(r) == key(ref) and _same_ref(r, ref) for r in refs):
        return refs
    return sorted([*refs, ref], key=key)


def _same_ref(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all((a.get(k) or "") == (b.get(k) or "") for k in ("apiVersion", "kind", "name", "namespace"))


def add_step_output(pipeline: list[dict[str, Any]], step: str, output: Any) -> list[dict[str, Any]]:
    """``status.pipeline`` with ``step``'s output set in place, or appended when the step has no entry yet."""
    for entry in pipeline:
        if entry.get("step") == step:
            entry["output"] = output
            return pipeline
    return [*pipeline, {"step": step, "output": output}]


def watched_requirement(watched: Mapping[str, Any]) -> dict[str, Any]:
    """The ``requiredResources`` selector a WatchOperation adds to each step for the resource that changed.

    Named ``ops.crossplane.io/watched-resource``; it selects the resource by name, and by namespace when
    it has one (upstream ops-3 item 5).
    """
    meta = _meta(watched)
    selector: dict[str, Any] = {
        "requirementName": REQUIREMENT_WATCHED_RESOURCE,
        "apiVersion": str(watched.get("apiVersion") or ""),
        "kind": str(watched.get("kind") or ""),
        "name": str(meta.get("name") or ""),
    }
    if meta.get("namespace"):
        selector["namespace"] = str(meta["namespace"])
    return selector


def inject_watched(spec: dict[str, Any], watched: Mapping[str, Any]) -> None:
    """Append :func:`watched_requirement` to every step's ``requirements.requiredResources`` of ``spec``, in place."""
    pipeline = spec.get("pipeline")
    for step in pipeline if isinstance(pipeline, list) else []:
        if not isinstance(step, dict):
            continue
        if not isinstance(step.get("requirements"), dict):
            step["requirements"] = {}
        requirements = step["requirements"]
        existing = requirements.get("requiredResources")
        requirements["requiredResources"] = [
            *(existing if isinstance(existing, list) else []),
            watched_requirement(watched),
        ]


def _json_problem(value: struct_pb2.Value) -> str | None:
    """What protojson refuses in a Struct value (a non-finite number, a value with no kind), or ``None``."""
    kind = value.WhichOneof("kind")
    if kind is None:
        return "google.protobuf.Value: none of the oneof fields is set"
    if kind == "number_value" and not math.isfinite(value.number_value):
        word = "NaN" if math.isnan(value.number_value) else ("+Inf" if value.number_value > 0 else "-Inf")
        return f"google.protobuf.Value.number_value: invalid {word} value"
    children: Sequence[struct_pb2.Value] = ()
    if kind == "struct_value":
        children = list(value.struct_value.fields.values())
    elif kind == "list_value":
        children = list(value.list_value.values)
    for child in children:
        problem = _json_problem(child)
        if problem is not None:
            return problem
    return None


def _output(step: str, output: struct_pb2.Struct) -> dict[str, Any]:
    """A step's output as JSON, or the reconciler's ``InvalidOutput`` error (protojson's text)."""
    for value in output.fields.values():
        problem = _json_problem(value)
        if problem is not None:
            raise _InvalidOutput(
                f"cannot marshal pipeline step {errors.quote(step)} output to JSON: proto: {problem}"
            )
    return resource.struct_to_dict(output)


class _InvalidOutput(errors.CrossfnError):
    """A step's output has no JSON form; stops the pipeline from the response observer."""


@dataclasses.dataclass
class _Run:
    """One reconcile's working state: the Operation, the time and the events so far."""

    op: dict[str, Any]
    store: OperationStore
    clock: Callable[[], datetime.datetime]
    out: OperationReconcile

    def mark(self, *conditions: tuple[str, str, str, str]) -> None:
        """Set conditions ``(type, status, reason, message)`` on the Operation, marked with its generation."""
        now = self.clock()
        for type_, status, reason, message in conditions:
            _xr.set_object_condition(
                self.op, _xr.object_condition(self.op, type_, status, reason, now=now, message=message)
            )

    def event(self, type_: str, reason: str, message: str) -> None:
        self.out.events.append(_model.Event(type_, reason, message))

    async def update(self) -> errors.CrossfnError | None:
        """Write the status; the error, ``cannot update Operation status: ...``, if that failed."""
        try:
            await self.store.update_status(self.op)
        except errors.CrossfnError as exc:
            return errors.wrap(exc, "cannot update Operation status")
        return None

    async def fail(self, reason: str, error: errors.CrossfnError, *extra: tuple[str, str, str, str]) -> None:
        """A failure that counts towards the retry limit: event, ``Synced`` ``False``, status written (best effort)."""
        status = _status(self.op)
        status["failures"] = _int(status.get("failures"), 0) + 1
        self.event("Warning", reason, str(error))
        self.mark((_SYNCED, "False", "ReconcileError", str(error)), *extra)
        await self.update()
        self.out.error = error

    async def give_up(self, message: str, error: errors.CrossfnError) -> None:
        """A failure no retry can fix: ``Succeeded`` ``False`` at once, the status written (best effort)."""
        self.mark((_SYNCED, "True", "ReconcileSuccess", ""), (_SUCCEEDED, "False", "PipelineError", message))
        await self.update()
        self.out.error = error


def _steps_of(op: Mapping[str, Any]) -> list[_model.PipelineStep]:
    pipeline = _spec(op).get("pipeline")
    steps = []
    for i, d in enumerate(pipeline if isinstance(pipeline, list) else []):
        if not isinstance(d, Mapping):
            raise errors.InputError(f"cannot parse pipeline step: spec.pipeline[{i}] must be an object")
        steps.append(_model.PipelineStep.from_dict(d, where=f"spec.pipeline[{i}]"))
    return steps


def _function_names(op: Mapping[str, Any]) -> list[str]:
    pipeline = _spec(op).get("pipeline")
    names = []
    for d in pipeline if isinstance(pipeline, list) else []:
        ref = d.get("functionRef") if isinstance(d, Mapping) else None
        names.append(str((ref.get("name") if isinstance(ref, Mapping) else "") or ""))
    return names


def _observer(run: _Run) -> Callable[[_model.PipelineStep, fnv1.RunFunctionResponse], None]:
    """Step 5: a step's results as events, then its output in ``status.pipeline``, as each step returns."""

    def observe(step: _model.PipelineStep, rsp: fnv1.RunFunctionResponse) -> None:
        detail = f"Pipeline step {errors.quote(step.step)}"
        for r in rsp.results:
            if r.severity == fnv1.SEVERITY_FATAL:
                return  # the fatal result fails the Operation; the output of this step is not recorded
            if r.severity == fnv1.SEVERITY_WARNING:
                run.event("Warning", _RUN_PIPELINE_STEP, f"{detail}: {r.message}")
            elif r.severity == fnv1.SEVERITY_NORMAL:
                run.event("Normal", _RUN_PIPELINE_STEP, f"{detail}: {r.message}")
            else:
                message = f"{detail} returned a result of unknown severity (assuming warning): {r.message}"
                run.event("Warning", _RUN_PIPELINE_STEP, message)
        if rsp.HasField("output"):
            status = _status(run.op)
            pipeline = status.get("pipeline")
            status["pipeline"] = add_step_output(
                pipeline if isinstance(pipeline, list) else [], step.step, _output(step.step, rsp.output)
            )

    return observe


async def reconcile_operation(
    op: dict[str, Any],
    runner: _runner.FunctionRunner,
    *,
    store: OperationStore,
    sources: _sources.Sources | None = None,
    check_capabilities: CapabilityCheck | None = None,
    clock: Callable[[], datetime.datetime] = _clock.utcnow,
    tracer: _tracing.Tracer | None = None,
    trace_id: str | None = None,
) -> OperationReconcile:
    """Reconcile ``op`` once (the module docstring's steps), updating it in place.

    ``runner`` is the whole stack (:func:`~crossfn.engine.build_runner` with
    ``ComposeOptions.operation()``). ``check_capabilities`` ``None`` checks nothing (render).
    """
    out = OperationReconcile()
    meta = _meta(op)
    if meta.get("deletionTimestamp") or is_complete(op):
        return out
    out.ran = True
    run = _Run(op, store, clock, out)
    status = _status(op)
    limit = _retry_limit(op)
    if _int(status.get("failures"), 0) >= limit:
        run.mark(
            (_SYNCED, "True", "ReconcileSuccess", ""),
            (_SUCCEEDED, "False", "PipelineError", f"failure limit of {limit} reached"),
        )
        out.error = await run.update()
        return out
    run.mark((_SUCCEEDED, "Unknown", "PipelineRunning", ""))
    out.error = await run.update()
    if out.error is not None:
        return out
    if check_capabilities is not None:
        try:
            await check_capabilities(_function_names(op))
        except errors.CrossfnError as exc:
            error = errors.wrap(exc, "function capability check failed")
            await run.fail(
                _INVALID_PIPELINE, error, (_VALID_PIPELINE, "False", "MissingCapabilities", str(error))
            )
            return out
    run.mark((_VALID_PIPELINE, "True", "ValidPipeline", ""))
    pipeline = await _run_pipeline(run, runner, sources, tracer, trace_id)
    if pipeline is None:
        return out
    await _apply(run, pipeline.desired)
    if out.error is not None:
        return out
    run.mark((_SYNCED, "True", "ReconcileSuccess", ""), (_SUCCEEDED, "True", "PipelineSuccess", ""))
    out.error = await run.update()
    return out


async def _run_pipeline(
    run: _Run,
    runner: _runner.FunctionRunner,
    sources: _sources.Sources | None,
    tracer: _tracing.Tracer | None,
    trace_id: str | None,
) -> _model.PipelineRun | None:
    """Steps 5–6: the pipeline, its failures recorded on the Operation; ``None`` when it failed."""
    try:
        steps = _steps_of(run.op)
    except errors.InputError as exc:
        await run.give_up(str(exc), errors.wrap(exc, "cannot parse Operation pipeline"))
        return None
    try:
        pipeline = await _pipeline.run_pipeline(
            None, steps, runner, sources=sources, options=_options.ComposeOptions.operation(), clock=run.clock,
            tracer=tracer, trace_id=trace_id, on_response=_observer(run),
            operation=(str(_meta(run.op).get("name") or ""), str(_meta(run.op).get("uid") or "")),
        )  # fmt: skip
    except _steps.OperationStepError as exc:
        if exc.failure is _steps.Failure.INPUT:
            await run.give_up(exc.context, exc)
        else:
            await run.fail(_REASONS[exc.failure], exc)
        return None
    except _InvalidOutput as exc:
        await run.fail(_INVALID_OUTPUT, exc)
        return None
    except errors.CrossfnError as exc:
        await run.fail(_FUNCTION_INVOCATION, exc)
        return None
    if pipeline.fatal is not None:
        await run.fail(_FUNCTION_INVOCATION, pipeline.fatal)
        return None
    return pipeline


async def _apply(run: _Run, desired: fnv1.State | None) -> None:
    """Step 7: every desired resource applied, in name order, and referenced in ``status.appliedResourceRefs``."""
    if desired is None:
        return
    owner = FIELD_OWNER_PREFIX + str(_meta(run.op).get("uid") or "")
    for name in sorted(desired.resources):
        obj = resource.struct_to_dict(desired.resources[name].resource)
        try:
            await run.store.apply(obj, field_owner=owner)
        except errors.CrossfnError as exc:
            await run.fail(_INVALID_RESOURCE, errors.wrap(exc, "cannot apply desired resource"))
            return
        status = _status(run.op)
        refs = status.get("appliedResourceRefs")
        status["appliedResourceRefs"] = add_resource_ref(refs if isinstance(refs, list) else [], obj)
