"""Request metrics for a function server: a seam with a no-op default and Prometheus.

The runtime reports each call once, with its outcome and duration, through
:class:`ServerMetrics`. The default does nothing, so tests and embedding pay
nothing; :class:`PrometheusMetrics` counts and times calls by outcome. Metric
failures are logged and swallowed by the runtime: metrics never fail a call.

With several worker processes Prometheus runs in multiprocess mode: each
worker writes its samples to a shared directory and the parent serves the sum
(:func:`serve_multiprocess`).
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

__all__ = [
    "NO_METRICS",
    "NoMetrics",
    "Outcome",
    "PrometheusMetrics",
    "ServerMetrics",
    "serve_multiprocess",
    "split_address",
]

Outcome = Literal["success", "warning", "fatal", "aborted"]
"""How a call ended: no result worse than Normal, a Warning result, a Fatal result, or no
response at all (a servicer ended the call with a gRPC status, e.g. ``context.abort``)."""


class ServerMetrics(Protocol):
    """Receives one observation per RunFunction call."""

    def observe(self, version: str, outcome: Outcome, seconds: float) -> None:
        """Record a call to protocol ``version`` (``v1``/``v1beta1``) that took ``seconds``."""


class NoMetrics:
    """Records nothing: the default."""

    def observe(self, version: str, outcome: Outcome, seconds: float) -> None:
        """Do nothing."""


NO_METRICS = NoMetrics()


class PrometheusMetrics:
    """Counts and times calls in a Prometheus registry.

    ``crossfn_function_requests_total{version,outcome}`` and
    ``crossfn_function_request_duration_seconds{version,outcome}`` (a histogram).
    Label children are cached so an observation costs a dict lookup and two
    increments.
    """

    def __init__(self, registry: Any = None) -> None:
        import prometheus_client  # noqa: PLC0415 -- only servers with metrics pay for the import

        reg = registry if registry is not None else prometheus_client.REGISTRY
        self._count = prometheus_client.Counter(
            "crossfn_function_requests",
            "RunFunction calls handled, by protocol version and outcome.",
            ["version", "outcome"],
            registry=reg,
        )
        self._latency = prometheus_client.Histogram(
            "crossfn_function_request_duration_seconds",
            "Time to handle a RunFunction call, by protocol version and outcome.",
            ["version", "outcome"],
            registry=reg,
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self._children: dict[tuple[str, str], tuple[Any, Any]] = {}

    def observe(self, version: str, outcome: Outcome, seconds: float) -> None:
        """Count the call and record its duration."""
        key = (version, outcome)
        pair = self._children.get(key)
        if pair is None:
            pair = self._children[key] = (self._count.labels(*key), self._latency.labels(*key))
        pair[0].inc()
        pair[1].observe(seconds)


def split_address(address: str) -> tuple[str, int]:
    """Split ``host:port`` (``:port`` means every interface) for the metrics HTTP server."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"want host:port, got {address!r}")
    return host.strip("[]") or "0.0.0.0", int(port)


def serve_multiprocess(address: str, directory: str) -> None:
    """Serve ``/metrics`` summing the samples every worker wrote under ``directory``."""
    import prometheus_client  # noqa: PLC0415 -- only servers with metrics pay for the import
    from prometheus_client import multiprocess  # noqa: PLC0415 -- as above

    registry = prometheus_client.CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call] # prometheus_client leaves it unannotated
    host, port = split_address(address)
    prometheus_client.start_http_server(port, addr=host, registry=registry)
