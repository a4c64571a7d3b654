"""Engine metrics: a collaborator with a no-op default, and a Prometheus implementation
(upstream core-2.5, core-2.19).

The runner stack reports through :class:`Metrics` and touches no global
registry. ``prometheus_client`` is imported only when a
:class:`PrometheusMetrics` is built, so a process that asks for no metrics
(render, most tests) never pays its import time. Names and labels are
Crossplane's, so existing dashboards work: the gRPC interceptor's
``function_run_function_*`` and the response cache's
``function_run_function_response_cache_*``. A metrics failure is logged and
never fails a call.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol

__all__ = ["Metrics", "NoMetrics", "PrometheusMetrics", "guarded", "result_severity"]

_log = logging.getLogger("crossfn.engine.metrics")


def result_severity(severities: list[int]) -> str:
    """The ``result_severity`` label: Fatal if any result is fatal, else Warning if any warns, else Normal."""
    if 1 in severities:
        return "Fatal"
    if 2 in severities:
        return "Warning"
    return "Normal"


class Metrics(Protocol):
    """What the runners report."""

    def run_started(self, function: str, target: str, method: str) -> None:
        """A call to a function began."""
        ...

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        """A call ended with gRPC ``code`` (``OK`` in-process) and the responses' ``severity`` label."""
        ...

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        """A cache event: ``hits``, ``misses``, ``errors``, ``writes``, ``deletes``, ``bytes_written``, ``bytes_deleted``."""
        ...

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        """How long a cache ``read`` or ``write`` took."""
        ...


class NoMetrics:
    """Metrics that go nowhere: the default."""

    def run_started(self, function: str, target: str, method: str) -> None:
        return None

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        return None

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        return None

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        return None


_CACHE_EVENTS = ("hits", "misses", "errors", "writes", "deletes", "bytes_written", "bytes_deleted")


class PrometheusMetrics:
    """Crossplane's function metrics in a ``prometheus_client`` registry the caller owns.

    Runners wrap every metrics collaborator with :func:`guarded`, so a failure
    here is logged there and never reaches a call.
    """

    def __init__(
        self, registry: Any, *, function_package: str = "", packages: Mapping[str, str] | None = None
    ) -> None:
        """``packages`` maps function names to their package (the ``function_package`` label);
        names it lacks get ``function_package``."""
        import prometheus_client as prom  # noqa: PLC0415 -- only real metrics load it (module docstring)

        self._package = function_package
        self._packages = dict(packages or {})
        labels = ["function_name", "function_package", "grpc_target", "grpc_method"]
        self._requests = prom.Counter(
            "function_run_function_request_total", "Total number of RunFunctionRequests sent.", labels,
            registry=registry,
        )  # fmt: skip
        self._responses = prom.Counter(
            "function_run_function_response_total", "Total number of RunFunctionResponses received.",
            [*labels, "grpc_code", "result_severity"], registry=registry,
        )  # fmt: skip
        self._seconds = prom.Histogram(
            "function_run_function_seconds", "Histogram of RunFunctionResponse latency (seconds).",
            [*labels, "grpc_code", "result_severity"], registry=registry,
        )  # fmt: skip
        self._cache = {
            e: prom.Counter(
                f"function_run_function_response_cache_{e}_total",
                f"Function response cache {e}.",
                ["function_name"],
                registry=registry,
            )
            for e in _CACHE_EVENTS
        }
        self._inspector_errors = prom.Counter(
            "function_run_function_pipeline_inspector_errors_total", "Pipeline inspector emit failures.",
            ["function_name", "type"], registry=registry,
        )  # fmt: skip
        self._cache_seconds = {
            op: prom.Histogram(
                f"function_run_function_response_cache_{op}_seconds",
                f"Function response cache {op} latency.",
                ["function_name"],
                registry=registry,
            )
            for op in ("read", "write")
        }

    def run_started(self, function: str, target: str, method: str) -> None:
        self._requests.labels(function, self._packages.get(function, self._package), target, method).inc()

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        labels = (function, self._packages.get(function, self._package), target, method, code, severity)
        self._responses.labels(*labels).inc()
        self._seconds.labels(*labels).observe(seconds)

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        self._cache[event].labels(function).inc(amount)

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        self._cache_seconds[op].labels(function).observe(seconds)

    def inspector_error(self, function: str, kind: str) -> None:
        """Count a failed emit of a ``request`` or ``response`` to the pipeline inspector."""
        self._inspector_errors.labels(function, kind).inc()


class _Guarded:
    """Metrics that log and swallow whatever the wrapped collaborator raises."""

    def __init__(self, wrapped: Metrics) -> None:
        self._wrapped = wrapped

    def run_started(self, function: str, target: str, method: str) -> None:
        try:
            self._wrapped.run_started(function, target, method)
        except Exception:
            _log.exception("cannot record function request metric")

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        try:
            self._wrapped.run_finished(
                function, target=target, method=method, code=code, severity=severity, seconds=seconds
            )
        except Exception:
            _log.exception("cannot record function response metric")

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        try:
            self._wrapped.cache(event, function, amount)
        except Exception:
            _log.exception("cannot record cache metric %r", event)

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        try:
            self._wrapped.cache_seconds(op, function, seconds)
        except Exception:
            _log.exception("cannot record cache %s latency", op)


def guarded(metrics: Metrics | None) -> Metrics:
    """``metrics`` made safe to call on the main path; ``None`` gives :class:`NoMetrics`."""
    if metrics is None or isinstance(metrics, NoMetrics | _Guarded):
        return metrics or NoMetrics()
    return _Guarded(metrics)
