"""Serve a composition function to Crossplane over gRPC.

Two servers offer the same services (``_services``: RunFunction on
``apiextensions.fn.proto.v1`` and ``v1beta1``, health, reflection, mTLS or
plaintext) and differ in how they call the function:

* :class:`FunctionServer` runs ``grpc.aio`` in the current event loop, for
  async functions (and sync ones in worker threads, when embedded in a loop);
* :class:`ThreadedFunctionServer` runs gRPC's thread-pool server and calls a
  sync function from a few function threads fed by one queue (``_threads``):
  no event loop. A trivial function costs less CPU per call than even a bare
  ``grpc.aio`` echo (``benchmarks/function_server.py``).

:func:`serve` is the blocking entry point the CLI uses: it picks the server
by the function's kind, configures logging and metrics, runs one server (or
supervises several worker processes, see ``_workers``) and stops gracefully on
SIGTERM. An exception raised by the function becomes a Fatal result, unless a
servicer set a gRPC status first (``context.abort``): then the client gets that
status. Metrics and logging never fail a call.

No function and no client can wedge a server (``_calls``): each call has a
deadline (the client's, capped by ``--call-timeout``) and ends with
DEADLINE_EXCEEDED past it, a sync function being interrupted there; calls
beyond ``--max-calls`` are refused with RESOURCE_EXHAUSTED; the threaded
server answers health checks on gRPC's own threads, which never wait behind
function calls; and SIGTERM ends the process once the grace period is over,
even if a call is stuck where it cannot be interrupted. An async function
runs on the server's own loop: one that blocks it without awaiting stops
everything, health checks included, so CPU-bound work belongs in ``def``.
"""

from __future__ import annotations

import abc
import asyncio
import concurrent.futures
import functools
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, NoReturn

import grpc
from grpc_health.v1 import health, health_pb2

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import _calls, _loader, _services, _threads, function, metrics, settings
from crossfn.sdk import logging as fnlogging

__all__ = [
    "SERVICE_NAMES",
    "SHUTDOWN_GRACE_PERIOD_SECONDS",
    "V1BETA1_SERVICE",
    "V1_SERVICE",
    "FunctionServer",
    "ThreadedFunctionServer",
    "load_credentials",
    "load_function",
    "serve",
    "serve_worker",
]

V1_SERVICE = _services.V1_SERVICE
V1BETA1_SERVICE = _services.V1BETA1_SERVICE
SERVICE_NAMES = _services.SERVICE_NAMES
"""The services a function server offers (and reflection lists)."""

SHUTDOWN_GRACE_PERIOD_SECONDS = settings.ProcessSettings.grace_period_seconds

load_credentials = _services.load_credentials

_log = logging.getLogger("crossfn.sdk.runtime")

_SPARE_THREADS = 4
"""gRPC threads beyond the calls in flight: health checks and reflection always find one (the
threaded server's whole gRPC pool: its function calls run on their own threads)."""

_METHOD_POOL = "experimental_thread_pool"
"""The attribute of a behaviour naming the pool gRPC's thread-pool server runs it on."""


def load_function(spec: str) -> object:
    """Import ``module:object`` (``object`` may be dotted) and return the object.

    Raises :class:`crossfn.errors.InputError`, one line, when the spec is
    malformed, the module cannot be imported (or raises while importing) or has
    no such attribute. The one loader is :func:`crossfn.sdk._loader.load`.
    """
    return _loader.load(spec)


def _abort(context: Any, code: grpc.StatusCode, details: str) -> NoReturn:
    """End the call with a status: gRPC's ``abort`` raises, and so does this."""
    context.abort(code, details)
    raise AssertionError("grpc.ServicerContext.abort returned")


async def _abort_async(context: Any, code: grpc.StatusCode, details: str) -> NoReturn:
    """:func:`_abort` for ``grpc.aio``."""
    await context.abort(code, details)
    raise AssertionError("grpc.aio.ServicerContext.abort returned")


class _Server(abc.ABC):
    """What both servers share: their settings, call accounting and the gate on calls in flight."""

    def __init__(
        self,
        fn: object,
        config: settings.ServerSettings | None = None,
        *,
        server_metrics: metrics.ServerMetrics = metrics.NO_METRICS,
        reuse_port: bool = False,
        credentials: grpc.ServerCredentials | None = None,
    ) -> None:
        self._config = config or settings.ServerSettings()
        self._credentials = credentials
        self._call = _services.Call(server_metrics)
        self._gate = _calls.Gate(self._config.calls.max_calls)
        self._reuse_port = reuse_port
        self._server: Any = None
        self._adopt(fn)

    @abc.abstractmethod
    def _adopt(self, fn: object) -> None:
        """Make ``fn`` this server's handler, with what calling it needs."""

    @property
    def in_flight(self) -> int:
        """Function calls running or waiting now."""
        return self._gate.in_flight


class FunctionServer(_Server):
    """One ``grpc.aio`` server running a function in the current event loop.

    ``start()`` binds and returns the port (useful with port 0); ``stop()`` marks
    health NOT_SERVING and lets in-flight calls finish within the grace period.
    Sync functions run in worker threads so they never block the loop.
    """

    def _adopt(self, fn: object) -> None:
        self._handler = function.to_handler(fn)
        self._expiry = _calls.Expiry()
        self._health = health.aio.HealthServicer()

    async def _run(
        self, req: fnv1.RunFunctionRequest, context: Any, version: str
    ) -> fnv1.RunFunctionResponse:
        if not self._gate.enter():
            await _abort_async(context, grpc.StatusCode.RESOURCE_EXHAUSTED, _services.busy(self._gate.limit))
        try:
            due = _calls.deadline(context.time_remaining(), self._config.calls.timeout_seconds)
            state = self._call.begin(req, version)
            rsp = None
            try:
                rsp = await self._expiry.run(due, self._handler(req, context))
            except _calls.DeadlineExceeded:
                await _abort_async(
                    context, grpc.StatusCode.DEADLINE_EXCEEDED, _services.too_long(self._config.calls)
                )
            finally:
                self._call.end(state, rsp, version)
        finally:
            self._gate.leave()
        return rsp

    async def _run_v1(
        self, req: fnv1.RunFunctionRequest, context: function.ServicerContext
    ) -> fnv1.RunFunctionResponse:
        return await self._run(req, context, "v1")

    async def _run_v1beta1(
        self, req: fnv1.RunFunctionRequest, context: function.ServicerContext
    ) -> fnv1.RunFunctionResponse:
        return await self._run(req, context, "v1beta1")

    async def start(self) -> int:
        """Bind the address and start serving; returns the bound port.

        Raises :class:`crossfn.errors.InputError` when neither certificates nor
        ``insecure`` are given, or the address cannot be bound.
        """
        server = grpc.aio.server(
            options=self._config.grpc.options(reuse_port=self._reuse_port),
            maximum_concurrent_rpcs=self._config.calls.max_calls + _SPARE_THREADS,
        )
        _services.register(server, self._run_v1, self._run_v1beta1, self._health)
        port = _services.bind(server, self._config.listen, self._credentials, reuse_port=self._reuse_port)
        await server.start()
        self._server = server
        for name in _services.HEALTH_NAMES:
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        _services.announce(self._config.listen, port, "asyncio")
        return port

    async def stop(self, grace: float | None = None) -> None:
        """Stop serving: NOT_SERVING at once, then up to ``grace`` seconds for in-flight calls."""
        if self._server is None:
            return
        await self._health.enter_graceful_shutdown()
        period = self._config.process.grace_period_seconds if grace is None else grace
        await self._server.stop(period)

    async def wait_for_termination(self) -> None:
        """Block until the server has stopped."""
        if self._server is not None:
            await self._server.wait_for_termination()


class ThreadedFunctionServer(_Server):
    """One thread-pool gRPC server calling a *sync* function from its threads.

    The same contract as :class:`FunctionServer`, without an event loop:
    ``start()`` returns the port, ``stop()`` turns health NOT_SERVING and gives
    in-flight calls the grace period. Raises ``TypeError`` for an async function.

    RunFunction runs on ``threads`` function threads (``_threads.FunctionThreads``,
    which admits or refuses each call as it arrives); health checks, reflection and
    the calls refused or expired while queued run on gRPC's own small pool.
    """

    def _adopt(self, fn: object) -> None:
        self._handler = function.to_sync_handler(fn)
        self._health = health.HealthServicer()
        # gRPC's own pool serves health checks and reflection, and ends refused and expired
        # calls; RunFunction runs on the function threads (crossfn.sdk._threads).
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=_SPARE_THREADS, thread_name_prefix="crossfn-grpc"
        )
        self._threads = _threads.FunctionThreads(
            self._config.process.threads, self._gate, self._config.calls.timeout_seconds, self._pool
        )

    def _run(self, req: fnv1.RunFunctionRequest, context: Any, version: str) -> fnv1.RunFunctionResponse:
        ticket = self._threads.ticket()
        if ticket is None:
            return self._run_here(req, context, version)
        try:
            if not ticket.admitted:
                _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, _services.busy(self._gate.limit))
            if ticket.expired:
                _abort(context, grpc.StatusCode.DEADLINE_EXCEEDED, _services.too_long(self._config.calls))
            due = min(ticket.due, time.monotonic() + context.time_remaining())
            return self._call_function(req, context, version, due)
        finally:
            self._threads.release(ticket)  # before gRPC answers: see FunctionThreads.release

    def _run_here(self, req: fnv1.RunFunctionRequest, context: Any, version: str) -> fnv1.RunFunctionResponse:
        """A call gRPC ran on its own pool, not on the function threads: bounded here instead."""
        if not self._gate.enter():
            _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, _services.busy(self._gate.limit))
        try:
            due = _calls.deadline(context.time_remaining(), self._config.calls.timeout_seconds)
            return self._call_function(req, context, version, due)
        finally:
            self._gate.leave()

    def _call_function(
        self, req: fnv1.RunFunctionRequest, context: Any, version: str, due: float
    ) -> fnv1.RunFunctionResponse:
        state = self._call.begin(req, version)
        rsp = None
        try:
            rsp = self._threads.watchdog.run(due, self._handler, req, context)
        except _calls.DeadlineExceeded:
            _abort(context, grpc.StatusCode.DEADLINE_EXCEEDED, _services.too_long(self._config.calls))
        finally:
            self._call.end(state, rsp, version)
        return rsp

    def start(self) -> int:
        """Bind the address and start serving; returns the bound port (errors as :meth:`FunctionServer.start`)."""
        server = grpc.server(
            self._pool,
            options=self._config.grpc.options(reuse_port=self._reuse_port),
            maximum_concurrent_rpcs=self._config.calls.max_calls + _SPARE_THREADS,
        )
        run_v1 = functools.partial(self._run, version="v1")
        run_v1beta1 = functools.partial(self._run, version="v1beta1")
        for behaviour in (run_v1, run_v1beta1):
            setattr(behaviour, _METHOD_POOL, self._threads)
        _services.register(server, run_v1, run_v1beta1, self._health)
        port = _services.bind(server, self._config.listen, self._credentials, reuse_port=self._reuse_port)
        server.start()
        self._server = server
        for name in _services.HEALTH_NAMES:
            self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        _services.announce(self._config.listen, port, "threads")
        return port

    def stop(self, grace: float | None = None) -> threading.Event:
        """Start stopping: NOT_SERVING at once; the returned event is set once calls are done."""
        if self._server is None:
            done = threading.Event()
            done.set()
            return done
        self._health.enter_graceful_shutdown()
        period = self._config.process.grace_period_seconds if grace is None else grace
        event: threading.Event = self._server.stop(period)
        return event

    def wait_for_termination(self) -> None:
        """Block until the server has stopped (signals are still handled meanwhile)."""
        if self._server is not None:
            self._server.wait_for_termination()


def _build_metrics(config: settings.ServerSettings, *, multiprocess: bool) -> metrics.ServerMetrics:
    address = config.observability.metrics_address
    if not address:
        return metrics.NO_METRICS
    sink = metrics.PrometheusMetrics()
    if not multiprocess:
        import prometheus_client  # noqa: PLC0415 -- only servers with metrics pay for the import

        try:
            host, port = metrics.split_address(address)
            prometheus_client.start_http_server(port, addr=host)
        except (ValueError, OSError) as exc:
            raise errors.InputError(f"cannot serve metrics on {address}: {exc}") from exc
    return sink


async def _serve_async(
    fn: object, config: settings.ServerSettings, *, worker: bool, credentials: grpc.ServerCredentials | None
) -> None:
    sink = _build_metrics(config, multiprocess=worker)
    server = FunctionServer(fn, config, server_metrics=sink, reuse_port=worker, credentials=credentials)
    await server.start()
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []
    grace = config.process.grace_period_seconds

    def stop(signum: int, frame: object) -> None:
        # A plain signal handler, not the loop's: it runs even while a function blocks
        # the loop, and the backstop ends the process if the loop never gets to stop.
        _exit_after(grace + _BACKSTOP_SECONDS)
        loop.call_soon_threadsafe(lambda: stopping.append(asyncio.ensure_future(server.stop())))

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stop)
    await server.wait_for_termination()
    if stopping:
        await asyncio.gather(*stopping)
    _abandon_stuck_calls(server.in_flight)


def _serve_threaded(
    fn: object, config: settings.ServerSettings, *, worker: bool, credentials: grpc.ServerCredentials | None
) -> None:
    sink = _build_metrics(config, multiprocess=worker)
    server = ThreadedFunctionServer(
        fn, config, server_metrics=sink, reuse_port=worker, credentials=credentials
    )
    server.start()

    def stop(signum: int, frame: object) -> None:
        _exit_after(config.process.grace_period_seconds + _BACKSTOP_SECONDS)
        server.stop()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stop)
    server.wait_for_termination()
    _abandon_stuck_calls(server.in_flight)


_BACKSTOP_SECONDS = 0.5
"""After the grace period, how long stopping may take before the process just exits."""
_BACKSTOP = "crossfn-exit-backstop"


def _exit_after(seconds: float) -> None:
    """Start (once) a timer that ends the process: SIGTERM must end it, whatever the calls do."""
    if any(t.name == _BACKSTOP for t in threading.enumerate()):
        return
    timer = threading.Timer(
        seconds, _exit_now, args=("exiting: the server did not stop within the grace period",)
    )
    timer.name = _BACKSTOP
    timer.daemon = True
    timer.start()


def _abandon_stuck_calls(in_flight: int) -> None:
    """Exit at once if calls outlived the grace period, rather than wait for their threads.

    gRPC has cancelled them; a sync function stuck in one C call (or an async one
    in a worker thread) would still hold its thread, and the interpreter joins
    those at exit: the process would never end. SIGTERM must end it.
    """
    if in_flight:
        _exit_now("exiting with calls still running after the grace period", calls=in_flight)


def _exit_now(message: str, **extra: object) -> None:
    _log.warning(message, extra=extra)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def serve_worker(
    fn: object | str,
    config: settings.ServerSettings,
    *,
    worker: bool = False,
    credentials: grpc.ServerCredentials | None = None,
    configure_logging: bool = True,
) -> None:
    """Run one server until SIGTERM/SIGINT; ``fn`` may be a ``module:object`` spec.

    A sync function gets the threaded server, an async one the asyncio server.
    ``worker`` marks a process started by the supervisor: it shares the port
    (SO_REUSEPORT) and writes metrics for the parent to serve. ``credentials``
    replace loading ``config.listen.tls_certs_dir``. Logging is configured from
    ``config`` unless ``configure_logging`` is false (the caller did it).
    """
    if configure_logging:
        fnlogging.configure(debug=config.observability.debug)
    target = load_function(fn) if isinstance(fn, str) else fn
    if function.is_async(target):
        asyncio.run(_serve_async(target, config, worker=worker, credentials=credentials))
        return
    _serve_threaded(target, config, worker=worker, credentials=credentials)


def serve(
    function: object | str,
    address: str | settings.ServerSettings | None = None,
    *,
    creds: grpc.ServerCredentials | None = None,
    insecure: bool | None = None,
    options: Sequence[tuple[str, int | str]] | None = None,
    config: settings.ServerSettings | None = None,
) -> None:
    """Serve ``function`` until SIGTERM: the blocking entry point of a function's ``main``.

    ``function`` is a ``compose(req, rsp)`` function (sync or async), a servicer
    with ``RunFunction``, or a ``module:object`` string naming one. Two call shapes:

    * ``serve(function, config)`` (or ``config=``): crossfn's, with
      :class:`~crossfn.sdk.settings.ServerSettings`. With
      ``config.process.workers > 1`` the function is served from that many
      processes on one port; ``function`` must then be picklable (a
      module-level function or class instance) or a spec string.
    * ``serve(function, address, *, creds, insecure, options=None)``: the
      official SDK's. ``creds`` come from :func:`load_credentials`;
      ``insecure`` serves plaintext (only plaintext, even with ``creds``);
      ``options`` are further ``grpc.server`` options. Logging keeps what
      :func:`crossfn.sdk.logging.configure` set, if it was called.

    Raises ``ValueError`` (official shape) when there are neither ``creds`` nor
    ``insecure``, and ``TypeError`` when the two shapes are mixed.
    """
    if isinstance(address, settings.ServerSettings) or address is None:
        if creds is not None or insecure is not None or options is not None:
            raise TypeError(
                "serve(): creds, insecure and options go with an address, not with ServerSettings"
            )
        if address is not None and config is not None:
            raise TypeError("serve(): ServerSettings given twice")
        _serve_config(function, config or address or settings.ServerSettings())
        return
    if config is not None:
        raise TypeError("serve(): give an address or ServerSettings, not both")
    _check_official_arguments(address, creds, options)
    if creds is None and not insecure:
        # The official SDK's words: a ported main.py may print them ("Cannot run function: ...").
        raise ValueError(
            "no credentials were provided - did you provide credentials or use the insecure flag?"
        )
    level = fnlogging.configured_level()
    config = settings.ServerSettings(
        listen=settings.ListenSettings(address=address, insecure=bool(insecure)),
        grpc=settings.GrpcSettings(extra_options=tuple(options or ())),
        observability=settings.ObservabilitySettings(debug=level is fnlogging.Level.DEBUG),
    )
    serve_worker(function, config, credentials=creds, configure_logging=level is None)


def _check_official_arguments(address: object, creds: object, options: object) -> None:
    """Refuse, in one line, what gRPC would fail on deep inside (or, for an address, with another complaint)."""
    if not isinstance(address, str):
        raise TypeError(f"serve(): address must be a 'host:port' string, not {type(address).__name__}")
    if creds is not None and not isinstance(creds, grpc.ServerCredentials):
        raise TypeError(
            f"serve(): creds must be grpc.ServerCredentials (see load_credentials), not {type(creds).__name__}"
        )
    pairs = options if isinstance(options, Sequence) and not isinstance(options, str | bytes) else None
    if options is not None and (
        pairs is None
        or not all(isinstance(o, tuple | list) and len(o) == 2 and isinstance(o[0], str) for o in pairs)
    ):
        raise TypeError(
            f"serve(): options must be a list of (name, value) gRPC option pairs, not {options!r}"
        )


def _serve_config(fn: object | str, config: settings.ServerSettings) -> None:
    if config.process.workers <= 1:
        serve_worker(fn, config)
        return
    from crossfn.sdk import _workers  # noqa: PLC0415 -- multiprocessing is only needed with workers

    fnlogging.configure(debug=config.observability.debug)
    _workers.supervise(fn, config)
