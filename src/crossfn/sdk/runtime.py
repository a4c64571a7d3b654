"""Serve a composition function to Crossplane over gRPC.

:class:`FunctionServer` is one ``grpc.aio`` server in the current event loop:
RunFunction on both ``apiextensions.fn.proto.v1`` and ``v1beta1``, the
standard gRPC health service and server reflection. :func:`serve` is the
blocking entry point the CLI uses: it configures logging and metrics, runs one
server (or supervises several worker processes, see ``_workers``) and stops
gracefully on SIGTERM.

Design notes:

* v1beta1 is wire-identical to v1 (only the package name differs), so both
  services decode straight into v1 messages; no per-call re-serialisation, the
  trick the official SDK and Crossplane's fallback client use.
* The function is adapted once by :func:`crossfn.sdk.function.to_handler`:
  sync functions run in a worker thread, exceptions become a Fatal result.
* With ``insecure`` only the plaintext port is opened even if a certificates
  directory is set; with one worker SO_REUSEPORT is off, so a busy port is an
  error instead of a silent second listener.
* Metrics and logging are side concerns: a failing metrics sink is logged and
  the call goes on.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import signal
import time
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossfn.sdk import function, metrics, settings
from crossfn.sdk import logging as fnlogging

__all__ = [
    "SERVICE_NAMES",
    "SHUTDOWN_GRACE_PERIOD_SECONDS",
    "V1BETA1_SERVICE",
    "V1_SERVICE",
    "FunctionServer",
    "load_credentials",
    "load_function",
    "serve",
    "serve_worker",
]

V1_SERVICE = fnv1.DESCRIPTOR.services_by_name["FunctionRunnerService"].full_name
V1BETA1_SERVICE = fnv1beta1.DESCRIPTOR.services_by_name["FunctionRunnerService"].full_name
SERVICE_NAMES = (reflection.SERVICE_NAME, health.SERVICE_NAME, V1_SERVICE, V1BETA1_SERVICE)
"""The services a function server offers (and reflection lists)."""

SHUTDOWN_GRACE_PERIOD_SECONDS = settings.ProcessSettings.grace_period_seconds

_log = logging.getLogger("crossfn.sdk.runtime")


def load_credentials(tls_certs_dir: str) -> grpc.ServerCredentials:
    """Build mTLS server credentials from ``tls.crt``, ``tls.key`` and ``ca.crt`` in a directory.

    Clients must present a certificate signed by ``ca.crt``. Raises
    :class:`crossfn.errors.InputError` naming the file that cannot be read.
    """
    pem: dict[str, bytes] = {}
    for name in ("tls.crt", "tls.key", "ca.crt"):
        path = os.path.join(tls_certs_dir, name)
        try:
            with open(path, "rb") as f:
                pem[name] = f.read()
        except OSError as exc:
            raise errors.InputError(f"cannot load TLS certificates: cannot read {path}: {exc.strerror}") from exc
    return grpc.ssl_server_credentials(
        [(pem["tls.key"], pem["tls.crt"])],
        root_certificates=pem["ca.crt"],
        require_client_auth=True,
    )


def load_function(spec: str) -> object:
    """Import ``module:object`` (``object`` may be dotted) and return the object.

    Raises :class:`crossfn.errors.InputError` when the spec is malformed, the
    module cannot be imported or has no such attribute.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise errors.InputError(f"cannot load function {spec!r}: want MODULE:OBJECT, e.g. mypkg.fn:compose")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise errors.InputError(f"cannot load function {spec!r}: cannot import {module_name}: {exc}") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise errors.InputError(f"cannot load function {spec!r}: {module_name} has no {attr}") from exc
    return obj


def _outcome(rsp: fnv1.RunFunctionResponse) -> metrics.Outcome:
    worst: metrics.Outcome = "success"
    for r in rsp.results:
        if r.severity == fnv1.SEVERITY_FATAL:
            return "fatal"
        if r.severity == fnv1.SEVERITY_WARNING:
            worst = "warning"
    return worst


class FunctionServer:
    """One gRPC server running a function in the current event loop.

    ``start()`` binds and returns the port (useful with port 0); ``stop()`` marks
    health NOT_SERVING and lets in-flight calls finish within the grace period.
    """

    def __init__(
        self,
        fn: object,
        config: settings.ServerSettings | None = None,
        *,
        server_metrics: metrics.ServerMetrics = metrics.NO_METRICS,
        reuse_port: bool = False,
    ) -> None:
        self._config = config or settings.ServerSettings()
        self._handler = function.to_handler(fn)
        self._metrics = server_metrics
        self._reuse_port = reuse_port
        self._health = health.aio.HealthServicer()
        self._server: Any = None

    async def _run(self, req: fnv1.RunFunctionRequest, version: str) -> fnv1.RunFunctionResponse:
        start = time.perf_counter()
        token = fnlogging.tag_var.set(req.meta.tag)
        try:
            if _log.isEnabledFor(logging.DEBUG):
                _log.debug("running function", extra={"version": version})
            rsp = await self._handler(req)
        finally:
            fnlogging.tag_var.reset(token)
        try:
            self._metrics.observe(version, _outcome(rsp), time.perf_counter() - start)
        except Exception:
            _log.exception("cannot record metrics")
        return rsp

    async def _run_v1(self, req: fnv1.RunFunctionRequest, context: object) -> fnv1.RunFunctionResponse:
        return await self._run(req, "v1")

    async def _run_v1beta1(self, req: fnv1.RunFunctionRequest, context: object) -> fnv1.RunFunctionResponse:
        return await self._run(req, "v1beta1")

    def _build(self) -> Any:
        server = grpc.aio.server(options=self._config.grpc.options(reuse_port=self._reuse_port))
        for service, method in ((V1_SERVICE, self._run_v1), (V1BETA1_SERVICE, self._run_v1beta1)):
            handlers = {
                "RunFunction": grpc.unary_unary_rpc_method_handler(
                    method,
                    # v1beta1 is v1 on the wire: both decode into v1 messages.
                    request_deserializer=fnv1.RunFunctionRequest.FromString,
                    response_serializer=fnv1.RunFunctionResponse.SerializeToString,
                )
            }
            server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
            server.add_registered_method_handlers(service, handlers)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection(SERVICE_NAMES, server)
        return server

    async def start(self) -> int:
        """Bind the address and start serving; returns the bound port.

        Raises :class:`crossfn.errors.InputError` when neither certificates nor
        ``insecure`` are given, or the address cannot be bound.
        """
        listen = self._config.listen
        if not listen.insecure and not listen.tls_certs_dir:
            raise errors.InputError(
                "cannot serve function: no TLS certificates directory given; "
                "set --tls-certs-dir (TLS_SERVER_CERTS_DIR) or --insecure"
            )
        creds = None if listen.insecure else load_credentials(str(listen.tls_certs_dir))
        server = self._build()
        try:
            port: int = (
                server.add_insecure_port(listen.address)
                if creds is None
                else server.add_secure_port(listen.address, creds)
            )
        except RuntimeError as exc:
            raise errors.InputError(f"cannot listen on {listen.address}: {exc}") from exc
        await server.start()
        self._server = server
        for name in ("", V1_SERVICE, V1BETA1_SERVICE):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        _log.info(
            "serving function",
            extra={"address": listen.address, "port": port, "insecure": creds is None, "pid": os.getpid()},
        )
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


def _build_metrics(config: settings.ServerSettings, *, multiprocess: bool) -> metrics.ServerMetrics:
    address = config.observability.metrics_address
    if not address:
        return metrics.NO_METRICS
    sink = metrics.PrometheusMetrics()
    if not multiprocess:
        import prometheus_client  # noqa: PLC0415 -- only servers with metrics pay for the import

        host, port = metrics.split_address(address)
        prometheus_client.start_http_server(port, addr=host)
    return sink


async def _serve_async(fn: object, config: settings.ServerSettings, *, worker: bool) -> None:
    sink = _build_metrics(config, multiprocess=worker)
    server = FunctionServer(fn, config, server_metrics=sink, reuse_port=worker)
    await server.start()
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stopping.append(asyncio.ensure_future(server.stop())))
    await server.wait_for_termination()
    if stopping:
        await asyncio.gather(*stopping)


def serve_worker(fn: object | str, config: settings.ServerSettings, *, worker: bool = False) -> None:
    """Run one server until SIGTERM/SIGINT; ``fn`` may be a ``module:object`` spec.

    ``worker`` marks a process started by the supervisor: it shares the port
    (SO_REUSEPORT) and writes metrics for the parent to serve.
    """
    fnlogging.configure(debug=config.observability.debug)
    target = load_function(fn) if isinstance(fn, str) else fn
    asyncio.run(_serve_async(target, config, worker=worker))


def serve(fn: object | str, config: settings.ServerSettings | None = None) -> None:
    """Serve ``fn`` until SIGTERM: the blocking entry point of a function's ``main``.

    ``fn`` is a ``compose(req, rsp)`` function (sync or async), a servicer with
    ``RunFunction``, or a ``module:object`` string naming one. With
    ``config.process.workers > 1`` the function is served from that many
    processes on one port; ``fn`` must then be picklable (a module-level
    function or class instance) or a spec string.
    """
    config = config or settings.ServerSettings()
    if config.process.workers <= 1:
        serve_worker(fn, config)
        return
    from crossfn.sdk import _workers  # noqa: PLC0415 -- multiprocessing is only needed with workers

    fnlogging.configure(debug=config.observability.debug)
    _workers.supervise(fn, config)

