"""A span per reconcile, with the pipeline's step spans as its children, when the process uses OpenTelemetry.

The engine already wraps each pipeline step in a span (``engine.Tracer``).
A reconcile opens ``crossfn.reconcile`` (controller, key, kind) as the
*current* span and hands the engine a step tracer on the same provider: the
step spans, started inside it on the same task, become its children, so one
trace shows what a reconcile of one XR or claim spent in which function.

As in the engine, tracing is a side concern: a tracer that cannot start or
end a span is logged and the reconcile runs regardless; the reconcile's own
exception passes through unchanged (OpenTelemetry records it on the span).
:func:`default_tracer` traces only when ``opentelemetry.trace`` is already
imported (an installed provider imports it), so a controller without the
``otel`` extra pays nothing.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sys
from collections.abc import Iterator
from typing import Any, Protocol

from crossfn import engine

__all__ = ["NoReconcileTracer", "OpenTelemetryReconcileTracer", "ReconcileTracer", "default_tracer"]

_log = logging.getLogger("crossfn.controller.tracing")

SPAN_NAME = "crossfn.reconcile"


class ReconcileTracer(Protocol):
    """Opens a span around one reconcile; ``steps`` traces the pipeline inside it."""

    @property
    def steps(self) -> engine.Tracer: ...

    def reconcile(
        self, *, controller: str, key: str, kind: str
    ) -> contextlib.AbstractContextManager[None]: ...


class NoReconcileTracer:
    """Traces nothing."""

    @property
    def steps(self) -> engine.Tracer:
        return engine.NoTracer()

    def reconcile(self, *, controller: str, key: str, kind: str) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()


class OpenTelemetryReconcileTracer:
    """``crossfn.reconcile`` spans and the engine's step spans, through one tracer provider."""

    def __init__(self, tracer_provider: object | None = None) -> None:
        """``tracer_provider`` defaults to OpenTelemetry's global one; tests pass their own."""
        trace = importlib.import_module("opentelemetry.trace")
        self._tracer = trace.get_tracer("crossfn.controller", tracer_provider=tracer_provider)
        self._steps = engine.OpenTelemetryTracer(tracer_provider)

    @property
    def steps(self) -> engine.Tracer:
        return self._steps

    @contextlib.contextmanager
    def reconcile(self, *, controller: str, key: str, kind: str) -> Iterator[None]:
        attributes = {"crossfn.controller": controller, "crossfn.key": key, "crossfn.kind": kind}
        try:
            span_cm: Any = self._tracer.start_as_current_span(SPAN_NAME, attributes=attributes)
            span_cm.__enter__()
        except Exception:
            _log.exception("cannot start span for reconcile of %s", key)
            yield
            return
        try:
            yield
        except BaseException as exc:
            _end(span_cm, exc, key)
            raise
        _end(span_cm, None, key)


def _end(span_cm: Any, exc: BaseException | None, key: str) -> None:
    """End the span (recording ``exc``); a failure to do so is logged, never raised."""
    try:
        span_cm.__exit__(
            type(exc) if exc is not None else None, exc, exc.__traceback__ if exc is not None else None
        )
    except Exception:
        _log.exception("cannot end span for reconcile of %s", key)


def default_tracer() -> ReconcileTracer:
    """OpenTelemetry spans when this process uses OpenTelemetry, else nothing (see the module docstring)."""
    if "opentelemetry.trace" not in sys.modules:
        return NoReconcileTracer()
    return OpenTelemetryReconcileTracer()
