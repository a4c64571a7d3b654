"""Metrics and tracing: Crossplane's metric names, a span per step, and side concerns never failing a run."""

import contextlib
from collections.abc import Iterator

import prometheus_client
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from crossfn import engine
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

XR = {
    "apiVersion": "example.org/v1",
    "kind": "XR",
    "metadata": {"name": "x", "uid": "u", "labels": {"crossplane.io/composite": "x"}},
}


def warn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.warning(rsp, "careful")


async def test_prometheus_metrics_use_crossplane_names() -> None:
    registry = prometheus_client.CollectorRegistry()
    metrics = engine.PrometheusMetrics(registry, packages={"fn": "xpkg.example.org/fn"})
    runner = engine.InProcessRunner({"fn": warn}, metrics=metrics)
    await engine.compose(
        XR, [engine.PipelineStep("s", "fn")], engine.build_runner(runner), tracer=engine.NoTracer()
    )
    labels = {
        "function_name": "fn",
        "function_package": "xpkg.example.org/fn",
        "grpc_target": "in-process",
        "grpc_method": "",
    }
    assert registry.get_sample_value("function_run_function_request_total", labels) == 1.0, (
        "one request counted"
    )
    done = {**labels, "grpc_code": "OK", "result_severity": "Warning"}
    assert registry.get_sample_value("function_run_function_response_total", done) == 1.0, (
        "outcome carries severity"
    )
    assert registry.get_sample_value("function_run_function_seconds_count", done) == 1.0, (
        "duration is observed"
    )


async def test_cache_metrics_use_crossplane_names() -> None:
    registry = prometheus_client.CollectorRegistry()
    metrics = engine.PrometheusMetrics(registry)
    runner = engine.CachingRunner(engine.InProcessRunner({"fn": warn}), metrics=metrics)
    req = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="t"))
    await runner.run_function("fn", req)
    await runner.run_function("fn", req)
    for name, want in [("misses", 1.0), ("writes", 1.0), ("hits", 1.0)]:
        got = registry.get_sample_value(
            f"function_run_function_response_cache_{name}_total", {"function_name": "fn"}
        )
        assert got == want, f"cache {name} counted under Crossplane's name"


class Exploding:
    def run_started(self, function: str, target: str, method: str) -> None:
        raise RuntimeError("metrics down")

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        raise RuntimeError("metrics down")

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        raise RuntimeError("metrics down")

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        raise RuntimeError("metrics down")


class ExplodingTracer:
    def step(
        self, *, trace_id: str, step: str, function: str, index: int
    ) -> contextlib.AbstractContextManager[None]:
        raise RuntimeError("tracing down")


class ExplodingExitTracer:
    @contextlib.contextmanager
    def step(self, *, trace_id: str, step: str, function: str, index: int) -> Iterator[None]:
        yield
        raise RuntimeError("tracing down on exit")


@pytest.mark.parametrize(
    "tracer",
    [
        pytest.param(ExplodingTracer(), id="TracerFailsOnEnter"),
        pytest.param(ExplodingExitTracer(), id="TracerFailsOnExit"),
    ],
)
async def test_side_concerns_never_fail_the_pipeline(
    tracer: engine.Tracer, caplog: pytest.LogCaptureFixture
) -> None:
    runner = engine.build_runner(
        engine.CachingRunner(engine.InProcessRunner({"fn": warn}, metrics=Exploding()), metrics=Exploding())
    )
    result = await engine.compose(XR, [engine.PipelineStep("s", "fn")], runner, tracer=tracer)
    assert [e.message for e in result.events] == ["careful"], (
        "the step ran despite failing metrics and tracing"
    )
    assert "metrics down" in caplog.text and "tracing down" in caplog.text, "failures are logged"


async def test_one_span_per_step_with_trace_id() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = engine.OpenTelemetryTracer(provider)
    steps = [engine.PipelineStep("first", "fn"), engine.PipelineStep("second", "fn")]
    result = await engine.compose(
        XR,
        steps,
        engine.build_runner(engine.InProcessRunner({"fn": warn})),
        tracer=tracer,
        trace_id="trace-1",
    )
    spans = exporter.get_finished_spans()
    assert [s.attributes["crossfn.step.name"] for s in spans if s.attributes] == ["first", "second"], (
        "a span per step, in order"
    )
    assert {s.attributes["crossfn.trace_id"] for s in spans if s.attributes} == {"trace-1"}, (
        "spans carry the reconcile's trace id"
    )
    assert result.pipeline.trace_id == "trace-1", "the trace id is reported"
    provider.shutdown()


async def test_each_run_gets_a_new_trace_id() -> None:
    runner = engine.build_runner(engine.InProcessRunner({"fn": warn}))
    a = await engine.compose(XR, [engine.PipelineStep("s", "fn")], runner, tracer=engine.NoTracer())
    b = await engine.compose(XR, [engine.PipelineStep("s", "fn")], runner, tracer=engine.NoTracer())
    assert a.pipeline.trace_id and a.pipeline.trace_id != b.pipeline.trace_id, "one trace id per reconcile"
