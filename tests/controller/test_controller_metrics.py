"""PrometheusControllerMetrics: each report lands on its own label set, however often it is made."""

from __future__ import annotations

from collections.abc import Callable

import prometheus_client
import pytest

from crossfn.controller.manager import _observability

Report = Callable[[_observability.PrometheusControllerMetrics], None]


@pytest.mark.parametrize(
    ("reports", "sample", "labels", "want", "reason"),
    [
        pytest.param(
            [lambda m: m.reconciled("a", "success", 0.1)] * 3 + [lambda m: m.reconciled("b", "success", 0.1)],
            "controller_runtime_reconcile_total",
            {"controller": "a", "result": "success"},
            3.0,
            "repeated reports accumulate on one child; another controller's go to its own",
            id="counter",
        ),
        pytest.param(
            [lambda m: m.reconciled("a", "success", 0.1), lambda m: m.reconciled("a", "error", 0.1)],
            "controller_runtime_reconcile_total",
            {"controller": "a", "result": "error"},
            1.0,
            "a second label value is a second child",
            id="second-result",
        ),
        pytest.param(
            [lambda m: m.queue_depth("a", 5), lambda m: m.queue_depth("a", 2)],
            "workqueue_depth",
            {"name": "a"},
            2.0,
            "a gauge keeps the last value set",
            id="gauge",
        ),
        pytest.param(
            [lambda m: m.circuit_event("a", "Allowed")] * 2 + [lambda m: m.circuit_event("a", "Dropped")],
            "circuit_breaker_events_total",
            {"controller": "a", "result": "Allowed"},
            2.0,
            "circuit breaker outcomes count apart",
            id="circuit",
        ),
        pytest.param(
            [lambda m: m.queue_latency("a", 0.5)] * 2,
            "workqueue_queue_duration_seconds_count",
            {"name": "a"},
            2.0,
            "a histogram observes every report",
            id="histogram",
        ),
    ],
)
def test_reports_land_on_their_labels(
    reports: list[Report], sample: str, labels: dict[str, str], want: float, reason: str
) -> None:
    registry = prometheus_client.CollectorRegistry()
    metrics = _observability.PrometheusControllerMetrics(registry)
    for report in reports:
        report(metrics)
    assert registry.get_sample_value(sample, labels) == want, reason
