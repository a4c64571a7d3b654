"""The manager: connects, installs CRDs, starts every controller, serves probes, drains on SIGTERM.

This is where the controller is assembled, in one place and in this order:

1. **connect** (``_kube.KubeApi``: ``--kubeconfig``, ``$KUBECONFIG``, then the
   in-cluster service account), and install or upgrade crossfn's Crossplane
   CRDs unless ``--skip-crds`` (their kinds must be served before anything
   watches them);
2. with ``--package-runtime=Deployment``, **initialize function packages**
   as Crossplane's ``core init`` does (``packages.initialize``: the default
   DeploymentRuntimeConfig, the CA and the client certificate), then **load
   the functions' client certificates** (fatal when missing and not
   ``--insecure-functions``, as Crossplane's core);
3. **shared pieces, built once**: the informer factory (one cache per kind,
   shared by every controller, started here so a standby replica is warm),
   the event recorder, the engine's sources (the schema cache dropped
   whenever a CRD changes), the function runner stack (``_functions``: its
   gRPC channels live as long as the manager) and the metrics registry;
4. **probes and metrics**: ``/healthz``, ``/readyz`` (every informer synced, no watch down;
   the body says whether this replica leads) and ``/metrics``;
5. **controllers** (:meth:`Manager.start_controllers`), at once, or with
   ``--leader-election`` only while this replica holds the Lease, every write
   of theirs (events included) fenced by it (``_leader``): XRDs (which
   start and stop ``composite/<xrd>`` and ``claim/<xrd>`` through
   ``definition.XrControllers``, so XRDs come and go without a restart),
   Compositions (revisions), CompositionRevisions (``ValidPipeline``),
   Functions (revisions of every route), package runtimes (Deployments,
   Services, TLS Secrets), with ``--manage-rbac`` per-XRD ClusterRoles, and
   with ``--enable-operations`` Operations, CronOperations and WatchOperations
   (``ops``; a WatchOperation starts its own ``watched/<name>`` controller).
   Each reconciler registers its own informer handlers (``watch(enqueue)``).

:meth:`Manager.stop` undoes it in reverse: controllers stop taking work and
finish the reconciles in flight (then the Lease is released), then informers,
gRPC channels, the client and the servers are closed. :func:`run` is what
``crossfn controller run`` calls: start, wait for SIGTERM or SIGINT (or the
loss of the Lease, which ends in :class:`LeadershipLost`), stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import logging
import signal
from collections.abc import Callable
from typing import Any

from crossfn import engine, errors
from crossfn.controller import (
    _settings,
    claim,
    composite,
    definition,
    ops,
    packages,
    protection,
    rbac,
    revisions,
)
from crossfn.controller.crds import _crds
from crossfn.controller.kube import _api, _kube
from crossfn.controller.manager import _leader, _observability
from crossfn.controller.runtime import _controller, _events, _informer, _metrics

__all__ = ["LeadershipLost", "Manager", "install_crds", "run"]

_log = logging.getLogger("crossfn.controller.manager")

PKG_API_VERSION = "pkg.crossplane.io/v1"
CONNECTION_GC_SECONDS = 600.0
"""How often gRPC channels of Functions that no longer exist are closed (Crossplane: 10 minutes)."""
CACHE_GC_SECONDS = 60.0
"""How often expired cached function responses are deleted (Crossplane: every minute)."""


async def install_crds(kubeconfig: str | None, context: str | None = None) -> list[str]:
    """Install or upgrade the CRDs; one line per CRD in kubectl's words (created, configured, unchanged,
    kept). Raises :class:`~crossfn.controller.crds._crds.Refused` (changing nothing) for a CRD that is
    not crossfn's and serves less than crossfn's."""
    return await initialize(
        _settings.Settings(
            cluster=_settings.ClusterSettings(kubeconfig=kubeconfig, context=context),
            webhooks=_settings.WebhookSettings(enabled=False),
        )
    )


async def initialize(settings: _settings.Settings) -> list[str]:
    """``crossfn controller init``: the CRDs, then (webhooks on) the usage webhook's serving certificate and
    its registration, as Crossplane's ``core init``; one line per object in kubectl's words."""
    s = settings
    api = _kube.KubeApi.from_kubeconfig(s.cluster.kubeconfig, context=s.cluster.context)
    try:
        lines = [d.line() for d in await _crds.install(api)]
        if s.webhooks.serving:
            serving = await protection.serving_certificate(api, s.webhooks, s.functions.namespace)
            lines.append(await protection.register_webhook(api, s.webhooks, s.functions.namespace, serving))
        return lines
    finally:
        await api.close()


class Manager:
    """The running controller; see the module docstring for what :meth:`start` builds, in order."""

    def __init__(self, settings: _settings.Settings, *, api: _api.Api | None = None) -> None:
        """``api`` replaces the client built from ``settings.cluster`` (tests); the manager closes only its own."""
        self.settings = settings
        self._given_api = api
        self._api: _api.Api | None = api
        self._writer: _api.Api | None = None
        """The client the controllers write with: ``_api``, fenced by the Lease with leader election."""
        self._informers: _informer.InformerFactory | None = None
        self._parts: _Parts | None = None
        self._controllers: list[_controller.Controller] = []
        self._xr: definition.XrControllers | None = None
        self._watch_operations: ops.WatchOperationReconciler | None = None
        self._transport: packages.FunctionTransport | None = None
        self._servers: list[_observability.ProbeServer] = []
        self._webhook: protection.WebhookServer | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._registry: Any = None
        self._elector: _leader.LeaderElector | None = None
        self._leading: asyncio.Task[None] | None = None
        self._stopping = False
        self._started = False

    @property
    def api(self) -> _api.Api:
        assert self._api is not None, "the manager has not started"
        return self._api

    @property
    def ready(self) -> bool:
        """Whether every informer has loaded its first list and no watch is down (``/readyz``).

        Crossplane's ``/readyz`` has only controller-runtime's ``ping`` check, so it
        stays ready while the API server is unreachable. crossfn's is stricter: a
        replica whose caches cannot follow the API server is reported, and
        ``kubectl get pods`` shows it, without restarting it (only ``/healthz``,
        which stays ``ok``, drives the liveness probe).
        """
        return self._informers is not None and not self.not_ready()

    def not_ready(self) -> list[str]:
        """Why ``/readyz`` fails, one line each: kinds not listed yet, watches down (with their error)."""
        informers = self._informers
        if informers is None:
            return ["not started"]
        return [f"not synced: {kind}" for kind in self.unsynced()] + [
            f"watch down: {line}" for line in informers.problems()
        ]

    @property
    def leading(self) -> bool | None:
        """Whether this replica holds the Lease; ``None`` without leader election."""
        return None if self._elector is None else self._elector.leading

    @property
    def reconciling(self) -> bool:
        """Whether this replica's controllers run (always, without leader election, once started)."""
        return bool(self._controllers)

    def unsynced(self) -> list[str]:
        """The kinds (``apiVersion/kind``) whose informer has not loaded its first list yet.

        Only standing informers count: a watch an XR's requirement started (``acquire``) never
        keeps ``/readyz`` down (upstream controllers-1.6's watches come and go with the XRs).
        """
        informers = self._informers
        if informers is None:
            return []
        out = []
        for av, kind in informers.standing():
            found = informers.running(av, kind)
            if found is not None and not found.synced:
                out.append(f"{av}/{kind}")
        return out

    @property
    def health_port(self) -> int:
        return self._servers[-1].port if self.settings.observability.health_address else 0

    @property
    def metrics_port(self) -> int:
        return self._servers[0].port if self.settings.observability.metrics_address else 0

    async def start(self) -> None:
        """Connect, install CRDs, build the shared pieces and the servers; then reconcile, or stand by
        for the Lease with ``--leader-election`` (informers and probes run on every replica).

        A start that fails (or is cancelled) releases what it opened, as :meth:`stop` does, and
        re-raises: the API connections, informers, tasks and bound ports of a manager that never
        started are not left to the caller.
        """
        try:
            await self._start()
        except BaseException:
            try:
                await self.stop()
            except Exception:  # the start's error is the one to report; this one is only logged
                _log.exception("cannot release what a failed start opened")
            raise

    async def _start(self) -> None:
        s = self.settings
        self._stopping = False
        if self._api is None:
            self._api = _kube.KubeApi.from_kubeconfig(s.cluster.kubeconfig, context=s.cluster.context)
        api = self._api
        if not s.cluster.skip_crds:
            decisions = await _crds.install(api)
            done = [d.name for d in decisions if d.action in ("create", "upgrade")]
            kept = [d.name for d in decisions if d.action == "keep"]
            _log.info(
                "installed or upgraded %d CRDs, %d already served", len(done), len(decisions) - len(done)
            )
            for name in kept:
                _log.info("kept CustomResourceDefinition %s: it serves all of crossfn's and more", name)
        if s.packages.runtime == "Deployment":
            await self._initialize_packages(api)
        tls = await packages.load_tls(api, s.functions)
        serving = (
            await protection.serving_certificate(api, s.webhooks, s.functions.namespace)
            if s.webhooks.serving
            else None
        )
        if s.leader_election.enabled:
            self._elector = self._new_elector(api)
            # Every write of the controllers passes the Lease's fence; the elector's own do not.
            self._writer = api.fenced(self._elector) if isinstance(api, _kube.KubeApi) else api
        self._parts = self._build(api, tls)
        await self._start_servers()
        if serving is not None:
            await self._start_webhook(api, serving)
        if s.leader_election.enabled:
            self._start_election()
        else:
            self.start_controllers()
        self._started = True
        _log.info("controller started")

    async def _initialize_packages(self, api: _api.Api) -> None:
        """What Crossplane's ``core init`` does for function packages: the default runtime config, the CA
        and the client certificate (fatal when it cannot be done: nothing could call a package)."""
        s = self.settings
        try:
            for attempt in range(3):  # replicas starting together race to create the same Secrets
                try:
                    made = await packages.initialize(
                        api, s.functions.namespace, service_account=s.packages.service_account,
                        client_secret=s.functions.tls_client_secret_name,
                    )  # fmt: skip
                    break
                except _api.Conflict:
                    if attempt == 2:
                        raise
        except _api.ApiError as exc:
            raise errors.InputError(
                f"cannot initialize function packages in namespace {errors.quote(s.functions.namespace)}: {exc} "
                "(create the namespace, pass --namespace, or --package-runtime=External)"
            ) from exc
        for what in made:
            _log.info("created %s for function packages", what)

    def _build(self, api: _api.Api, tls: Any) -> _Parts:
        """The pieces every controller shares, and the informers they read (warm on a standby too)."""
        import prometheus_client  # noqa: PLC0415 -- the registry only the running controller needs

        s = self.settings
        self._registry = prometheus_client.CollectorRegistry()
        fn_metrics = engine.PrometheusMetrics(self._registry)
        metrics = _observability.PrometheusControllerMetrics(self._registry)
        informers = self._informers = _informer.InformerFactory(api)
        self._registry.register(
            _observability.InformerCollector(
                informers, leading=lambda: self.leading, lease=_leader.LEASE_NAME
            )
        )
        recorder = _events.EventRecorder(self._writer or api)
        schemas = composite.ApiSchemas(api)
        schemas.watch_crds(informers)
        sources = composite.api_sources(api, informers, schemas)
        functions_cache = informers.informer(PKG_API_VERSION, "Function")
        revisions_cache = informers.informer(PKG_API_VERSION, "FunctionRevision")
        for kind in _WARM:
            informers.informer(*kind)
        deployments = None
        if s.packages.runtime == "Deployment":
            informers.informer(packages.RUNTIME_CONFIG_API_VERSION, "DeploymentRuntimeConfig")
            deployments = _informer.Informer(api, "apps/v1", "Deployment", namespace=s.functions.namespace)
            deployments.start()
        if s.cluster.manage_rbac:
            informers.informer(*_XRD)
        usages = (
            protection.Finder({kind: informers.informer(*kind) for kind in protection.KINDS})
            if s.webhooks.serving
            else None
        )
        if s.features.operations:
            for ops_kind in _OPS:
                informers.informer(ops.API_VERSION, ops_kind)
        self._transport = packages.FunctionTransport(
            functions_cache, revisions_cache, tls=tls, timeout=s.functions.timeout, metrics=fn_metrics,
            filesystem_root=s.functions.filesystem_root,
            max_calls=s.functions.max_concurrent_calls,
        )  # fmt: skip
        f = s.functions
        cache = engine.DiskStore(f.cache_dir) if f.response_cache else None
        runner = packages.build_runner(
            self._transport, sources, metrics=fn_metrics, cache=cache,
            cache_max_ttl=datetime.timedelta(seconds=f.cache_max_ttl),
        )  # fmt: skip
        self._tasks.append(
            asyncio.create_task(self._collect_connections(functions_cache), name="function-gc")
        )
        if isinstance(runner, engine.CachingRunner):
            self._tasks.append(asyncio.create_task(self._collect_cache(runner), name="function-cache-gc"))
        return _Parts(
            informers,
            recorder,
            sources,
            runner,
            functions_cache,
            revisions_cache,
            deployments,
            metrics,
            usages,
        )

    def start_controllers(self) -> None:
        """Start every controller (at start, or when this replica becomes the leader)."""
        assert self._parts is not None and self._api is not None, "the manager has not started"
        if self._controllers:
            return
        s, p, api = self.settings, self._parts, self._writer or self._api
        informers, recorder = p.informers, p.recorder

        def make(xrd: dict[str, Any]) -> composite.CompositeReconciler:
            return composite.CompositeReconciler(
                api,
                informers,
                recorder,
                p.runner,
                p.sources,
                xrd=xrd,
                settings=_composite_settings(s.reconcile),
                metrics=p.metrics,
            )

        def make_claim(xrd: dict[str, Any]) -> claim.ClaimReconciler:
            return claim.ClaimReconciler(api, informers, recorder, xrd=xrd)

        workers, rate = s.reconcile.max_concurrent_reconciles, s.reconcile.max_reconciles_per_second
        self._xr = definition.XrControllers(
            make, informers, workers=workers, rate=rate, metrics=p.metrics, make_claim=make_claim
        )
        for name, reconciler in self._reconcilers(api, p):
            controller = _metrics.new_controller(
                name, reconciler.reconcile, workers=workers, rate=rate, metrics=p.metrics
            )
            reconciler.watch(controller.enqueue)
            controller.start()
            p.metrics.controller_started(name)
            self._controllers.append(controller)

    def _reconcilers(self, api: _api.Api, p: _Parts) -> list[tuple[str, definition.Watching]]:
        """The controllers started once, by name (Crossplane's names), each with its reconciler and a
        recorder whose events name that controller as their source, as Crossplane's do."""
        s = self.settings
        assert self._xr is not None
        xrds_name = "defined/compositeresourcedefinition.apiextensions.crossplane.io"
        compositions_name = "revisions/composition.apiextensions.crossplane.io"
        revisions_name = "revision/compositionrevision.apiextensions.crossplane.io"
        packages_name = "packages/function.pkg.crossplane.io"
        runtimes_name = "package-runtime/functionrevision.pkg.crossplane.io"
        rbac_name = "rbac/compositeresourcedefinition.apiextensions.crossplane.io"

        def rec(name: str) -> _events.Recorder:
            return _events.for_controller(p.recorder, name)

        functions: list[definition.Watching] = [
            packages.FunctionRevisionKeeper(api, p.functions, p.revisions, rec(packages_name))
        ]
        out: list[tuple[str, definition.Watching]] = [
            (xrds_name, definition.XrdReconciler(api, p.informers, rec(xrds_name), self._xr)),
            (compositions_name, revisions.CompositionReconciler(api, p.informers, rec(compositions_name))),
            (revisions_name, revisions.RevisionReconciler(api, p.informers, rec(revisions_name))),
        ]
        if s.packages.runtime == "Deployment":
            functions.append(
                packages.FunctionPackageReconciler(api, p.functions, p.revisions, rec(packages_name))
            )
            runtime = packages.FunctionRuntimeReconciler(
                api, p.revisions, p.functions, rec(runtimes_name), namespace=s.functions.namespace,
                service_account=s.packages.service_account,
                configs=p.informers.informer(packages.RUNTIME_CONFIG_API_VERSION, "DeploymentRuntimeConfig"),
                deployments=p.deployments,
            )  # fmt: skip
            out.append((runtimes_name, runtime))
        out.append((packages_name, definition.Together(functions)))
        if s.cluster.manage_rbac:
            out.append((rbac_name, rbac.RbacReconciler(api, p.informers.informer(*_XRD), rec(rbac_name))))
        if p.usages is not None:
            for kind in protection.KINDS:
                name = protection.controller_name(kind)
                usage = protection.UsageReconciler(
                    api, p.informers.informer(*kind), rec(name), p.usages, type_=kind,
                    poll_interval=s.reconcile.poll_interval,
                )  # fmt: skip
                out.append((name, usage))
        if s.features.operations:
            out.extend(self._operations(api, p, rec))
        return out

    def _operations(
        self, api: _api.Api, p: _Parts, rec: Callable[[str], _events.Recorder]
    ) -> list[tuple[str, definition.Watching]]:
        """The three ops controllers (``--enable-operations``), with Crossplane's names."""
        s = self.settings
        operations = p.informers.informer(ops.API_VERSION, "Operation")
        crons = p.informers.informer(ops.API_VERSION, "CronOperation")
        self._watch_operations = ops.WatchOperationReconciler(
            api, p.informers, rec(ops.WATCH_CONTROLLER_NAME), workers=s.reconcile.max_concurrent_reconciles,
            rate=s.reconcile.max_reconciles_per_second, metrics=p.metrics,
        )  # fmt: skip
        operation = ops.OperationReconciler(
            api,
            operations,
            p.revisions,
            rec(ops.OPERATION_CONTROLLER_NAME),
            runner=p.runner,
            sources=p.sources,
        )
        cron = ops.CronOperationReconciler(api, crons, operations, rec(ops.CRON_CONTROLLER_NAME))
        return [
            (ops.OPERATION_CONTROLLER_NAME, operation),
            (ops.CRON_CONTROLLER_NAME, cron),
            (ops.WATCH_CONTROLLER_NAME, self._watch_operations),
        ]

    async def stop_controllers(self, grace: float = definition.STOP_GRACE_SECONDS) -> None:
        """Stop taking work and finish the reconciles in flight (``grace`` seconds at most)."""
        controllers, self._controllers = self._controllers, []
        await asyncio.gather(*(c.stop(grace) for c in controllers))
        if self._parts is not None:
            for c in controllers:
                self._parts.metrics.controller_stopped(c.name)
        if self._xr is not None:
            await self._xr.stop_all()
        if self._watch_operations is not None:
            await self._watch_operations.stop_all()

    def _new_elector(self, api: _api.Api) -> _leader.LeaderElector:
        le = self.settings.leader_election
        return _leader.LeaderElector(
            api, namespace=_leader.lease_namespace(self.settings.functions.namespace),
            identity=_leader.default_identity(), lease_duration=le.lease_duration,
            renew_deadline=le.renew_deadline, retry_period=le.retry_period,
        )  # fmt: skip

    def _start_election(self) -> None:
        assert self._elector is not None
        _log.info("waiting to lead", extra={"identity": self._elector.identity})
        self._leading = asyncio.create_task(self._elector.run(self._lead), name="leader-election")

    async def _lead(self) -> None:
        """Reconcile while leading: until cancelled, then drain (at once when leadership was lost)."""
        self.start_controllers()
        try:
            await asyncio.Future()
        finally:
            # Stopping on SIGTERM drains before the Lease is released; a lost Lease may already be
            # another replica's, so its reconciles are cancelled at once (controller-runtime exits).
            await self.stop_controllers(definition.STOP_GRACE_SECONDS if self._stopping else 0.0)

    async def wait_lost(self) -> None:
        """Return when leadership ended without :meth:`stop` (never, without leader election)."""
        if self._leading is None:
            await asyncio.Future()
            return
        await asyncio.wait({self._leading})

    async def _start_servers(self) -> None:
        o = self.settings.observability
        if o.metrics_address:
            self._servers.append(
                _observability.ProbeServer(
                    o.metrics_address, flag="--metrics-address", metrics=self._metrics_text, probes=False
                )
            )
        if o.health_address:
            self._servers.append(
                _observability.ProbeServer(o.health_address, ready=self.not_ready, detail=self._detail)
            )
        for server in self._servers:
            await server.start()

    async def _start_webhook(self, api: _api.Api, serving: protection.ServingCertificate) -> None:
        """Serve the usage webhook (every replica: the API server may call any), then register it."""
        assert self._parts is not None and self._parts.usages is not None
        finder = self._parts.usages

        async def handle(body: Any) -> dict[str, Any]:
            return await protection.review(api, finder, body)

        self._webhook = protection.WebhookServer(
            self.settings.webhooks.address, serving, handle, split_address=_observability.split_address
        )
        await self._webhook.start()
        s = self.settings
        _log.info(await protection.register_webhook(api, s.webhooks, s.functions.namespace, serving))

    @property
    def webhook_port(self) -> int:
        """The port the usage webhook listens on (useful after binding port 0); 0 when not served."""
        return self._webhook.port if self._webhook is not None else 0

    def _detail(self) -> str:
        """The ``/readyz`` line that says what this replica does."""
        leading = self.leading
        if leading is None:
            return "leader election: off"
        return "leader election: leading" if leading else "leader election: standing by"

    def _metrics_text(self) -> bytes:
        import prometheus_client  # noqa: PLC0415 -- loaded by start() already

        text: bytes = prometheus_client.generate_latest(self._registry)
        return text

    async def _collect_connections(self, functions_cache: _informer.Informer) -> None:
        """Close gRPC channels of Functions that are gone, every 10 minutes (Crossplane's connection GC)."""
        while True:
            await asyncio.sleep(CONNECTION_GC_SECONDS)
            if self._transport is not None:
                names = {str(f["metadata"]["name"]) for f in functions_cache.list()}
                await self._transport.forget_unused(names)

    @staticmethod
    async def _collect_cache(runner: engine.CachingRunner) -> None:
        """Delete expired cached responses every minute (Crossplane's ``GarbageCollectFiles``)."""
        while True:
            await asyncio.sleep(CACHE_GC_SECONDS)
            runner.collect_garbage()

    async def wait_ready(self) -> None:
        """Wait until every standing informer started so far has synced."""
        assert self._informers is not None, "the manager has not started"
        for av, kind in self._informers.standing():
            found = self._informers.running(av, kind)
            if found is not None:
                await found.wait_synced()

    async def stop(self) -> None:
        """Stop taking work, finish in-flight reconciles, then release everything, in reverse order.

        After a start that failed, it only releases what was built, and says nothing of a drain.
        """
        started = self._started
        if started:
            _log.info("stopping: finishing reconciles in flight")
        self._stopping = True
        if self._leading is not None:
            self._leading.cancel()  # drains, then releases the Lease
            await asyncio.gather(self._leading, return_exceptions=True)
            self._leading = None
        await self.stop_controllers()
        if self._parts is not None:  # events still queued at shutdown are written, within a bound
            await self._parts.recorder.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._informers is not None:
            await self._informers.stop()
        if self._parts is not None and self._parts.deployments is not None:
            await self._parts.deployments.stop()
        if self._transport is not None:
            await self._transport.aclose()
        for server in self._servers:
            await server.stop()
        self._servers = []
        if self._webhook is not None:
            await self._webhook.stop()
            self._webhook = None
        if self._given_api is None and isinstance(self._api, _kube.KubeApi):
            await self._api.close()
            self._api = None
        self._writer = None
        if started:
            _log.info("controller stopped")
        self._started = False


_XRD = ("apiextensions.crossplane.io/v1", "CompositeResourceDefinition")
_WARM = (
    _XRD,
    ("apiextensions.crossplane.io/v1", "Composition"),
    ("apiextensions.crossplane.io/v1", "CompositionRevision"),
)
"""Kinds the controllers read, listed and watched before leading so a new leader starts warm."""
_OPS = ("Operation", "CronOperation", "WatchOperation")
"""The ops kinds, warm too with ``--enable-operations``."""


@dataclasses.dataclass(frozen=True)
class _Parts:
    """What :meth:`Manager.start` builds once and the controllers share."""

    informers: _informer.InformerFactory
    recorder: _events.EventRecorder
    sources: engine.Sources
    runner: engine.FunctionRunner
    functions: _informer.Informer
    revisions: _informer.Informer
    deployments: _informer.Informer | None
    metrics: _observability.PrometheusControllerMetrics
    usages: protection.Finder | None
    """Which Usages protect an object, with webhooks and usages on (the webhook and the Usage controllers)."""


def _composite_settings(r: _settings.ReconcileSettings) -> composite.CompositeSettings:
    return composite.CompositeSettings(
        poll_interval=r.poll_interval, min_poll_interval=r.min_poll_interval, realtime=r.realtime,
        watch_gc_interval=r.watch_gc_interval,
        circuit=composite.CircuitSettings(
            burst=r.circuit_breaker_burst, refill_rate=r.circuit_breaker_refill_rate,
            cooldown=r.circuit_breaker_cooldown,
        ),
        adopt_existing=r.adopt_existing,
    )  # fmt: skip


class LeadershipLost(errors.CrossfnError):
    """This replica stopped leading without being asked to: it exits, as controller-runtime does."""


async def run(settings: _settings.Settings) -> None:
    """Run the controller until SIGTERM or SIGINT, then drain and return (``crossfn controller run``).

    With leader election, losing the Lease (not renewed within the renew
    deadline) stops the controllers at once and raises :class:`LeadershipLost`
    after shutdown, so the process exits non-zero and is restarted as a standby.
    """
    _observability.configure_logging(settings.observability.log_format, debug=settings.observability.debug)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    manager = Manager(settings)
    lost = False
    try:
        await manager.start()
        signalled = asyncio.ensure_future(stop.wait())
        ended = asyncio.ensure_future(manager.wait_lost())
        await asyncio.wait({signalled, ended}, return_when=asyncio.FIRST_COMPLETED)
        lost = not stop.is_set()
        for waiter in (signalled, ended):
            waiter.cancel()
    finally:
        with contextlib.suppress(NotImplementedError):
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
        await manager.stop()
    if lost:
        raise LeadershipLost("leader election lost: the Lease was not renewed within the renew deadline")
