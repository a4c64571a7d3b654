"""Tests for crossfn.sdk.logging (JSON lines, bound tag) and crossfn.sdk.metrics (Prometheus)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator

import prometheus_client
import pytest

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import function, metrics
from crossfn.sdk import logging as fnlogging


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    out = io.StringIO()
    fnlogging.configure(debug=True, stream=out)
    yield out
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_crossfn", False):
            root.removeHandler(h)
    root.setLevel(logging.WARNING)


def _lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_records_are_json_with_fields_and_tag(stream: io.StringIO) -> None:
    log = fnlogging.get_logger("test.fn")
    with fnlogging.bind_tag("abc"):
        log.info("composed %d", 3, extra={"resources": 3})
    log.debug("untagged")
    first, second = _lines(stream)
    assert {k: first[k] for k in ("level", "logger", "msg", "tag", "resources")} == {
        "level": "info",
        "logger": "test.fn",
        "msg": "composed 3",
        "tag": "abc",
        "resources": 3,
    }
    assert "tag" not in second and second["level"] == "debug"


def test_configure_twice_keeps_one_handler(stream: io.StringIO) -> None:
    fnlogging.configure(stream=stream)
    fnlogging.get_logger("test.fn").warning("once")
    assert [line["msg"] for line in _lines(stream)] == ["once"]


def test_sync_function_logs_carry_the_tag_and_traceback(stream: io.StringIO) -> None:
    def compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        fnlogging.get_logger("test.fn").info("in thread")
        raise KeyError("k")

    async def call() -> fnv1.RunFunctionResponse:
        with fnlogging.bind_tag("t1"):
            return await function.to_handler(compose)(fnv1.RunFunctionRequest())

    rsp = asyncio.run(call())
    assert rsp.results[0].severity == fnv1.SEVERITY_FATAL
    lines = _lines(stream)
    assert [(line["msg"], line.get("tag")) for line in lines if line["logger"] != "asyncio"] == [
        ("in thread", "t1"),
        ("function raised an exception", "t1"),
    ]
    assert "KeyError" in str(lines[-1]["error"])


def test_prometheus_counts_by_version_and_outcome() -> None:
    registry = prometheus_client.CollectorRegistry()
    sink = metrics.PrometheusMetrics(registry)
    sink.observe("v1", "success", 0.01)
    sink.observe("v1", "success", 0.02)
    sink.observe("v1beta1", "fatal", 0.5)
    value = registry.get_sample_value
    assert value("crossfn_function_requests_total", {"version": "v1", "outcome": "success"}) == 2
    assert value("crossfn_function_requests_total", {"version": "v1beta1", "outcome": "fatal"}) == 1
    assert (
        value("crossfn_function_request_duration_seconds_count", {"version": "v1", "outcome": "success"}) == 2
    )
    assert (
        value("crossfn_function_request_duration_seconds_sum", {"version": "v1beta1", "outcome": "fatal"})
        == 0.5
    )


@pytest.mark.parametrize(
    ("reason", "address", "want"),
    [
        pytest.param("Host and port.", "127.0.0.1:8080", ("127.0.0.1", 8080), id="HostPort"),
        pytest.param(
            "A bare port listens everywhere, as Go's :8080.", ":8080", ("0.0.0.0", 8080), id="BarePort"
        ),
        pytest.param("IPv6 brackets are removed.", "[::1]:9", ("::1", 9), id="IPv6"),
    ],
)
def test_split_address(reason: str, address: str, want: tuple[str, int]) -> None:
    assert metrics.split_address(address) == want, reason


def test_split_address_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="want host:port"):
        metrics.split_address("nonsense")
