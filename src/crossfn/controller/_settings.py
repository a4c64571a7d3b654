"""The controller's configuration: one typed object, grouped, with documented defaults.

``crossfn controller run`` maps its flags and environment variables onto
:class:`Settings` (in ``crossfn.cli.controller``, the only place that reads
either) and hands it to :func:`crossfn.controller.run`; an embedding builds
one directly. Defaults are Crossplane's core (``crossplane core start``,
upstream controllers-6) wherever crossfn has the same knob, so a user's
expectations carry over; each field says where it comes from.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

__all__ = [
    "ClusterSettings",
    "FeatureSettings",
    "FunctionSettings",
    "LeaderElectionSettings",
    "ObservabilitySettings",
    "PackageSettings",
    "ReconcileSettings",
    "Settings",
    "WebhookSettings",
]


@dataclasses.dataclass(frozen=True)
class ClusterSettings:
    """Which API server to talk to, and what to install there first."""

    kubeconfig: str | None = None
    """A kubeconfig file; ``None`` reads ``$KUBECONFIG`` (then ``~/.kube/config``), and
    falls back to the in-cluster service account, as every Kubernetes client does."""

    context: str | None = None
    """The kubeconfig context; ``None`` is its current context."""

    skip_crds: bool = False
    """Do not install or upgrade crossfn's Crossplane CRDs at start. Off by default so
    that ``crossfn controller run`` alone is enough; set it where Crossplane's own
    CRDs are installed by Helm, or where the controller's RBAC cannot write CRDs."""

    manage_rbac: bool = False
    """Keep the RBAC manager's four ClusterRoles per XRD (upstream controllers-7.1), which let the controller
    (and users) use an XRD's kinds. Off by default: it needs ``escalate`` on
    ClusterRoles (``deploy/optional/rbac-manager.yaml``); Crossplane's own RBAC manager
    does the same where it runs."""


@dataclasses.dataclass(frozen=True)
class ReconcileSettings:
    """How often and how concurrently XRs are reconciled."""

    poll_interval: float = 60.0
    """Seconds between reconciles of a healthy XR with no change (Crossplane's
    ``--poll-interval`` = 1m). Realtime watches make most reconciles event-driven;
    the poll catches drift nothing watches."""

    min_poll_interval: float = 1.0
    """The shortest requeue a pipeline's TTL may ask for (Crossplane's
    ``--min-poll-interval`` = 1s, v2.3+): a function answering ``ttl: 0s`` must not
    spin the controller."""

    realtime: bool = True
    """Watch every composed and required kind an XR depends on and reconcile the XR
    when one changes (Crossplane's ``--enable-realtime-compositions``, beta, on by
    default). Off, composed changes are seen at the next poll."""

    max_concurrent_reconciles: int = 100
    """Reconciles in flight per controller (Crossplane's ``--max-concurrent-reconciles``,
    alias ``--max-reconcile-rate``, = 100). They are asyncio tasks waiting on the API
    server and functions, so many cost little."""

    max_reconciles_per_second: float | None = None
    """A cap on reconciles started per second per controller; ``None`` is no cap.
    crossfn's own knob, for sharing a small API server; Crossplane has none."""

    watch_gc_interval: float = 60.0
    """Seconds between two collections of the watches no XR depends on any more (Crossplane's
    engine: every minute, not a flag). An embedding's tests may shorten it; there is no flag."""

    circuit_breaker_burst: float = 100.0
    """Watch events an XR may get at once before its circuit breaker opens (Crossplane's
    ``--circuit-breaker-burst`` = 100): a composed resource that flaps cannot keep its XR reconciling."""

    circuit_breaker_refill_rate: float = 1.0
    """Watch events per second an XR may get steadily (Crossplane's ``--circuit-breaker-refill-rate`` = 1)."""

    circuit_breaker_cooldown: float = 300.0
    """Seconds an open circuit stays open, letting one event through every 30 s (Crossplane's
    ``--circuit-breaker-cooldown`` = 5m)."""

    adopt_existing: bool = False
    """``--adopt-existing-resources``: a composed resource that already exists and has no
    controller is taken over, as Crossplane does. Off (crossfn's default), only such an
    object annotated ``crossfn.io/adoptable: "true"`` is (docs/security.md)."""


@dataclasses.dataclass(frozen=True)
class FunctionSettings:
    """How Functions outside this process are reached (upstream controllers-5.7)."""

    insecure: bool = False
    """Dial functions without TLS (crossfn's ``--insecure-functions``). Crossplane
    always uses mTLS; insecure suits local functions and test clusters."""

    namespace: str = "crossplane-system"
    """The controller's namespace (Crossplane's ``--namespace``, env ``POD_NAMESPACE``):
    where the client certificate Secret, the CA, function package Deployments and
    (outside a pod) the leader election Lease live."""

    tls_client_secret_name: str = "crossplane-tls-client"
    """The Secret holding ``tls.crt``, ``tls.key`` and ``ca.crt``: the client
    certificate Crossplane's ``core init`` creates and its functions trust
    (Crossplane's ``--tls-client-secret-name``, env ``TLS_CLIENT_SECRET_NAME``)."""

    tls_client_certs_dir: str | None = None
    """A directory with the same three files, read instead of the Secret (Crossplane's
    ``--tls-client-certs-dir``, env ``TLS_CLIENT_CERTS_DIR``, where the chart mounts
    the Secret)."""

    timeout: float = 60.0
    """Seconds one RunFunction call may take before it fails with DeadlineExceeded.
    Crossplane bounds calls by its reconcile's deadline; a minute leaves room for
    the other steps."""

    filesystem_root: str | None = None
    """The one directory built-in functions may read in the controller's pod (crossfn's
    ``--function-filesystem-root``): go-templating's ``fileSystem.dirPath``, function-kcl's
    local sources and a KCL program's ``file.read`` must lie beneath it. ``None`` (the
    default) lets them read nothing: a Composition must not make the controller read its
    own files (its service account token) into composed resources. Upstream functions read
    their own container's files, where an operator mounts a ConfigMap; mount it in the
    controller's pod and name that directory here."""

    response_cache: bool = False
    """Cache function responses by request tag for their TTL (Crossplane's alpha
    ``--enable-function-response-cache``, off by default): a pipeline whose inputs did
    not change is not called again."""

    cache_dir: str = "/cache/xfn"
    """Where cached responses are written, in Crossplane's layout (``--xfn-cache-dir``, env
    ``XFN_CACHE_DIR``, default ``/cache/xfn``), so the two can share a volume."""

    cache_max_ttl: float = 86_400.0
    """The longest a cached response is trusted, whatever TTL the function asked for
    (``--xfn-cache-max-ttl``, env ``XFN_CACHE_MAX_TTL``, 24h; ``0`` is no limit)."""

    max_concurrent_calls: int = 25
    """Calls in flight to one Function outside this process, across every XR controller
    (crossfn's ``--max-concurrent-function-calls``). A call that finds them all taken
    waits :data:`crossfn.controller.packages.CALL_SLOT_WAIT` seconds for one, then fails
    and its XR is retried with backoff: a Function that never answers holds at most
    this many of a controller's workers (for ``timeout`` each), not all of them."""


@dataclasses.dataclass(frozen=True)
class PackageSettings:
    """How Functions that are packages (not built-in, not annotated) are run (upstream controllers-5)."""

    runtime: Literal["Deployment", "External"] = "Deployment"
    """``Deployment``: crossfn runs each package's active FunctionRevision as a Deployment,
    a Service and TLS Secrets in ``FunctionSettings.namespace``, as Crossplane's package
    manager does (Crossplane's ``--package-runtime``, env ``PACKAGE_RUNTIME``, default
    ``Deployment``). ``External``: leave package Functions to Crossplane's package
    manager running in the same cluster."""

    service_account: str = "crossplane"
    """The controller's ServiceAccount: its ``imagePullSecrets`` are given to function
    Deployments, and the client certificate names it (Crossplane's ``--service-account``,
    env ``POD_SERVICE_ACCOUNT``)."""


@dataclasses.dataclass(frozen=True)
class LeaderElectionSettings:
    """One leader among replicas, on the Lease ``crossplane-leader-election-core``
    (upstream controllers-6)."""

    enabled: bool = False
    """Reconcile only while holding the Lease (Crossplane's ``--leader-election``, env
    ``LEADER_ELECTION``, off by default; the Deployment in ``deploy/`` turns it on). Off,
    two replicas would both reconcile."""

    lease_duration: float = 60.0
    """Seconds a standby waits after the Lease last changed before taking over (Crossplane: 60 s)."""

    renew_deadline: float = 50.0
    """Seconds the leader keeps trying to renew before it stops leading (Crossplane: 50 s)."""

    retry_period: float = 2.0
    """Seconds between attempts to acquire or renew (Crossplane: 2 s)."""


@dataclasses.dataclass(frozen=True)
class ObservabilitySettings:
    """Logs, metrics and probes."""

    metrics_address: str = ":8080"
    """``HOST:PORT`` of the Prometheus ``/metrics`` endpoint; ``""`` serves none.
    Crossplane's ``--metrics-port`` = 8080 on every interface."""

    health_address: str = ":8081"
    """``HOST:PORT`` of ``/healthz`` and ``/readyz``; ``""`` serves none. Crossplane's
    ``--health-probe-port`` = 8081."""

    log_format: Literal["json", "text"] = "json"
    """One JSON object per line (what log collectors parse), or plain text for a terminal."""

    debug: bool = False
    """Log at debug level (Crossplane's ``--debug``)."""


@dataclasses.dataclass(frozen=True)
class WebhookSettings:
    """Usages and the admission webhook that enforces them (Crossplane's ``--enable-webhooks`` and
    ``--enable-usages``, both on by default)."""

    enabled: bool = True
    """Serve the usage webhook and register it (Crossplane's ``--enable-webhooks``, env
    ``ENABLE_WEBHOOKS``/``WEBHOOK_ENABLED``, on): without it, Usages are not reconciled either."""

    usages: bool = True
    """Reconcile Usages and ClusterUsages and deny deleting what they protect (Crossplane's beta
    ``--enable-usages``, on)."""

    address: str = ":9443"
    """``HOST:PORT`` the webhook serves HTTPS on (Crossplane's ``--webhook-port`` = 9443, env
    ``WEBHOOK_PORT``)."""

    service_name: str = "crossplane-webhooks"
    """The Service in the controller's namespace the API server calls the webhook through (the
    chart's, env ``WEBHOOK_SERVICE_NAME``); ``deploy/`` makes it."""

    service_port: int = 9443
    """That Service's port (env ``WEBHOOK_SERVICE_PORT``)."""

    url: str | None = None
    """``https://HOST:PORT``: call the webhook here instead of through the Service, for a controller
    outside the cluster; the serving certificate names the host. crossfn's own."""

    tls_server_secret_name: str = "crossplane-tls-server"
    """The Secret with the serving certificate, made at start when missing (Crossplane's
    ``--tls-server-secret-name``, env ``TLS_SERVER_SECRET_NAME``)."""

    tls_server_certs_dir: str | None = None
    """A directory with ``tls.crt``, ``tls.key`` and ``ca.crt`` to serve with instead (Crossplane's
    ``--tls-server-certs-dir``, env ``TLS_SERVER_CERTS_DIR``)."""

    @property
    def serving(self) -> bool:
        """Whether the webhook is served and Usages are reconciled: both switches on, as in Crossplane."""
        return self.enabled and self.usages


@dataclasses.dataclass(frozen=True)
class FeatureSettings:
    """Crossplane's alpha features the controller can run."""

    operations: bool = False
    """Run Operations, CronOperations and WatchOperations (``ops.crossplane.io``: Crossplane's
    ``--enable-operations``, alpha, off by default). Their CRDs are installed either way."""


@dataclasses.dataclass(frozen=True)
class Settings:
    """Everything ``crossfn controller run`` can be told."""

    cluster: ClusterSettings = dataclasses.field(default_factory=ClusterSettings)
    reconcile: ReconcileSettings = dataclasses.field(default_factory=ReconcileSettings)
    functions: FunctionSettings = dataclasses.field(default_factory=FunctionSettings)
    packages: PackageSettings = dataclasses.field(default_factory=PackageSettings)
    leader_election: LeaderElectionSettings = dataclasses.field(default_factory=LeaderElectionSettings)
    observability: ObservabilitySettings = dataclasses.field(default_factory=ObservabilitySettings)
    webhooks: WebhookSettings = dataclasses.field(default_factory=WebhookSettings)
    features: FeatureSettings = dataclasses.field(default_factory=FeatureSettings)
