"""A span per reconcile with the pipeline's steps as children (issue 12, observability)."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from crossfn import engine
from crossfn.controller.composite import _composite
from crossfn.controller.runtime import _tracing

from . import composite_fixtures as fx


def reconciler_with(tracer: _tracing.ReconcileTracer) -> tuple[Any, _composite.CompositeReconciler]:
    api, rec, plain = fx.setup()
    reconciler = _composite.CompositeReconciler(
        api, None, rec, plain._runner, engine.Sources(), xrd=fx.xrd(), clock=lambda: fx.T0, tracer=tracer
    )  # fmt: skip
    return api, reconciler


async def test_steps_are_children_of_the_reconcile_span() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    api, reconciler = reconciler_with(_tracing.OpenTelemetryReconcileTracer(provider))
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    spans = exporter.get_finished_spans()
    [root] = [s for s in spans if s.name == "crossfn.reconcile"]
    steps = [s for s in spans if s.name == "crossfn.pipeline.step"]
    assert root.attributes is not None
    assert dict(root.attributes) == {"crossfn.controller": "composite/xbuckets.example.org", "crossfn.key": "team/b",
                                     "crossfn.kind": "XBucket"}  # fmt: skip
    assert [s.attributes["crossfn.step.name"] for s in steps if s.attributes] == ["s"], (
        "one span per pipeline step"
    )
    assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in steps), (
        "the step spans are children of the reconcile's span"
    )
    provider.shutdown()


class FailingSpanTracer:
    """OpenTelemetry's tracer raising when a span starts."""

    def start_as_current_span(self, name: str, **kwargs: Any) -> Any:
        raise RuntimeError("exporter down")


async def test_a_tracer_that_fails_never_fails_the_reconcile() -> None:
    tracer = _tracing.OpenTelemetryReconcileTracer(TracerProvider())
    tracer._tracer = FailingSpanTracer()
    api, reconciler = reconciler_with(tracer)
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    assert len(api.of_kind("ConfigMap")) == 2, "the XR composed regardless"


def test_no_tracer_traces_nothing() -> None:
    tracer = _tracing.NoReconcileTracer()
    with tracer.reconcile(controller="c", key="k", kind="K"):
        pass
    assert isinstance(tracer.steps, engine.NoTracer)
