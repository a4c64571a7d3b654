"""The controller's logs, probes and metrics endpoint.

* :func:`configure_logging`: one JSON object per line on stderr (what log
  collectors parse), or plain text for a terminal; the level is debug or info.
* :class:`ProbeServer`: a tiny HTTP server for ``/healthz`` (the process
  answers), ``/readyz`` (every informer has synced, so reconciles read a
  complete cache) and ``/metrics`` (Prometheus text from the controller's own
  registry). Kubernetes' probes and Prometheus need nothing more, so this is a
  few lines of asyncio rather than a web framework in the controller's
  dependencies. The same class serves any subset of the three on an address,
  as Crossplane serves metrics and probes on two ports.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "JsonFormatter",
    "ProbeServer",
    "PrometheusControllerMetrics",
    "configure_logging",
    "split_address",
]

_log = logging.getLogger("crossfn.controller")

_RESERVED = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """A log record as one JSON line: time, level, logger, message, any ``extra`` fields, error."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RESERVED and not key.startswith("_"):
                out[key] = (
                    value if isinstance(value, str | int | float | bool) or value is None else str(value)
                )
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def configure_logging(log_format: str, *, debug: bool = False) -> None:
    """Send every log record to stderr in ``log_format`` (``json`` or ``text``)."""
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
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


class ProbeServer:
    """Serves ``/healthz``, ``/readyz`` and ``/metrics`` (whichever are asked for) on one address."""

    def __init__(
        self,
        address: str,
        *,
        ready: Callable[[], bool] | None = None,
        metrics: Callable[[], bytes] | None = None,
        probes: bool = True,
    ) -> None:
        self._address = address
        self._ready = ready or (lambda: True)
        self._metrics = metrics
        self._probes = probes
        self._server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        """The port listened on (useful after binding port 0)."""
        assert self._server is not None and self._server.sockets
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        host, port = split_address(self._address)
        self._server = await asyncio.start_server(self._serve, host, port)
        _log.info("serving %s on %s", self._what(), self._address)

    def _what(self) -> str:
        parts = (["/healthz", "/readyz"] if self._probes else []) + (["/metrics"] if self._metrics else [])
        return " ".join(parts)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readline(), 10)
            while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass
            status, content_type, body = self._answer(request.decode("latin-1").split(" "))
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(head.encode() + body)
            await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def _answer(self, request: list[str]) -> tuple[str, str, bytes]:
        path = request[1].split("?", 1)[0] if len(request) > 1 else ""
        text = "text/plain; charset=utf-8"
        if self._probes and path == "/healthz":
            return "200 OK", text, b"ok\n"
        if self._probes and path == "/readyz":
            if self._ready():
                return "200 OK", text, b"ok\n"
            return "503 Service Unavailable", text, b"informers not synced\n"
        if self._metrics is not None and path == "/metrics":
            return "200 OK", "text/plain; version=0.0.4; charset=utf-8", self._metrics()
        return "404 Not Found", text, b"not found\n"


class PrometheusControllerMetrics:
    """The controllers' reconcile metrics in controller-runtime's names, in the caller's registry.

    ``controller_runtime_reconcile_total{controller,result}``,
    ``controller_runtime_reconcile_time_seconds{controller}``,
    ``controller_runtime_active_workers{controller}`` and
    ``workqueue_depth{name}``: what Crossplane's dashboards already chart.
    """

    def __init__(self, registry: Any) -> None:
        import prometheus_client as prom  # noqa: PLC0415 -- only a served /metrics loads it

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

    def reconciled(self, controller: str, result: str, seconds: float) -> None:
        self._total.labels(controller, result).inc()
        self._seconds.labels(controller).observe(seconds)

    def queue_depth(self, controller: str, depth: int) -> None:
        self._depth.labels(controller).set(depth)

    def active_workers(self, controller: str, count: int) -> None:
        self._active.labels(controller).set(count)
