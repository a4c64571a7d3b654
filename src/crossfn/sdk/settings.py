"""How a function server runs: one typed settings object, grouped by concern.

The command line (``crossfn function serve``) maps flags and environment
variables onto these dataclasses; :func:`crossfn.sdk.runtime.serve` takes the
object. Nothing in the runtime reads the environment itself, so embedding and
tests configure a server with plain values. The defaults match the official
Python SDK's ``cli`` module where it has the setting.
"""

from __future__ import annotations

import dataclasses

__all__ = [
    "DEFAULT_ADDRESS",
    "DEFAULT_MAX_MESSAGE_SIZE_MB",
    "MAX_MESSAGE_SIZE_MB",
    "CallSettings",
    "GrpcSettings",
    "ListenSettings",
    "ObservabilitySettings",
    "ProcessSettings",
    "ServerSettings",
]

DEFAULT_ADDRESS = "0.0.0.0:9443"
"""Where Crossplane expects a function: port 9443 on every interface (official SDK default)."""

DEFAULT_MAX_MESSAGE_SIZE_MB = 4
"""gRPC's own default message limit, in MB; the official SDK keeps it too."""


MAX_MESSAGE_SIZE_MB = 2047
"""gRPC takes message limits as a C int of bytes: 2047 MB is the most that fits."""


@dataclasses.dataclass(frozen=True)
class ListenSettings:
    """Where and how the server accepts connections."""

    address: str = DEFAULT_ADDRESS
    """``host:port`` to listen on. Port 0 picks a free port (single worker only)."""

    tls_certs_dir: str | None = None
    """Directory with ``tls.crt``, ``tls.key`` and ``ca.crt``: serve mTLS, requiring a
    client certificate signed by ``ca.crt`` (Crossplane's). Required unless ``insecure``."""

    insecure: bool = False
    """Serve plaintext. Wins over ``tls_certs_dir``: only the plaintext listener is opened
    (the official SDK opens both on one port and drops about half the calls)."""


@dataclasses.dataclass(frozen=True)
class GrpcSettings:
    """Limits passed to the gRPC server."""

    max_recv_message_size_mb: int = DEFAULT_MAX_MESSAGE_SIZE_MB
    """Largest request accepted, in MB. Raise it for XRs with very many composed resources."""

    max_send_message_size_mb: int | None = None
    """Largest response sent, in MB; ``None`` means the same as the receive limit."""

    handshake_timeout_seconds: float = 10.0
    """A connection must finish its TLS and HTTP/2 handshakes within this, or the server closes it
    (gRPC's own default is 120 s: a client that opens connections and never completes them could
    hold a thousand file descriptors and lock out every real client)."""

    max_connections: int = 512
    """Connections open at once; more are closed as they arrive, so the server never runs out of
    file descriptors (a container's limit is often 1024). Crossplane keeps one per function."""

    extra_options: tuple[tuple[str, int | str], ...] = ()
    """Further ``grpc.server`` options (``runtime.serve(..., options=...)``, as the official
    SDK takes them); one named like an option above replaces it."""

    def options(self, *, reuse_port: bool) -> list[tuple[str, int | str]]:
        """The ``grpc.server`` options these settings stand for."""
        send = self.max_send_message_size_mb or self.max_recv_message_size_mb
        options: dict[str, int | str] = {
            "grpc.max_receive_message_length": self.max_recv_message_size_mb * 1024 * 1024,
            "grpc.max_send_message_length": send * 1024 * 1024,
            "grpc.so_reuseport": 1 if reuse_port else 0,
            "grpc.server_handshake_timeout_ms": round(self.handshake_timeout_seconds * 1000),
            "grpc.max_allowed_incoming_connections": self.max_connections,
        }
        options.update(self.extra_options)
        return list(options.items())


@dataclasses.dataclass(frozen=True)
class ProcessSettings:
    """How many processes serve, and how they stop."""

    workers: int = 1
    """Processes serving on one port (SO_REUSEPORT). One asyncio loop uses one core; a
    CPU-bound function needs one worker per core to use them all."""

    threads: int = 4
    """Threads calling a sync function in each process. Four cost least CPU per call for a
    CPU-bound function (each thread also waits on gRPC's C core for its call's request and
    answer, and meanwhile the others run Python; more only fight over the GIL:
    ``benchmarks/function_server.py``). More help functions that wait on I/O; to use more
    cores, use ``workers``."""

    grace_period_seconds: float = 5.0
    """On SIGTERM, how long in-flight calls may finish before they are cancelled. Five
    seconds, as the official SDK: shorter than Kubernetes' 30 s termination grace."""


@dataclasses.dataclass(frozen=True)
class CallSettings:
    """Bounds on calls, so that no client and no function can wedge the server."""

    timeout_seconds: float = 120.0
    """Longest a call may run: a client's shorter deadline wins. A call past it ends with
    DEADLINE_EXCEEDED; a sync function still running Python is interrupted there. Two
    minutes is Crossplane's whole reconcile timeout, which no function call outlives."""

    max_calls: int = 64
    """Calls in flight (running or waiting for a thread) per process; more are refused at
    once with RESOURCE_EXHAUSTED, so requests cannot pile up in memory (each may be as
    large as the receive limit). Health checks are never counted nor refused."""


@dataclasses.dataclass(frozen=True)
class ObservabilitySettings:
    """Logs and metrics: side concerns that never fail a request."""

    debug: bool = False
    """Log at debug level, including one line per request."""

    metrics_address: str | None = None
    """``host:port`` for a Prometheus ``/metrics`` endpoint; ``None`` serves none, so that
    several local functions (as ``crossfn render`` starts them) never fight over a port."""


@dataclasses.dataclass(frozen=True)
class ServerSettings:
    """Everything a function server needs to know, grouped by concern."""

    listen: ListenSettings = dataclasses.field(default_factory=ListenSettings)
    grpc: GrpcSettings = dataclasses.field(default_factory=GrpcSettings)
    process: ProcessSettings = dataclasses.field(default_factory=ProcessSettings)
    calls: CallSettings = dataclasses.field(default_factory=CallSettings)
    observability: ObservabilitySettings = dataclasses.field(default_factory=ObservabilitySettings)
