"""The metrics a controller loop reports, as seams with no-op defaults, and the instrumented work queue.

A :class:`~crossfn.controller.runtime._controller.Controller` reports its
reconciles through ``ControllerMetrics``; this module adds what client-go's work
queue reports (:class:`QueueMetrics`, fed by :class:`InstrumentedQueue`) and
Crossplane's ``engine_*`` counters of controllers and watches started and
stopped at run time (:class:`EngineMetrics`) and of XR controllers' watch
circuit breakers (:class:`CircuitMetrics`). :func:`new_controller` builds a
controller that reports all three; every reconciler's controller is made with
it. Only the manager knows the implementation
(``manager._observability.PrometheusControllerMetrics``); a test passes a
recorder or nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from crossfn.controller.runtime import _controller, _queue

__all__ = [
    "CircuitMetrics",
    "EngineMetrics",
    "InstrumentedQueue",
    "Metrics",
    "NoCircuitMetrics",
    "NoEngineMetrics",
    "NoMetrics",
    "QueueMetrics",
    "instrument",
    "new_controller",
]


class QueueMetrics(Protocol):
    """What an :class:`InstrumentedQueue` reports (client-go's work-queue metrics)."""

    def queue_added(self, name: str) -> None: ...

    def queue_latency(self, name: str, seconds: float) -> None: ...

    def queue_retried(self, name: str) -> None: ...


class InstrumentedQueue(_queue.WorkQueue):
    """A work queue that reports adds, retries and how long each key waited before a worker took it.

    The wait is measured from the first add of a key not already queued to the
    ``get`` that hands it out, as client-go's ``workqueue_queue_duration_seconds``.
    It only wraps the public methods, so the queue's rules stay ``_queue``'s.
    """

    def __init__(self, name: str, metrics: QueueMetrics, *, clock: _queue.Clock | None = None) -> None:
        clock = clock or _queue.LoopClock()
        super().__init__(clock=clock)
        self._now = clock.now
        self._name = name
        self._queue_metrics = metrics
        self._added: dict[str, float] = {}

    def add(self, key: str) -> None:
        if not self.shutting_down:
            self._added.setdefault(key, self._now())
            self._queue_metrics.queue_added(self._name)
        super().add(key)

    def add_rate_limited(self, key: str) -> float:
        self._queue_metrics.queue_retried(self._name)
        return super().add_rate_limited(key)

    async def get(self) -> str | None:
        key = await super().get()
        if key is not None:
            added = self._added.pop(key, None)
            if added is not None:
                self._queue_metrics.queue_latency(self._name, self._now() - added)
        return key


def instrument(
    controller: _controller.Controller, metrics: QueueMetrics, *, clock: _queue.Clock | None = None
) -> _controller.Controller:
    """Give a controller that has not started an :class:`InstrumentedQueue` under its own name.

    ``Controller`` makes its queue itself and has no hook for these metrics;
    its ``queue`` attribute is public and read only by its workers, which
    start with ``start()``, so replacing it before then is safe.
    """
    if controller.running:
        raise RuntimeError(f"cannot instrument controller {controller.name}: it has started")
    controller.queue = InstrumentedQueue(controller.name, metrics, clock=clock)
    return controller


class EngineMetrics(Protocol):
    """Crossplane's ``engine_*`` counters: controllers and watches started and stopped at run time."""

    def controller_started(self, controller: str) -> None: ...

    def controller_stopped(self, controller: str) -> None: ...

    def watch_started(self, controller: str, type_: str) -> None: ...

    def watch_stopped(self, controller: str, type_: str) -> None: ...


class NoEngineMetrics:
    """Reports nothing (the default)."""

    def controller_started(self, controller: str) -> None:
        return None

    def controller_stopped(self, controller: str) -> None:
        return None

    def watch_started(self, controller: str, type_: str) -> None:
        return None

    def watch_stopped(self, controller: str, type_: str) -> None:
        return None


class CircuitMetrics(Protocol):
    """Crossplane's ``circuit_breaker_*`` counters: an XR controller's watch circuit breaker."""

    def circuit_opened(self, controller: str) -> None: ...

    def circuit_closed(self, controller: str) -> None: ...

    def circuit_event(self, controller: str, result: str) -> None:
        """An event the breaker handled: ``Allowed``, ``Dropped`` or ``HalfOpenAllowed``."""
        ...


class NoCircuitMetrics:
    """Reports nothing (the default)."""

    def circuit_opened(self, controller: str) -> None:
        return None

    def circuit_closed(self, controller: str) -> None:
        return None

    def circuit_event(self, controller: str, result: str) -> None:
        return None


class Metrics(_controller.ControllerMetrics, QueueMetrics, EngineMetrics, CircuitMetrics, Protocol):
    """Everything a started controller reports (``PrometheusControllerMetrics`` is one)."""


class NoMetrics(_controller.NoMetrics, NoEngineMetrics, NoCircuitMetrics):
    """Reports nothing (the default of every controller a test or an embedding builds)."""

    def queue_added(self, name: str) -> None:
        return None

    def queue_latency(self, name: str, seconds: float) -> None:
        return None

    def queue_retried(self, name: str) -> None:
        return None


def new_controller(
    name: str,
    reconcile: Callable[[str], Any],
    *,
    workers: int,
    rate: float | None,
    metrics: Metrics | None = None,
) -> _controller.Controller:
    """A controller whose reconciles and work queue report to ``metrics`` (not started)."""
    m = metrics or NoMetrics()
    controller = _controller.Controller(name, reconcile, workers=workers, rate=rate, metrics=m)
    return instrument(controller, m)
