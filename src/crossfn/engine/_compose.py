"""Compose: run the pipeline for an XR and work out what to apply, delete and report
(upstream core-2.2, core-2.10–core-2.16).

This is Crossplane's FunctionComposer without the API calls. The caller (a
controller, render, a test) gives the XR and the composed resources it
observed; :func:`compose` builds the observed state, runs the pipeline and
returns a :class:`~crossfn.engine.CompositionResult`: the composed objects
with metadata and names, the garbage to delete, the resource refs, the XR
(status patch for the controller, whole output for classic render), the
Ready condition, connection details and events.

Helpers here each take one upstream core-2.10 step so :func:`compose` reads as the list
in the spec.
"""

from __future__ import annotations

import dataclasses
import datetime
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from google.protobuf import message, struct_pb2

from crossfn import errors
from crossfn.engine import (
    _clock,
    _connection,
    _events,
    _gc,
    _metadata,
    _model,
    _naming,
    _options,
    _pipeline,
    _readiness,
    _refs,
    _runner,
    _sources,
    _tracing,
)
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["ObservedResource", "compose", "observed_resources"]

_NAME_TRIES = 10


@dataclasses.dataclass(frozen=True)
class ObservedResource:
    """A composed resource as the caller observed it, with its connection details (upstream core-2.16)."""

    resource: Mapping[str, Any]
    connection_details: Mapping[str, bytes] = dataclasses.field(default_factory=dict)


def observed_resources(
    xr: Mapping[str, Any], observed: Sequence[ObservedResource], *, strict: bool = True
) -> dict[str, ObservedResource]:
    """Key observed resources by composition resource name (upstream core-2.2 step 1).

    With ``strict`` (the controller) a resource controlled by another owner is
    skipped, and one without the annotation is an error. Classic render keys
    whatever it was given by the annotation, missing or not.
    """
    xr_uid = str((xr.get("metadata") or {}).get("uid") or "")
    out: dict[str, ObservedResource] = {}
    for o in observed:
        problem = _metadata.shape_problem(o.resource)
        if problem is not None:
            raise errors.InputError(f"cannot get existing composed resources: observed resource {problem}")
        ref = _gc.controller_ref(o.resource)
        if strict and ref is not None and str(ref.get("uid") or "") != xr_uid:
            continue
        annotations = (o.resource.get("metadata") or {}).get("annotations") or {}
        name = str(annotations.get(_metadata.ANNOTATION_RESOURCE_NAME) or "")
        if strict and not name:
            raise errors.InputError(
                "cannot get existing composed resources: encountered composed resource without required "
                f"{errors.quote(_metadata.ANNOTATION_RESOURCE_NAME)} annotation"
            )
        out[name] = o
    return out


def _observed_state(
    xr: Mapping[str, Any],
    observed: Mapping[str, ObservedResource],
    xr_connection_details: Mapping[str, bytes],
) -> fnv1.State:
    """The ``observed`` State every step receives (upstream core-2.2 step 3)."""
    state = fnv1.State()
    try:
        _fill(state.composite.resource, xr)
    except (TypeError, ValueError) as exc:
        raise errors.InputError(
            f"cannot encode composite resource to protocol buffer Struct well-known type: {exc}"
        ) from exc
    state.composite.connection_details.update(xr_connection_details)
    for name, o in observed.items():
        try:
            _fill(state.resources[name].resource, o.resource)
        except (TypeError, ValueError) as exc:
            raise errors.InputError(
                f"cannot build observed state for RunFunctionRequest: cannot encode composed resource "
                f"{errors.quote(name)} to protocol buffer Struct well-known type: {exc}"
            ) from exc
        state.resources[name].connection_details.update(o.connection_details)
    return state


def _fill(target: struct_pb2.Struct, obj: Mapping[str, Any]) -> None:
    """Set the empty Struct ``target`` to ``obj`` in place (no Struct made and copied in); an object
    nested deeper than an in-place decode takes is converted apart and copied."""
    try:
        resource.fill_struct(target, obj)
    except message.DecodeError:
        target.CopyFrom(resource.dict_to_struct(obj))


async def compose(
    xr: Mapping[str, Any],
    pipeline: Sequence[_model.PipelineStep],
    runner: _runner.FunctionRunner,
    *,
    observed: Sequence[ObservedResource] = (),
    xr_connection_details: Mapping[str, bytes] | None = None,
    context: Mapping[str, Any] | None = None,
    sources: _sources.Sources | None = None,
    options: _options.ComposeOptions | None = None,
    clock: Callable[[], datetime.datetime] = _clock.utcnow,
    tracer: _tracing.Tracer | None = None,
    trace_id: str | None = None,
    rng: random.Random | None = None,
    composition_name: str = "",
    seed: Mapping[str, fnv1.Requirements] | None = None,
) -> _model.CompositionResult:
    """Run ``pipeline`` for ``xr`` and decide the composite's and composed resources' desired state.

    ``xr_connection_details`` are sent only for legacy XRs (upstream core-5.4). A fatal
    result returns early with :attr:`CompositionResult.fatal` set and no
    composed resources; other failures raise a :class:`~crossfn.errors.CrossfnError`.
    ``seed`` is the last reconcile's ``result.pipeline.requirements`` (see
    :func:`~crossfn.engine.run_pipeline`).
    """
    sources = sources or _sources.Sources()
    options = options or _options.ComposeOptions()
    legacy = options.composite_schema is _model.CompositeSchema.LEGACY
    problem = _metadata.shape_problem(xr, status=True)
    if problem is not None:
        raise errors.InputError(f"cannot compose resources: composite resource {problem}")
    seen = observed_resources(xr, observed, strict=options.strict_observed)
    state = _observed_state(xr, seen, (xr_connection_details or {}) if legacy else {})
    run = await _pipeline.run_pipeline(
        state, pipeline, runner, context=context, sources=sources, options=options,
        clock=clock, tracer=tracer, trace_id=trace_id, composition_name=composition_name, seed=seed,
    )  # fmt: skip
    if run.fatal is not None:
        return _model.CompositionResult(pipeline=run, composite={}, events=run.events)
    desired = run.desired or fnv1.State()
    events = list(run.events)
    composed = [
        await _composed(xr, name, dr, seen=seen, sources=sources, options=options, events=events, rng=rng)
        for name, dr in desired.resources.items()
    ]
    if options.sort_composed:
        composed.sort(key=lambda c: c.name)
    garbage: list[dict[str, Any]] = []
    if options.garbage_collect:
        garbage = _gc.garbage(
            {n: o.resource for n, o in seen.items()},
            desired.resources,
            xr,
            delete_orphans=options.delete_orphans,
        )
    now = clock()
    ready = _readiness.ready_condition(
        desired.composite.ready, (c.name for c in composed if not c.ready), now
    )
    namespaced = bool((xr.get("metadata") or {}).get("namespace"))
    refs = _refs.resource_refs((c.resource for c in composed), namespaced_xr=namespaced)
    details = dict(desired.composite.connection_details) if legacy else {}
    return _model.CompositionResult(
        pipeline=run,
        composite=_composite(xr, desired, run, ready, options),
        composed=tuple(composed),
        garbage=tuple(garbage),
        resource_refs=tuple(refs),
        resource_refs_patch=_refs.refs_patch(xr, refs, options.composite_schema.value),
        ready_condition=ready,
        connection_details=details,
        events=tuple(events),
        connection_secret=_connection.connection_secret(xr, details) if legacy else None,
    )


async def _composed(
    xr: Mapping[str, Any],
    name: str,
    dr: fnv1.Resource,
    *,
    seen: Mapping[str, ObservedResource],
    sources: _sources.Sources,
    options: _options.ComposeOptions,
    events: list[_model.Event],
    rng: random.Random | None,
) -> _model.ComposedResource:
    """One desired composed resource made ready to apply (upstream core-2.10 steps 1–8)."""
    obj = resource.struct_to_dict(dr.resource)
    meta_in = obj.get("metadata")
    if isinstance(meta_in, dict):
        # A null name (a template's empty ``name:``) is Go's empty string, as if absent: a name is generated.
        for key in ("name", "generateName"):
            if key in meta_in and meta_in[key] is None:
                del meta_in[key]
    problem = _metadata.shape_problem(obj)
    if problem is not None:
        suffix = "" if options.classic_texts else " from RunFunctionResponse"
        raise errors.FunctionOutputError(
            f"cannot unmarshal desired composed resource {errors.quote(name)}{suffix}: {problem}"
        )
    meta = obj.setdefault("metadata", {})
    if name in seen:
        _keep_observed_identity(meta, seen[name].resource)
    xr_ns = str((xr.get("metadata") or {}).get("namespace") or "")
    if xr_ns and options.check_namespace_scope:
        await _check_namespace(obj, name, xr_ns, sources.scopes, events)
    try:
        prefix = _metadata.composite_prefix(xr, require_label=options.require_composite_label)
    except errors.CrossfnError as exc:  # the XR's label is missing: the XR is at fault
        raise errors.InputError(f"{_metadata_context(name, options)}: {exc}") from exc
    controller_text = "cannot set controller reference"
    if options.classic_texts:
        xr_name = errors.quote(str((xr.get("metadata") or {}).get("name") or ""))
        controller_text = f"cannot set composite resource {xr_name} as controller ref of composed resource"
    try:
        _metadata.render_metadata(
            obj, xr, name, prefix=prefix,
            claim_ref_labels=options.claim_labels_from_claim_ref
            and options.composite_schema is _model.CompositeSchema.LEGACY,
            controller_text=controller_text,
        )  # fmt: skip
    except errors.CrossfnError as exc:  # the function's resource is controlled by another owner
        raise errors.FunctionOutputError(f"{_metadata_context(name, options)}: {exc}") from exc
    if options.generate_names and not meta.get("name"):
        meta["name"] = await _generate_name(obj, xr, name, sources.resources, rng)
    if options.validate_names and not _naming.valid_name(
        str(meta.get("name") or ""), str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    ):
        raise errors.FunctionOutputError(
            f"cannot apply composed resource {errors.quote(name)} because it has an invalid name "
            f"{errors.quote(str(meta.get('name') or ''))}. Must be a valid RFC 1123 subdomain name."
        )
    return _model.ComposedResource(name=name, resource=obj, ready=dr.ready == fnv1.READY_TRUE)


def _metadata_context(name: str, options: _options.ComposeOptions) -> str:
    """How an error rendering a composed resource's metadata begins (built only for an error)."""
    if options.classic_texts:
        return f"cannot render composed resource {errors.quote(name)} metadata"
    return f"cannot render metadata for composed resource {errors.quote(name)}"


def _keep_observed_identity(meta: dict[str, Any], observed: Mapping[str, Any]) -> None:
    """An observed resource keeps its name, namespace and generateName, whatever the function says."""
    seen = observed.get("metadata") or {}
    for key in ("name", "namespace", "generateName"):
        if seen.get(key):
            meta[key] = seen[key]
        else:
            meta.pop(key, None)


async def _check_namespace(
    obj: dict[str, Any], name: str, xr_ns: str, scopes: _sources.KindScopes, events: list[_model.Event]
) -> None:
    """A namespaced XR composes only namespaced kinds, in its own namespace (upstream core-2.10 steps 3–4).

    The kind's scope is checked whatever ``metadata.namespace`` says: Crossplane
    checks it only when the namespace is empty, so a function that names one
    got a namespaced XR a cluster-scoped object (a ClusterRoleBinding, a
    Namespace) that outlived it (docs/compatibility.md).
    """
    meta = obj["metadata"]
    api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    ns = str(meta.get("namespace") or "")
    try:
        namespaced = await scopes.is_namespaced(api_version, kind)
    except Exception as exc:
        raise errors.CrossfnError(
            f"cannot check if composed resource {errors.quote(name)} is namespaced "
            f"(a {kind} named {meta.get('name', '')}): {exc}"
        ) from exc
    if not namespaced:
        raise errors.FunctionOutputError(
            f"cannot apply cluster scoped composed resource {errors.quote(name)} "
            f"(a {kind} named {meta.get('name', '')}) for a namespaced composite resource."
        )
    if ns and ns != xr_ns:
        message = (
            f"cannot create composed resource {errors.quote(name)} in namespace {errors.quote(ns)}, "
            f"using XR namespace {errors.quote(xr_ns)} instead"
        )
        events.append(_model.Event("Warning", "NamespaceOverridden", message))


async def _generate_name(
    obj: dict[str, Any],
    xr: Mapping[str, Any],
    name: str,
    existing: _sources.ResourceSource,
    rng: random.Random | None,
) -> str:
    """A name for an unnamed composed resource: ChildName, or a free random name when the XR has no UID
    (from ``rng``, else a generator seeded from the system's randomness, made only then)."""
    meta = obj["metadata"]
    generate = str(meta.get("generateName") or "")
    uid = str((xr.get("metadata") or {}).get("uid") or "")
    if uid:
        return _naming.child_name(generate, uid, name)
    rng = rng or random.Random()
    api_version, kind, ns = (
        str(obj.get("apiVersion") or ""),
        str(obj.get("kind") or ""),
        str(meta.get("namespace") or ""),
    )
    for _ in range(_NAME_TRIES):
        candidate = _naming.random_name(generate, rng)
        try:
            taken = await existing.get(api_version, kind, ns, candidate)
        except Exception as exc:
            raise errors.CrossfnError(
                f"cannot generate a name for composed resource {errors.quote(name)}: {exc}"
            ) from exc
        if taken is None:
            return candidate
    raise errors.CrossfnError(
        f"cannot generate a name for composed resource {errors.quote(name)}: cannot generate a name for a resource"
    )


def _composite(
    xr: Mapping[str, Any],
    desired: fnv1.State,
    run: _model.PipelineRun,
    ready: _model.Condition,
    options: _options.ComposeOptions,
) -> dict[str, Any]:
    """The XR to write: the status patch (controller, upstream core-2.14) or the output XR (classic render,
    upstream core-3.5 step 6)."""
    out = (
        resource.struct_to_dict(desired.composite.resource) if desired.composite.HasField("resource") else {}
    )
    problem = _metadata.shape_problem(out, status=True)
    if problem is not None:
        text = (
            "cannot render desired composite resource"
            if options.classic_ready
            else "cannot unmarshal desired composite resource status from RunFunctionResponse"
        )
        raise errors.FunctionOutputError(f"{text}: {problem}")
    xr_meta = xr.get("metadata") or {}
    out["apiVersion"], out["kind"] = xr.get("apiVersion", ""), xr.get("kind", "")
    meta = out.setdefault("metadata", {})
    keys = ("name", "namespace") if options.classic_ready else ("name", "namespace", "uid")
    for key in keys:
        if xr_meta.get(key):
            meta[key] = xr_meta[key]
        else:
            meta.pop(key, None)
    # Crossplane sets conditions through a typed round trip of the desired status (_events.go_conditions);
    # when that cannot decode what a function wrote, it sets nothing and the conditions stay as written.
    if not options.classic_ready:
        saved = ((xr.get("status") or {}).get("conditions")) or []
        if saved:
            status = out.setdefault("status", {})
            current = _events.go_conditions(status.get("conditions"))
            if current is not None:
                status["conditions"] = _events.set_conditions(current, *saved)
        return out
    status = out.setdefault("status", {})
    current = _events.go_conditions(status.get("conditions"))
    if current is None:
        return out
    fn_conditions = [
        c.to_dict() for c in run.conditions if c.type not in _events.CLASSIC_SYSTEM_CONDITION_TYPES
    ]
    status["conditions"] = _events.set_conditions(current, ready.to_dict(), *fn_conditions)
    return out
