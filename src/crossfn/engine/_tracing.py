"""A span per pipeline step, when the process uses OpenTelemetry.

Crossplane itself has no tracing (upstream core-2.5); its pipeline inspector carries a
per-reconcile trace id. We keep that id (the pipeline makes one per run) and,
when the process uses OpenTelemetry (see :func:`default_tracer`), wrap each
step in a span carrying the step, function and trace id. Tracing is a side concern: any failure to start
or end a span is logged and the step runs regardless.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sys
from collections.abc import Iterator
from typing import Protocol

__all__ = ["NoTracer", "OpenTelemetryTracer", "Tracer", "default_tracer", "guarded_step"]

_log = logging.getLogger("crossfn.engine.tracing")


class Tracer(Protocol):
    """Opens a span around one pipeline step."""

    def step(
        self, *, trace_id: str, step: str, function: str, index: int
    ) -> contextlib.AbstractContextManager[None]: ...


class NoTracer:
    """A tracer that records nothing."""

    def step(
        self, *, trace_id: str, step: str, function: str, index: int
    ) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()


class OpenTelemetryTracer:
    """Spans named ``crossfn.pipeline.step`` through the global OpenTelemetry tracer provider."""

    def __init__(self, tracer_provider: object | None = None) -> None:
        """``tracer_provider`` defaults to OpenTelemetry's global one; tests pass their own."""
        trace = importlib.import_module("opentelemetry.trace")
        self._tracer = trace.get_tracer("crossfn.engine", tracer_provider=tracer_provider)

    @contextlib.contextmanager
    def step(self, *, trace_id: str, step: str, function: str, index: int) -> Iterator[None]:
        span_cm = None
        try:
            span_cm = self._tracer.start_as_current_span(
                "crossfn.pipeline.step",
                attributes={
                    "crossfn.trace_id": trace_id,
                    "crossfn.step.name": step,
                    "crossfn.step.index": index,
                    "crossfn.function.name": function,
                },
            )
            span_cm.__enter__()
        except Exception:
            _log.exception("cannot start span for pipeline step %r", step)
            span_cm = None
        try:
            yield
        finally:
            if span_cm is not None:
                try:
                    span_cm.__exit__(None, None, None)
                except Exception:
                    _log.exception("cannot end span for pipeline step %r", step)


def default_tracer() -> Tracer:
    """OpenTelemetry spans when this process uses OpenTelemetry, else nothing.

    "Uses" means ``opentelemetry.trace`` is already imported: setting a tracer
    provider, by hand or through ``opentelemetry-instrument``, imports it, and
    without a provider every span would go nowhere. Looking instead of
    importing keeps OpenTelemetry's imports (tens of milliseconds) out of every
    process that does not trace, such as a render. The pipeline asks once per
    run, so a provider set up later is used from the next run on.
    """
    if "opentelemetry.trace" not in sys.modules:
        return NoTracer()
    return OpenTelemetryTracer()


@contextlib.contextmanager
def guarded_step(tracer: Tracer, *, trace_id: str, step: str, function: str, index: int) -> Iterator[None]:
    """Run the body inside ``tracer``'s span; a tracer that fails is logged and skipped, never fatal."""
    try:
        cm = tracer.step(trace_id=trace_id, step=step, function=function, index=index)
        cm.__enter__()
    except Exception:
        _log.exception("cannot trace pipeline step %r", step)
        yield
        return
    try:
        yield
    finally:
        try:
            cm.__exit__(None, None, None)
        except Exception:
            _log.exception("cannot end trace of pipeline step %r", step)
