"""The gRPC services a function server offers, and how it listens: shared by both servers.

The asyncio server (for async functions) and the threaded server (for sync
functions) differ only in how they call the function. What they offer is the
same and lives here: RunFunction on ``apiextensions.fn.proto.v1`` and
``v1beta1`` (wire-identical, so both decode into v1 messages), the standard
health service, server reflection, the choice between mTLS and plaintext, and
binding the address.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from crossfn import errors
from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import logging as fnlogging
from crossfn.sdk import metrics, settings

__all__ = [
    "HEALTH_NAMES",
    "SERVICE_NAMES",
    "V1BETA1_SERVICE",
    "V1_SERVICE",
    "Call",
    "announce",
    "bind",
    "busy",
    "check_free",
    "load_credentials",
    "outcome",
    "register",
    "too_long",
]

# The protocol's names, spelled out: crossfn's descriptors carry other names when they
# cannot be shared with an installed official SDK (crossfn.proto._registry).
V1_SERVICE = "apiextensions.fn.proto.v1.FunctionRunnerService"
V1BETA1_SERVICE = "apiextensions.fn.proto.v1beta1.FunctionRunnerService"
SERVICE_NAMES = (reflection.SERVICE_NAME, health.SERVICE_NAME, V1_SERVICE, V1BETA1_SERVICE)
HEALTH_NAMES = ("", V1_SERVICE, V1BETA1_SERVICE)
"""Health reports these as SERVING: the server as a whole and each function service."""

_log = logging.getLogger("crossfn.sdk.runtime")


def outcome(rsp: fnv1.RunFunctionResponse) -> metrics.Outcome:
    """The worst result severity of a response, as a metrics label."""
    worst: metrics.Outcome = "success"
    for r in rsp.results:
        if r.severity == fnv1.SEVERITY_FATAL:
            return "fatal"
        if r.severity == fnv1.SEVERITY_WARNING:
            worst = "warning"
    return worst


def busy(limit: int) -> str:
    """The RESOURCE_EXHAUSTED detail for a call beyond the bound on calls in flight."""
    return f"cannot run function: {limit} calls are already in flight (--max-calls)"


def too_long(calls: settings.CallSettings) -> str:
    """The DEADLINE_EXCEEDED detail for a call that ran out of time."""
    return (
        "cannot run function: the call ran past its deadline "
        f"(the client's, at most {calls.timeout_seconds:g}s: --call-timeout)"
    )


class Call:
    """What every call shares, whichever server runs it: the tag bound to logs, debug line, metrics.

    Without metrics (the default, :data:`~crossfn.sdk.metrics.NO_METRICS`) a call is
    neither timed nor classified: nothing would read the figures.
    """

    def __init__(self, server_metrics: metrics.ServerMetrics) -> None:
        self._metrics = None if server_metrics is metrics.NO_METRICS else server_metrics

    def begin(self, req: fnv1.RunFunctionRequest, version: str) -> tuple[float, Any]:
        """Bind the request tag and note the start; pass the result to :meth:`end`."""
        token = fnlogging.tag_var.set(req.meta.tag)
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug("running function", extra={"version": version})
        return (0.0 if self._metrics is None else time.perf_counter()), token

    def end(self, state: tuple[float, Any], rsp: fnv1.RunFunctionResponse | None, version: str) -> None:
        """Unbind the tag and record the call; a failing metrics sink is logged, never raised."""
        start, token = state
        fnlogging.tag_var.reset(token)
        if self._metrics is None:
            return
        try:
            self._metrics.observe(
                version, "aborted" if rsp is None else outcome(rsp), time.perf_counter() - start
            )
        except Exception:
            _log.exception("cannot record metrics")


def register(
    server: Any, run_v1: Callable[..., Any], run_v1beta1: Callable[..., Any], health_servicer: Any
) -> None:
    """Add RunFunction (v1 and v1beta1), health and reflection to a sync or asyncio gRPC server."""
    for service, method in ((V1_SERVICE, run_v1), (V1BETA1_SERVICE, run_v1beta1)):
        handlers = {
            "RunFunction": grpc.unary_unary_rpc_method_handler(
                method,
                # v1beta1 is v1 on the wire: both decode into v1 messages, as deep as Kubernetes allows.
                request_deserializer=functools.partial(wire.parse, fnv1.RunFunctionRequest),
                response_serializer=fnv1.RunFunctionResponse.SerializeToString,
            )
        }
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
        server.add_registered_method_handlers(service, handlers)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(SERVICE_NAMES, server)


def load_credentials(tls_certs_dir: str | None) -> grpc.ServerCredentials | None:
    """Build mTLS server credentials from ``tls.crt``, ``tls.key`` and ``ca.crt`` in a directory.

    Clients must present a certificate signed by ``ca.crt``. No directory
    (``None``, as when ``--tls-certs-dir`` is not given) gives ``None``, as the
    official SDK does. Raises :class:`crossfn.errors.InputError` naming the
    file that cannot be read.
    """
    if tls_certs_dir is None:
        return None
    pem: dict[str, bytes] = {}
    for name in ("tls.crt", "tls.key", "ca.crt"):
        path = os.path.join(tls_certs_dir, name)
        try:
            with open(path, "rb") as f:
                pem[name] = f.read()
        except OSError as exc:
            raise errors.InputError(
                f"cannot load TLS certificates: cannot read {path}: {exc.strerror}"
            ) from exc
    return grpc.ssl_server_credentials(
        [(pem["tls.key"], pem["tls.crt"])],
        root_certificates=pem["ca.crt"],
        require_client_auth=True,
    )


def bind(
    server: Any,
    listen: settings.ListenSettings,
    credentials: grpc.ServerCredentials | None = None,
    *,
    reuse_port: bool = False,
) -> int:
    """Open the one listener ``listen`` asks for and return its port.

    ``credentials`` (already loaded, as ``runtime.serve(fn, address, creds=...)``
    passes them) win over ``listen.tls_certs_dir``. With ``insecure`` only the
    plaintext port is opened, even when there are credentials. Raises
    :class:`crossfn.errors.InputError` when there are neither credentials nor
    ``insecure``, or the address cannot be bound.
    """
    if not listen.insecure and credentials is None and not listen.tls_certs_dir:
        raise errors.InputError(
            "cannot serve function: no TLS certificates directory given; "
            "set --tls-certs-dir (TLS_SERVER_CERTS_DIR) or --insecure"
        )
    creds = None if listen.insecure else credentials or load_credentials(listen.tls_certs_dir)
    check_free(listen.address, reuse_port=reuse_port)
    try:
        port: int = (
            server.add_insecure_port(listen.address)
            if creds is None
            else server.add_secure_port(listen.address, creds)
        )
    except RuntimeError as exc:
        # gRPC's text names no cause ("Failed to bind to address ...; set GRPC_VERBOSITY=debug ...").
        cause = _bind_error(listen.address, reuse_port=reuse_port) or str(exc).partition(";")[0]
        raise errors.InputError(f"cannot listen on {listen.address}: {cause}") from exc
    return port


def check_free(address: str, *, reuse_port: bool) -> None:
    """Raise ``cannot listen on <address>: address already in use`` (or the OS's other reason)
    when a TCP ``address`` cannot be bound, before gRPC tries and logs its own lines about it.

    ``reuse_port`` binds as the workers do (SO_REUSEPORT), so workers sharing the port are fine.
    Addresses that are not ``host:port`` (``unix:...``) and port 0 are left to gRPC.
    """
    cause = _bind_error(address, reuse_port=reuse_port)
    if cause:
        raise errors.InputError(f"cannot listen on {address}: {cause}")


def _bind_error(address: str, *, reuse_port: bool) -> str:
    """Why binding TCP ``address`` fails now, as the OS says it (``address already in use``), else ``""``."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or int(port) == 0 or "/" in host or host.startswith("unix"):
        return ""
    name = host.removeprefix("[").removesuffix("]") or None
    try:
        infos = socket.getaddrinfo(name, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError):
        return ""  # gRPC says what is wrong with the name
    for family, kind, proto, _, sockaddr in infos:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if reuse_port and hasattr(socket, "SO_REUSEPORT"):
                    with contextlib.suppress(OSError):
                        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                probe.bind(sockaddr)
        except OSError as exc:
            return (exc.strerror or str(exc)).lower()
    return ""


def announce(listen: settings.ListenSettings, port: int, engine: str) -> None:
    """Log that the server is up: the line tests and operators wait for."""
    _log.info(
        "serving function",
        extra={
            "address": listen.address,
            "port": port,
            "insecure": listen.insecure,
            "engine": engine,
            "pid": os.getpid(),
        },
    )
