"""The controller's logs, probes and metrics endpoint.

* :func:`configure_logging`: one JSON object per line on stderr (what log
  collectors parse), or plain text for a terminal; the level is debug or info.
* :class:`ProbeServer`: a tiny HTTP server for ``/healthz`` (the process
  answers), ``/readyz`` (every informer has synced and no watch is down, so
  reconciles read a complete, current cache; the body says why not, and
  whether this replica leads) and ``/metrics``
  (Prometheus text from the controller's own registry). Kubernetes' probes and Prometheus need nothing more, so this is a
  few lines of asyncio rather than a web framework in the controller's
  dependencies. The same class serves any subset of the three on an address,
  as Crossplane serves metrics and probes on two ports.
* :class:`PrometheusControllerMetrics`: controller-runtime's and client-go's
  metric names (reconciles, work queues, leader election) plus Crossplane's
  ``engine_*`` controller and watch counters (the seams they fill, and the
  instrumented work queue, are :mod:`crossfn.controller.runtime._metrics`);
  :class:`InformerCollector` reports the informers' watches at scrape time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from crossfn import errors
from crossfn.sdk import logging as sdk_logging

__all__ = [
    "InformerCollector",
    "JsonFormatter",
    "ProbeServer",
    "PrometheusControllerMetrics",
    "TextFormatter",
    "configure_logging",
    "split_address",
]

_log = logging.getLogger("crossfn.controller")

JsonFormatter = sdk_logging.JsonFormatter
"""One JSON line per record, the function server's format (``crossfn function serve``): ``ts`` (seconds
since the epoch, as zap's default), ``level``, ``logger``, ``msg``, every ``extra`` field, ``error``."""

_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class TextFormatter(logging.Formatter):
    """A record for a terminal: time, level, logger, message, then its ``extra`` fields as ``key=value``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        head, sep, trace = line.partition("\n")
        fields = [
            f"{key}={_text_value(value)}"
            for key, value in vars(record).items()
            if key not in _STANDARD and not key.startswith("_")
        ]
        return " ".join([head, *fields]) + sep + trace


def _text_value(value: object) -> str:
    """A field's value, quoted when it has spaces or quotes so the line still splits on spaces."""
    text = str(value)
    return json.dumps(text) if not text or any(c in text for c in ' "=\n') else text


def configure_logging(log_format: str, *, debug: bool = False) -> None:
    """Send every log record to stderr in ``log_format`` (``json`` or ``text``)."""
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    # The HTTP client logs every request at info: the API server traffic of a
    # busy controller would drown its own lines. Debug shows them.
    for noisy in ("httpx", "httpx2", "httpcore", "httpcore2"):
        logging.getLogger(noisy).setLevel(logging.DEBUG if debug else logging.WARNING)


def split_address(address: str) -> tuple[str | None, int]:
    """``HOST:PORT`` (or ``:PORT``, every interface) as asyncio's ``start_server`` takes it."""
    host, _, port = address.rpartition(":")
    return (host.strip("[]") or None), int(port)


def _reason(exc: OSError) -> str:
    """The system's words for why binding failed (asyncio's own message repeats the address)."""
    if isinstance(exc, socket.gaierror) or not exc.errno:
        return str(exc.strerror or exc).lower()
    return os.strerror(exc.errno).lower()


REQUEST_TIMEOUT = 5.0
"""Seconds a client has to send its whole request line and headers (a probe sends them at once)."""
MAX_REQUEST_BYTES = 8192
"""The longest request line plus headers read; a longer one is answered 431 and closed."""
MAX_CONNECTIONS = 64
"""Connections held at once; a new one closes the oldest still waiting for its request."""


class ProbeServer:
    """Serves ``/healthz``, ``/readyz`` and ``/metrics`` (whichever are asked for) on one address.

    No client can hold it: a request must arrive whole within :data:`REQUEST_TIMEOUT` and
    :data:`MAX_REQUEST_BYTES`, and at most :data:`MAX_CONNECTIONS` are open (a new one closes
    the oldest waiting), so a flood of idle or trickling connections neither runs the
    process out of descriptors nor locks out the kubelet's probes; whatever a client
    sends, nothing is logged (each connection is answered or closed).
    """

    def __init__(
        self,
        address: str,
        *,
        flag: str = "--health-address",
        ready: Callable[[], list[str]] | None = None,
        metrics: Callable[[], bytes] | None = None,
        probes: bool = True,
        detail: Callable[[], str] | None = None,
    ) -> None:
        """``ready()`` lists why the replica is not ready (nothing: ready), one line each, for ``/readyz``'s
        body; ``detail()`` is added to that body (e.g. ``leader election: leading``), one line; ``flag`` is
        the flag that set ``address``, named when it cannot be bound."""
        self._address = address
        self._flag = flag
        self._ready = ready or list
        self._detail = detail
        self._metrics = metrics
        self._probes = probes
        self._server: asyncio.Server | None = None
        self._waiting: dict[asyncio.StreamWriter, None] = {}
        """Connections not yet answered, oldest first."""

    @property
    def port(self) -> int:
        """The port listened on (useful after binding port 0)."""
        assert self._server is not None and self._server.sockets
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        """Listen; an address that cannot be bound (in use, not this host's) is the user's flag, one line."""
        host, port = split_address(self._address)
        try:
            self._server = await asyncio.start_server(self._serve, host, port, limit=MAX_REQUEST_BYTES)
        except OSError as exc:
            raise errors.InputError(
                f"cannot serve {self._what()} on {self._flag} {self._address}: {_reason(exc)}"
            ) from exc
        bound = self._address if not self._address.endswith(":0") else f"{self._address[:-2]}:{self.port}"
        _log.info("serving %s on %s", self._what(), bound)

    def _what(self) -> str:
        parts = (["/healthz", "/readyz"] if self._probes else []) + (["/metrics"] if self._metrics else [])
        return " ".join(parts)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._waiting) >= MAX_CONNECTIONS:
            oldest = next(iter(self._waiting))
            del self._waiting[oldest]
            oldest.transport.abort()
        self._waiting[writer] = None
        try:
            try:
                async with asyncio.timeout(REQUEST_TIMEOUT):
                    head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.LimitOverrunError, ValueError):
                status, content_type, body = "431 Request Header Fields Too Large", "text/plain", b""
            else:
                request = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
                status, content_type, body = self._answer(request)
            self._waiting.pop(writer, None)
            head_out = (
                f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(head_out.encode() + body)
            async with asyncio.timeout(REQUEST_TIMEOUT):
                await writer.drain()
        except (TimeoutError, OSError, asyncio.IncompleteReadError):
            writer.transport.abort()  # too slow, gone, or evicted: nothing to say, nothing to log
        finally:
            self._waiting.pop(writer, None)
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    def _answer(self, request: list[str]) -> tuple[str, str, bytes]:
        path = request[1].split("?", 1)[0] if len(request) > 1 else ""
        text = "text/plain; charset=utf-8"
        if self._probes and path == "/healthz":
            return "200 OK", text, b"ok\n"
        if self._probes and path == "/readyz":
            extra = f"{self._detail()}\n".encode() if self._detail is not None else b""
            problems = self._ready()
            if not problems:
                return "200 OK", text, b"ok\n" + extra
            body = "".join(f"{line}\n" for line in problems).encode()
            return "503 Service Unavailable", text, body + extra
        if self._metrics is not None and path == "/metrics":
            return "200 OK", "text/plain; version=0.0.4; charset=utf-8", self._metrics()
        return "404 Not Found", text, b"not found\n"


class PrometheusControllerMetrics:
    """The controllers' reconcile metrics in controller-runtime's names, in the caller's registry.

    ``controller_runtime_reconcile_total{controller,result}``,
    ``controller_runtime_reconcile_time_seconds{controller}``,
    ``controller_runtime_active_workers{controller}``, ``workqueue_depth{name}``,
    ``workqueue_adds_total{name}``, ``workqueue_retries_total{name}``,
    ``workqueue_queue_duration_seconds{name}``, and Crossplane's
    ``engine_controllers_{started,stopped}_total{controller}`` and
    ``engine_watches_{started,stopped}_total{controller,type}`` and
    ``circuit_breaker_{opens,closes,events}_total``: what Crossplane's
    dashboards already chart.
    """

    def __init__(self, registry: Any) -> None:
        import prometheus_client as prom  # noqa: PLC0415 -- only a served /metrics loads it

        self._children: dict[tuple[Any, ...], Any] = {}

        self._total = prom.Counter(
            "controller_runtime_reconcile_total", "Total number of reconciliations per controller.",
            ["controller", "result"], registry=registry,
        )  # fmt: skip
        self._seconds = prom.Histogram(
            "controller_runtime_reconcile_time_seconds", "Length of time per reconciliation per controller.",
            ["controller"], registry=registry,
        )  # fmt: skip
        self._active = prom.Gauge(
            "controller_runtime_active_workers", "Number of currently used workers per controller.",
            ["controller"], registry=registry,
        )  # fmt: skip
        self._depth = prom.Gauge(
            "workqueue_depth", "Current depth of workqueue.", ["name"], registry=registry
        )
        self._adds = prom.Counter(
            "workqueue_adds_total", "Total number of adds handled by workqueue.", ["name"], registry=registry
        )
        self._retries = prom.Counter(
            "workqueue_retries_total",
            "Total number of retries handled by workqueue.",
            ["name"],
            registry=registry,
        )
        self._latency = prom.Histogram(
            "workqueue_queue_duration_seconds", "How long in seconds an item stays in workqueue before being requested.",
            ["name"], buckets=[10.0**e for e in range(-8, 2)], registry=registry,
        )  # fmt: skip
        self._started = prom.Counter(
            "engine_controllers_started_total", "Total number of controllers started.", ["controller"],
            registry=registry,
        )  # fmt: skip
        self._stopped = prom.Counter(
            "engine_controllers_stopped_total", "Total number of controllers stopped.", ["controller"],
            registry=registry,
        )  # fmt: skip
        self._watches_started = prom.Counter(
            "engine_watches_started_total", "Total number of watches started.", ["controller", "type"],
            registry=registry,
        )  # fmt: skip
        self._watches_stopped = prom.Counter(
            "engine_watches_stopped_total", "Total number of watches stopped.", ["controller", "type"],
            registry=registry,
        )  # fmt: skip
        self._circuit_opens = prom.Counter(
            "circuit_breaker_opens_total",
            "Number of times the XR circuit breaker transitioned from closed to open.",
            ["controller"], registry=registry,
        )  # fmt: skip
        self._circuit_closes = prom.Counter(
            "circuit_breaker_closes_total",
            "Number of times the XR circuit breaker transitioned from open to closed.",
            ["controller"], registry=registry,
        )  # fmt: skip
        self._circuit_events = prom.Counter(
            "circuit_breaker_events_total",
            "Number of XR watch events handled by the circuit breaker, labelled by outcome.",
            ["controller", "result"], registry=registry,
        )  # fmt: skip

    def _child(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, looked up once: every reconcile and watch event reports, and
        prometheus_client's ``labels`` validates and locks on each call. Children are never removed."""
        key = (metric, *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def reconciled(self, controller: str, result: str, seconds: float) -> None:
        self._child(self._total, controller, result).inc()
        self._child(self._seconds, controller).observe(seconds)

    def queue_depth(self, controller: str, depth: int) -> None:
        self._child(self._depth, controller).set(depth)

    def active_workers(self, controller: str, count: int) -> None:
        self._child(self._active, controller).set(count)

    def queue_added(self, name: str) -> None:
        self._child(self._adds, name).inc()

    def queue_latency(self, name: str, seconds: float) -> None:
        self._child(self._latency, name).observe(seconds)

    def queue_retried(self, name: str) -> None:
        self._child(self._retries, name).inc()

    def controller_started(self, controller: str) -> None:
        self._child(self._started, controller).inc()

    def controller_stopped(self, controller: str) -> None:
        self._child(self._stopped, controller).inc()

    def watch_started(self, controller: str, type_: str) -> None:
        self._child(self._watches_started, controller, type_).inc()

    def watch_stopped(self, controller: str, type_: str) -> None:
        self._child(self._watches_stopped, controller, type_).inc()

    def circuit_opened(self, controller: str) -> None:
        self._child(self._circuit_opens, controller).inc()

    def circuit_closed(self, controller: str) -> None:
        self._child(self._circuit_closes, controller).inc()

    def circuit_event(self, controller: str, result: str) -> None:
        self._child(self._circuit_events, controller, result).inc()


class _Informers(Protocol):
    def kinds(self) -> list[tuple[str, str]]: ...

    def running(self, api_version: str, kind: str) -> Any: ...


class InformerCollector:
    """The informers' watches and the leader election state, read when Prometheus scrapes.

    ``crossfn_watches`` (informers running), ``crossfn_watch_synced{api_version,kind}``
    (1 once the first list is cached), ``crossfn_watch_lists_total{api_version,kind}``
    (lists done: more than one means the watch was broken and relisted) and
    client-go's ``leader_election_master_status{name}`` (1 while this replica leads).
    """

    def __init__(self, informers: _Informers, *, leading: Callable[[], bool | None], lease: str) -> None:
        """``leading()`` is ``None`` without leader election (no leader metric is reported)."""
        self._informers = informers
        self._leading = leading
        self._lease = lease

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily  # noqa: PLC0415

        kinds = self._informers.kinds()
        yield GaugeMetricFamily(
            "crossfn_watches", "Number of kinds the controller lists and watches.", len(kinds)
        )
        synced = GaugeMetricFamily(
            "crossfn_watch_synced",
            "Whether a kind's cache has loaded its first list.",
            labels=["api_version", "kind"],
        )
        lists = CounterMetricFamily(
            "crossfn_watch_lists", "Lists of a kind so far; more than one means its watch was relisted.",
            labels=["api_version", "kind"],
        )  # fmt: skip
        for api_version, kind in kinds:
            informer = self._informers.running(api_version, kind)
            if informer is None:  # stopped since kinds() was read
                continue
            synced.add_metric([api_version, kind], 1.0 if informer.synced else 0.0)
            lists.add_metric([api_version, kind], float(getattr(informer, "relists", 0)))
        yield synced
        yield lists
        leading = self._leading()
        if leading is not None:
            status = GaugeMetricFamily(
                "leader_election_master_status", "Whether this replica holds the leader election Lease.",
                labels=["name"],
            )  # fmt: skip
            status.add_metric([self._lease], 1.0 if leading else 0.0)
            yield status
