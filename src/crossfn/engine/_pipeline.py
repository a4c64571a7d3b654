"""Running a Composition's function pipeline (upstream core-2.2 step 4–5, upstream core-2.3, core-2.9).

The loop is small on purpose: :func:`run_pipeline` walks the steps and hands
each to :func:`_build_request` (what the step is sent) and :func:`_fold`
(what its response changes). Presence is the protocol's subtle part and is
kept exactly: the first step gets a present-but-empty ``desired`` and
``context``; every later step gets exactly what the previous one returned, so
an absent field stays absent.

The runner passed in is the whole stack (see ``_stack``): the requirements
loop and the cache sit inside it, so a step here is one logical call.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from google.protobuf import message

from crossfn import errors
from crossfn.engine import (
    _callctx,
    _clock,
    _events,
    _model,
    _options,
    _required,
    _runner,
    _sources,
    _steps,
    _tag,
    _tracing,
)
from crossfn.gocompat import values
from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["CAPABILITIES", "run_pipeline"]

_log = logging.getLogger("crossfn.engine.pipeline")

CAPABILITIES = (
    fnv1.CAPABILITY_CAPABILITIES,
    fnv1.CAPABILITY_REQUIRED_RESOURCES,
    fnv1.CAPABILITY_CREDENTIALS,
    fnv1.CAPABILITY_CONDITIONS,
    fnv1.CAPABILITY_REQUIRED_SCHEMAS,
)
"""What the engine advertises in every request, in Crossplane's order (upstream core-2.3)."""


@dataclasses.dataclass
class _State:
    """The pipeline state carried from step to step."""

    desired: fnv1.State | None
    context: Any  # a Struct, or None when a step left it absent
    ttl: datetime.timedelta = datetime.timedelta(0)
    events: list[_model.Event] = dataclasses.field(default_factory=list)
    conditions: list[_model.Condition] = dataclasses.field(default_factory=list)
    results: list[_model.FunctionResult] = dataclasses.field(default_factory=list)
    requirements: dict[str, fnv1.Requirements] = dataclasses.field(default_factory=dict)
    fatal: errors.PipelineFatalError | None = None


async def run_pipeline(
    observed: fnv1.State | None,
    steps: Sequence[_model.PipelineStep],
    runner: _runner.FunctionRunner,
    *,
    context: Mapping[str, Any] | None = None,
    sources: _sources.Sources | None = None,
    options: _options.ComposeOptions | None = None,
    clock: Callable[[], datetime.datetime] = _clock.utcnow,
    tracer: _tracing.Tracer | None = None,
    trace_id: str | None = None,
    composition_name: str = "",
    seed: Mapping[str, fnv1.Requirements] | None = None,
    on_response: Callable[[_model.PipelineStep, fnv1.RunFunctionResponse], None] | None = None,
    operation: tuple[str, str] | None = None,
) -> _model.PipelineRun:
    """Run ``steps`` in order against ``observed`` and return what they produced.

    ``observed`` ``None`` sends no observed state at all, as Operations do.

    ``context`` seeds the first step's context (classic render's
    ``--context-values``; the controller passes nothing). A fatal result ends
    the run early with :attr:`PipelineRun.fatal` set; other failures raise a
    :class:`~crossfn.errors.CrossfnError` naming the step. ``tracer`` defaults
    to OpenTelemetry spans when the process has imported OpenTelemetry; ``trace_id`` to a new UUID
    (one per reconcile, as Crossplane's inspector). ``composition_name`` only
    labels what the pipeline inspector emits; ``operation`` (name, uid) makes it emit the
    steps as an Operation's. ``seed`` is the previous run's
    :attr:`PipelineRun.requirements`: each step's required resources are
    fetched up front (HEAD's dependency tracker), so a function whose
    requirements have not changed is called once; seed fetch errors are ignored.
    """
    sources = sources or _sources.Sources()
    options = options or _options.ComposeOptions()
    tracer = tracer or _tracing.default_tracer()
    trace_id = trace_id or str(uuid.uuid4())
    state = _State(desired=fnv1.State(), context=resource.dict_to_struct(context or {}))
    # Every step is sent the same observed state: it is encoded once.
    observed_wire = b"" if observed is None else _field(_OBSERVED, observed)
    for index, step in enumerate(steps):
        req = await _build_request(
            observed_wire, step, state, sources, options, seed=(seed or {}).get(step.step)
        )
        token = _callctx.STEP.set(_callctx.Step(trace_id, index, step.step, composition_name, operation))
        try:
            with _tracing.guarded_step(
                tracer, trace_id=trace_id, step=step.step, function=step.function_ref, index=index
            ):
                rsp = await _call(runner, step, req, options.step_texts)
        finally:
            _callctx.STEP.reset(token)
        _fold(step, rsp, state, clock())
        if on_response is not None:
            on_response(step, rsp)
        if state.fatal is not None:
            break
    return _model.PipelineRun(
        desired=state.desired,
        context=resource.struct_to_dict(state.context) if state.context is not None else None,
        events=tuple(state.events),
        conditions=tuple(state.conditions),
        results=tuple(state.results),
        requirements=state.requirements,
        ttl=state.ttl,
        trace_id=trace_id,
        fatal=state.fatal,
    )


async def _build_request(
    observed_wire: bytes,
    step: _model.PipelineStep,
    state: _State,
    sources: _sources.Sources,
    options: _options.ComposeOptions,
    *,
    seed: fnv1.Requirements | None = None,
) -> fnv1.RunFunctionRequest:
    """The request for ``step``: the observed state (``observed_wire``, its field encoded), the previous
    desired state and context, input, credentials, bootstrap and seeded requirements, meta.

    A fresh request per step: a runner (or a test) may keep the one it got. The request is decoded
    once from its deterministic encoding, which the tag hashes too: the fields in number order,
    each message encoded once (not copied in and encoded again for the tag), the requirements
    (later fields) filled in a message of their own and encoded after them, as protobuf's encoder
    writes a whole request.
    """
    texts = options.step_texts
    head = [observed_wire]
    if state.desired is not None:
        head.append(_field(_DESIRED, state.desired))
    if step.input is not None:
        head.append(wire.message_field(_INPUT, _input(step, texts)))
    if state.context is not None:
        head.append(_field(_CONTEXT, state.context))
    rest = fnv1.RunFunctionRequest()
    for cred in step.credentials:
        if cred.source != "Secret" or not cred.secret_name:
            continue
        data = await _secret(sources.credentials, step, cred, texts)
        rest.credentials[cred.name].credential_data.data.update(data)
    for rr in step.required_resources:
        try:
            found = await options.fetcher.fetch(sources.bootstrap, rr.selector())
        except errors.CrossfnError as exc:
            context = f"cannot fetch bootstrap required resources for requirement {errors.quote(rr.requirement_name)}"
            raise texts.failure(_steps.Failure.BOOTSTRAP, context, exc) from exc
        rest.required_resources[rr.requirement_name].CopyFrom(found)
    if seed is not None:
        await _seed(rest, seed, sources, options)
    for rs in step.required_schemas:
        sel = fnv1.SchemaSelector(api_version=rs.api_version, kind=rs.kind)
        try:
            schema = await _required.fetch_schema(sources.schemas, sel)
        except errors.CrossfnError as exc:
            context = (
                f"cannot fetch bootstrap required schema for requirement {errors.quote(rs.requirement_name)}"
            )
            raise texts.failure(_steps.Failure.BOOTSTRAP, context, exc) from exc
        rest.required_schemas[rs.requirement_name].CopyFrom(schema)
    head.append(rest.SerializeToString(deterministic=True))
    encoded = b"".join(head)
    try:
        req = wire.parse(fnv1.RunFunctionRequest, encoded)
    except message.DecodeError as exc:  # nested deeper than any function could decode
        cause = errors.FunctionRunError(f"cannot encode RunFunctionRequest: {exc}")
        raise texts.failure(_steps.Failure.CALL, texts.call_error(step.step), cause) from exc
    # The tag hashes the request as built so far, before meta exists (upstream core-2.4).
    tag = _tag.tag_of_encoding(encoded) if options.tag_requests else ""
    req.meta.SetInParent()
    if tag:
        req.meta.tag = tag
    req.meta.capabilities.extend(CAPABILITIES)
    return req


_FIELDS = fnv1.RunFunctionRequest.DESCRIPTOR.fields_by_name
_OBSERVED, _DESIRED, _INPUT, _CONTEXT = (
    _FIELDS[f].number for f in ("observed", "desired", "input", "context")
)


def _field(number: int, value: message.Message) -> bytes:
    """Request field ``number`` holding ``value``, deterministically encoded."""
    return wire.message_field(number, value.SerializeToString(deterministic=True))


async def _seed(
    req: fnv1.RunFunctionRequest,
    seed: fnv1.Requirements,
    sources: _sources.Sources,
    options: _options.ComposeOptions,
) -> None:
    """Pre-fetch what the step required last time (upstream core-2.3 seeding): best effort, bootstrap wins."""
    for group in (seed.resources, seed.extra_resources):
        for name, sel in group.items():
            if name in req.required_resources:
                continue
            try:
                found = await options.fetcher.fetch(sources.resources, sel)
            except errors.CrossfnError:
                _log.debug("cannot seed required resources %r; the function will ask again", name)
                continue
            req.required_resources[name].CopyFrom(found)


def _input(step: _model.PipelineStep, texts: _steps.StepTexts) -> bytes:
    """The step's input as a Struct's encoding; Crossplane accepts only a JSON object here."""
    if not isinstance(step.input, Mapping):
        detail = errors.FunctionInputError(f"input must be an object, not {values.a_json_type(step.input)}")
        raise texts.failure(_steps.Failure.INPUT, texts.input_error(step.step), detail)
    try:
        return step.input_wire
    except (TypeError, ValueError) as exc:
        cause = errors.FunctionInputError(str(exc))
        raise texts.failure(_steps.Failure.INPUT, texts.input_error(step.step), cause) from exc


async def _secret(
    source: _sources.CredentialsSource,
    step: _model.PipelineStep,
    cred: _model.StepCredential,
    texts: _steps.StepTexts,
) -> Mapping[str, bytes]:
    """The data of a credential's Secret, failing in the caller's words."""
    name = cred.secret_name or ""
    context = texts.credential_error(step.step, cred.name, name)
    try:
        data = await source.secret(cred.secret_namespace, name)
    except Exception as exc:
        raise texts.failure(_steps.Failure.CREDENTIAL, context, errors.InputError(str(exc))) from exc
    if data is None:
        raise texts.failure(_steps.Failure.CREDENTIAL, context, errors.InputError(texts.secret_missing(name)))
    return data


async def _call(
    runner: _runner.FunctionRunner,
    step: _model.PipelineStep,
    req: fnv1.RunFunctionRequest,
    texts: _steps.StepTexts,
) -> fnv1.RunFunctionResponse:
    """Run one step through the runner stack, naming the step in any error."""
    try:
        return await runner.run_function(step.function_ref, req)
    except errors.PipelineFatalError:
        raise
    except errors.CrossfnError as exc:
        raise texts.failure(_steps.Failure.CALL, texts.call_error(step.step), exc) from exc
    except Exception as exc:
        _log.exception("runner raised an unexpected exception for step %r", step.step)
        cause = errors.FunctionRunError(f"{type(exc).__name__}: {exc}")
        raise texts.failure(_steps.Failure.CALL, texts.call_error(step.step), cause) from exc


def _fold(
    step: _model.PipelineStep, rsp: fnv1.RunFunctionResponse, state: _State, now: datetime.datetime
) -> None:
    """Fold one response into the pipeline state, in Crossplane's order (upstream core-2.9)."""
    if rsp.HasField("requirements"):
        state.requirements[step.step] = rsp.requirements
    if rsp.meta.HasField("ttl"):
        ttl = rsp.meta.ttl.ToTimedelta()
        if ttl > datetime.timedelta(0) and (state.ttl == datetime.timedelta(0) or ttl < state.ttl):
            state.ttl = ttl
    state.desired = rsp.desired if rsp.HasField("desired") else None
    state.context = rsp.context if rsp.HasField("context") else None
    state.conditions.extend(_events.fold_conditions(rsp.conditions, now))
    fold = _events.fold_results(step.step, rsp.results)
    state.events.extend(fold.events)
    state.results.extend(fold.results)
    state.fatal = fold.fatal
