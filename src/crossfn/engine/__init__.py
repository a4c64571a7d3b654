"""The composition engine: run a function pipeline exactly the way Crossplane does.

The engine is Crossplane's side of the function protocol. It reads no files
and talks to no cluster: it works on dicts and protobuf messages, asks
injected *sources* for the resources, schemas and secrets functions need, and
returns what to apply and what to delete. Render, the test harness and a
controller all run this one engine; the contract they want (Crossplane's
controller, or classic ``crossplane render``) is a :class:`ComposeOptions`.

Entry points
------------

:func:`compose`
    ``await compose(xr, steps, runner, observed=..., sources=..., options=...)``
    runs the pipeline for an XR and returns a :class:`CompositionResult`:
    composed resources with metadata and names, garbage to delete, resource
    refs, the XR (status patch or classic render's output), its Ready
    condition, connection details (legacy XRs), events, conditions, results,
    requirements per step, the minimum TTL. A fatal result returns early with
    ``result.fatal`` set (``result.raise_for_fatal()`` raises it); everything
    else raises a :class:`crossfn.errors.CrossfnError`.

:func:`run_pipeline`
    The pipeline alone, on an ``observed`` State: what Operations-like
    callers and tests need.

:func:`reconcile_operation`
    One reconcile of an Operation (``ops.crossplane.io``): its pipeline with no
    observed state, each step's output and results recorded, the desired
    resources applied through the caller's :class:`OperationStore`, its
    conditions, failures and retry limit as Crossplane's Operation reconciler.
    ``crossfn render op`` and the controller both run it.

:func:`build_runner`
    Wraps a transport runner in the requirements loop and, optionally, the
    response cache and the pipeline inspector, in Crossplane's order.

Runners (the :class:`FunctionRunner` protocol, one async method
``run_function(name, req) -> rsp``): :class:`GrpcRunner` (v1, falling back
to v1beta1), :class:`InProcessRunner` (crossfn SDK function objects), :class:`FetchingRunner`,
:class:`CachingRunner`, :class:`InspectedRunner`, :class:`RoutingRunner`
(routes each function name to its transport), and :func:`runner_from` for a
coroutine function.

How render calls it (classic contract, upstream core-3.5)::

    options = engine.ComposeOptions.classic_render(schema)
    sources = engine.Sources(resources=extra_and_required, bootstrap_resources=required_only,
                             schemas=..., credentials=...)
    transport = engine.RoutingRunner({**dict.fromkeys(builtins, in_process), **dict.fromkeys(targets, grpc)},
                                     unknown=lambda name: errors.FunctionRunError(...))
    runner = engine.build_runner(transport, sources=sources, options=options)
    result = await engine.compose(xr, steps, runner, observed=observed, context=context_values,
                                  sources=sources, options=options, clock=lambda: FIXED_TIME)
    result.raise_for_fatal()   # result.pipeline.requirements is there before raising
    # print result.composite, then result.composed (already sorted), result.pipeline.results

Render's default mode (``crossplane render xr``) runs the controller contract below on one
in-memory reconcile: ``ComposeOptions.controller(schema)`` and :func:`reconcile_status`.

How a controller calls it: ``ComposeOptions.controller(schema)``, sources
backed by an API client, a runner built once (its cache and channels live
across reconciles), and last reconcile's ``result.pipeline.requirements`` as
``seed``; then it applies ``resource_refs_patch``, each
``composed[i].resource``, deletes ``garbage``, patches ``composite`` on the
status subresource, and writes the conditions and emits the events
:func:`reconcile_status` derives from the result (upstream core-2.17).
:func:`admit`, :func:`selection_event` and :func:`configure` are the XR
reconciler's steps around compose (Responsive, the pause, a reconcile request,
the selection event, the composite label), shared by the controller and
render's default mode. :func:`active_endpoint` finds a Function's gRPC target among its
FunctionRevisions and :func:`check_capabilities` gates a Composition
revision (``ValidPipeline``); :class:`OpenAPISchemaSource` answers required
schemas from OpenAPI v3 discovery.

Runners must not mutate the request they get; see :class:`FunctionRunner`.
"""

from __future__ import annotations

import typing as _typing

from crossfn import _lazy
from crossfn.engine._compose import ObservedResource, compose
from crossfn.engine._connection import connection_secret, secret_ref
from crossfn.engine._events import set_conditions
from crossfn.engine._fetching import MAX_REQUIREMENTS_ITERATIONS, FetchingRunner
from crossfn.engine._inprocess import InProcessRunner
from crossfn.engine._metadata import FIELD_OWNER_COMPOSITE, composed_field_owner, shape_problem
from crossfn.engine._metrics import Metrics, NoMetrics, PrometheusMetrics
from crossfn.engine._model import (
    ComposedResource,
    CompositeSchema,
    CompositionResult,
    Condition,
    Event,
    FunctionResult,
    PipelineRun,
    PipelineStep,
    RequiredResource,
    RequiredSchema,
    StepCredential,
    Target,
)
from crossfn.engine._naming import child_name
from crossfn.engine._operation import (
    CAPABILITY_OPERATION,
    DEFAULT_RETRY_LIMIT,
    FIELD_OWNER_PREFIX,
    REQUIREMENT_WATCHED_RESOURCE,
    CapabilityCheck,
    OperationReconcile,
    OperationStore,
    add_resource_ref,
    add_step_output,
    inject_watched,
    is_complete,
    reconcile_operation,
    watched_requirement,
)
from crossfn.engine._options import ComposeOptions
from crossfn.engine._pipeline import CAPABILITIES, run_pipeline
from crossfn.engine._readiness import stable_n_and_some_more
from crossfn.engine._required import ControllerFetcher, FilteringFetcher, RequirementsFetcher
from crossfn.engine._routing import RoutingRunner
from crossfn.engine._runner import FunctionRunner, RunFunction, runner_from
from crossfn.engine._sources import (
    CredentialsSource,
    InMemoryResources,
    KindScopes,
    NoResources,
    NoSchemas,
    NoSecrets,
    ResourceSource,
    SchemaSource,
    Sources,
)
from crossfn.engine._stack import build_runner
from crossfn.engine._tag import tag
from crossfn.engine._tracing import NoTracer, OpenTelemetryTracer, Tracer, default_tracer
from crossfn.engine._xr import (
    PAUSED_MESSAGE,
    Admission,
    admit,
    configure,
    default_connection_secret,
    label_composite,
    object_condition,
    selection_event,
    set_object_condition,
)

if _typing.TYPE_CHECKING:
    from crossfn.engine._cache_store import DiskStore as DiskStore
    from crossfn.engine._cache_store import MemoryStore as MemoryStore
    from crossfn.engine._cache_store import ResponseStore as ResponseStore
    from crossfn.engine._caching import CachingRunner as CachingRunner
    from crossfn.engine._grpc import GrpcRunner as GrpcRunner
    from crossfn.engine._grpc import TlsConfig as TlsConfig
    from crossfn.engine._inspected import InspectedRunner as InspectedRunner
    from crossfn.engine._inspected import InspectorMetrics as InspectorMetrics
    from crossfn.engine._inspected import PipelineInspector as PipelineInspector
    from crossfn.engine._inspected import StepMeta as StepMeta
    from crossfn.engine._inspector_socket import SocketInspector as SocketInspector
    from crossfn.engine._openapi import OpenAPIDiscovery as OpenAPIDiscovery
    from crossfn.engine._openapi import OpenAPISchemaSource as OpenAPISchemaSource
    from crossfn.engine._packages import active_endpoint as active_endpoint
    from crossfn.engine._packages import check_capabilities as check_capabilities
    from crossfn.engine._status import ReconcileStatus as ReconcileStatus
    from crossfn.engine._status import reconcile_status as reconcile_status

_LAZY = {
    "DiskStore": "_cache_store",
    "MemoryStore": "_cache_store",
    "ResponseStore": "_cache_store",
    "CachingRunner": "_caching",
    "GrpcRunner": "_grpc",
    "TlsConfig": "_grpc",
    "InspectedRunner": "_inspected",
    "InspectorMetrics": "_inspected",
    "PipelineInspector": "_inspected",
    "StepMeta": "_inspected",
    "SocketInspector": "_inspector_socket",
    "OpenAPIDiscovery": "_openapi",
    "OpenAPISchemaSource": "_openapi",
    "active_endpoint": "_packages",
    "check_capabilities": "_packages",
    "ReconcileStatus": "_status",
    "reconcile_status": "_status",
}
"""Public names whose modules load on first use, and those modules.

They are what a render of in-process functions never touches: the runners
and stores that pull in heavy libraries (grpc; the protobuf descriptor
machinery of the disk cache), and the controller's helpers (schema discovery,
package revisions, reconcile status). So ``import crossfn.engine`` stays
cheap, which matters for a CLI that starts once per render.
The ``TYPE_CHECKING`` imports above name the same objects for type checkers (as
explicit re-exports, ``X as X``, since ``__all__`` below takes the lazy names from
this table); tests/test_lazy_exports.py fails when the two differ.
"""


_lazy.install(__name__, _LAZY, globals())

__all__ = [
    "CAPABILITIES",
    "CAPABILITY_OPERATION",
    "DEFAULT_RETRY_LIMIT",
    "FIELD_OWNER_COMPOSITE",
    "FIELD_OWNER_PREFIX",
    "MAX_REQUIREMENTS_ITERATIONS",
    "PAUSED_MESSAGE",
    "REQUIREMENT_WATCHED_RESOURCE",
    "Admission",
    "CapabilityCheck",
    "ComposeOptions",
    "ComposedResource",
    "CompositeSchema",
    "CompositionResult",
    "Condition",
    "ControllerFetcher",
    "CredentialsSource",
    "Event",
    "FetchingRunner",
    "FilteringFetcher",
    "FunctionResult",
    "FunctionRunner",
    "InMemoryResources",
    "InProcessRunner",
    "KindScopes",
    "Metrics",
    "NoMetrics",
    "NoResources",
    "NoSchemas",
    "NoSecrets",
    "NoTracer",
    "ObservedResource",
    "OpenTelemetryTracer",
    "OperationReconcile",
    "OperationStore",
    "PipelineRun",
    "PipelineStep",
    "PrometheusMetrics",
    "RequiredResource",
    "RequiredSchema",
    "RequirementsFetcher",
    "ResourceSource",
    "RoutingRunner",
    "RunFunction",
    "SchemaSource",
    "Sources",
    "StepCredential",
    "Target",
    "Tracer",
    "add_resource_ref",
    "add_step_output",
    "admit",
    "build_runner",
    "child_name",
    "compose",
    "composed_field_owner",
    "configure",
    "connection_secret",
    "default_connection_secret",
    "default_tracer",
    "inject_watched",
    "is_complete",
    "label_composite",
    "object_condition",
    "reconcile_operation",
    "run_pipeline",
    "runner_from",
    "secret_ref",
    "selection_event",
    "set_conditions",
    "set_object_condition",
    "shape_problem",
    "stable_n_and_some_more",
    "tag",
    "watched_requirement",
    # and the lazy names: listed once, in _LAZY
]
__all__ += list(_LAZY)
