"""The manager: connects, installs CRDs, starts every controller, serves probes, drains on SIGTERM.

This is where the controller is assembled, in one place and in this order:

1. **connect** (``_kube.KubeApi``: ``--kubeconfig``, ``$KUBECONFIG``, then the
   in-cluster service account), and install or upgrade crossfn's Crossplane
   CRDs unless ``--skip-crds`` (their kinds must be served before anything
   watches them);
2. **load the functions' client certificates** (fatal when missing and not
   ``--insecure-functions``, as Crossplane's core);
3. **shared pieces, built once**: the informer factory (one cache per kind,
   shared by every controller), the event recorder, the engine's sources (the
   schema cache dropped whenever a CRD changes), and the function runner
   stack (``_functions``: its gRPC channels live as long as the manager);
4. **controllers**: XRDs (which start, update and stop one XR controller per
   XRD through :class:`XrControllers`, so XRDs come and go without a
   restart), Compositions (revisions), CompositionRevisions (``ValidPipeline``)
   and Functions (revisions of built-in and annotated Functions). Each
   reconciler registers its own informer handlers (``watch(enqueue)``);
5. **probes and metrics**: ``/healthz``, ``/readyz`` (every informer synced)
   and ``/metrics`` (function calls, reconciles, queue depth).

:meth:`Manager.stop` undoes it in reverse: controllers stop taking work and
finish the reconciles in flight, then XR controllers, informers, gRPC
channels, the client and the servers are closed. :func:`run` is what
``crossfn controller run`` calls: start, wait for SIGTERM or SIGINT, stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
from collections.abc import Callable
from typing import Any, Protocol

from crossfn import engine
from crossfn.controller import (
    _api,
    _composite,
    _controller,
    _crds,
    _events,
    _functionrevisions,
    _functions,
    _informer,
    _kube,
    _observability,
    _revisions,
    _settings,
    _sources,
    _xrd,
)

__all__ = ["Manager", "XrControllers", "install_crds", "run"]

_log = logging.getLogger("crossfn.controller.manager")

PKG_API_VERSION = "pkg.crossplane.io/v1"
CONNECTION_GC_SECONDS = 600.0
"""How often gRPC channels of Functions that no longer exist are closed (Crossplane: 10 minutes)."""
STOP_GRACE_SECONDS = 30.0
"""How long in-flight reconciles may take to finish at shutdown before they are cancelled."""


async def install_crds(kubeconfig: str | None, context: str | None = None) -> list[str]:
    """Install or upgrade the CRDs; one line per CRD in kubectl's words (created, configured, unchanged)."""
    api = _kube.KubeApi.from_kubeconfig(kubeconfig, context=context)
    try:
        before = {}
        for crd in _crds.manifests():
            name = crd["metadata"]["name"]
            found = await api.get(_sources.CRD_API_VERSION, _sources.CRD_KIND, name)
            before[name] = (found or {}).get("metadata", {}).get("resourceVersion")
        lines = []
        for name in await _crds.install(api):
            after = await api.get(_sources.CRD_API_VERSION, _sources.CRD_KIND, name)
            version = (after or {}).get("metadata", {}).get("resourceVersion")
            did = (
                "created"
                if before.get(name) is None
                else "unchanged"
                if version == before[name]
                else "configured"
            )
            lines.append(f"customresourcedefinition.apiextensions.k8s.io/{name} {did}")
        return lines
    finally:
        await api.close()


class XrControllers:
    """One XR controller per XRD: started, updated, stopped, while the manager runs.

    The XRD controller calls :meth:`start` on every reconcile of an
    established XRD, so it is cheap when nothing changed; a changed XRD that
    still defines the same XR kind is handed to the running reconciler
    (``set_xrd``: a new default Composition needs no restart), a changed kind
    restarts it. :meth:`stop` runs when the XRD goes away or the XRD
    controller restarts it; it drains the XR controller's in-flight
    reconciles and stops the XR kind's informer (its CRD may be going too).
    """

    def __init__(
        self,
        make: Callable[[dict[str, Any]], _composite.CompositeReconciler],
        informers: _informer.InformerFactory,
        *,
        workers: int,
        rate: float | None,
        metrics: _controller.ControllerMetrics | None = None,
    ) -> None:
        """``make(xrd)`` returns a new (not yet started) reconciler for the XRD's XRs."""
        self._make = make
        self._informers = informers
        self._workers = workers
        self._rate = rate
        self._metrics = metrics
        self._running: dict[str, _Running] = {}

    def names(self) -> list[str]:
        """The XRDs whose XR controller runs."""
        return sorted(self._running)

    async def start(self, xrd: dict[str, Any]) -> None:
        name = str(xrd["metadata"]["name"])
        running = self._running.get(name)
        if running is not None and _composite.xr_type(xrd) == running.xr_type:
            running.reconciler.set_xrd(xrd)
            return
        if running is not None:
            await self.stop(name)
        reconciler = self._make(xrd)
        controller = _controller.Controller(
            f"composite/{name}",
            reconciler.reconcile,
            workers=self._workers,
            rate=self._rate,
            metrics=self._metrics,
        )
        reconciler.set_enqueue(controller.enqueue)
        xr_type = _composite.xr_type(xrd)

        def on_xr(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            controller.enqueue(_controller.key_of(obj))

        reconciler.start()
        self._informers.informer(*xr_type).add_handler(on_xr)
        controller.start()
        self._running[name] = _Running(xr_type, reconciler, controller, on_xr)
        _log.info("started composite resource controller", extra={"controller": controller.name})

    async def stop(self, xrd_name: str) -> None:
        running = self._running.pop(xrd_name, None)
        if running is None:
            return
        if running.xr_type in set(self._informers.kinds()):
            self._informers.informer(*running.xr_type).remove_handler(running.on_xr)
        running.reconciler.stop()
        await running.controller.stop(STOP_GRACE_SECONDS)
        await self._informers.stop_informer(*running.xr_type)
        _log.info("stopped composite resource controller", extra={"controller": running.controller.name})

    async def stop_all(self) -> None:
        """Stop every XR controller (in parallel: each drains its own in-flight reconciles)."""
        await asyncio.gather(*(self.stop(name) for name in list(self._running)))


class _Reconciler(Protocol):
    """What the manager needs of a reconciler: the reconcile, and the watches that enqueue keys."""

    async def reconcile(self, key: str) -> _controller.Result: ...

    def watch(self, enqueue: Callable[[str], None]) -> None: ...


@dataclasses.dataclass
class _Running:
    xr_type: tuple[str, str]
    reconciler: _composite.CompositeReconciler
    controller: _controller.Controller
    on_xr: Callable[[str, dict[str, Any], dict[str, Any] | None], None]


class Manager:
    """The running controller; see the module docstring for what :meth:`start` builds, in order."""

    def __init__(self, settings: _settings.Settings, *, api: _api.Api | None = None) -> None:
        """``api`` replaces the client built from ``settings.cluster`` (tests); the manager closes only its own."""
        self.settings = settings
        self._given_api = api
        self._api: _api.Api | None = api
        self._informers: _informer.InformerFactory | None = None
        self._controllers: list[_controller.Controller] = []
        self._xr: XrControllers | None = None
        self._transport: _functions.FunctionTransport | None = None
        self._servers: list[_observability.ProbeServer] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._registry: Any = None

    @property
    def api(self) -> _api.Api:
        assert self._api is not None, "the manager has not started"
        return self._api

    @property
    def ready(self) -> bool:
        """Whether every informer has loaded its first list (``/readyz``)."""
        return self._informers is not None and not self.unsynced()

    def unsynced(self) -> list[str]:
        """The kinds (``apiVersion/kind``) whose informer has not loaded its first list yet."""
        informers = self._informers
        if informers is None:
            return []
        return [f"{av}/{kind}" for av, kind in informers.kinds() if not informers.informer(av, kind).synced]

    @property
    def health_port(self) -> int:
        return self._servers[-1].port if self.settings.observability.health_address else 0

    @property
    def metrics_port(self) -> int:
        return self._servers[0].port if self.settings.observability.metrics_address else 0

    async def start(self) -> None:
        """Connect, install CRDs, build the shared pieces, start every controller and the servers."""
        s = self.settings
        if self._api is None:
            self._api = _kube.KubeApi.from_kubeconfig(s.cluster.kubeconfig, context=s.cluster.context)
        api = self._api
        if not s.cluster.skip_crds:
            names = await _crds.install(api)
            _log.info("installed or upgraded %d CRDs", len(names))
        tls = await _functions.load_tls(api, s.functions)
        import prometheus_client  # noqa: PLC0415 -- the registry only the running controller needs

        self._registry = prometheus_client.CollectorRegistry()
        fn_metrics = engine.PrometheusMetrics(self._registry)
        ctl_metrics = _observability.PrometheusControllerMetrics(self._registry)
        informers = self._informers = _informer.InformerFactory(api)
        recorder = _events.EventRecorder(api)
        schemas = _sources.ApiSchemas(api)
        schemas.watch_crds(informers)
        sources = _sources.api_sources(api, informers, schemas)
        functions_cache = informers.informer(PKG_API_VERSION, "Function")
        revisions_cache = informers.informer(PKG_API_VERSION, "FunctionRevision")
        self._transport = _functions.FunctionTransport(
            functions_cache, revisions_cache, tls=tls, timeout=s.functions.timeout, metrics=fn_metrics
        )
        runner = _functions.build_runner(self._transport, sources, metrics=fn_metrics)

        def make(xrd: dict[str, Any]) -> _composite.CompositeReconciler:
            return _composite.CompositeReconciler(
                api, informers, recorder, runner, sources, xrd=xrd, settings=_composite_settings(s.reconcile)
            )

        workers, rate = s.reconcile.max_concurrent_reconciles, s.reconcile.max_reconciles_per_second
        self._xr = XrControllers(make, informers, workers=workers, rate=rate, metrics=ctl_metrics)
        reconcilers: list[tuple[str, _Reconciler]] = [
            ("defined/compositeresourcedefinition.apiextensions.crossplane.io",
             _xrd.XrdReconciler(api, informers, recorder, self._xr)),
            ("revisions/composition.apiextensions.crossplane.io",
             _revisions.CompositionReconciler(api, informers, recorder)),
            ("pipeline/compositionrevision.apiextensions.crossplane.io",
             _revisions.RevisionReconciler(api, informers, recorder)),
            ("packages/function.pkg.crossplane.io",
             _functionrevisions.FunctionRevisionKeeper(api, functions_cache, revisions_cache, recorder)),
        ]  # fmt: skip
        for name, reconciler in reconcilers:
            self._start_controller(name, reconciler, metrics=ctl_metrics)
        self._tasks.append(
            asyncio.create_task(self._collect_connections(functions_cache), name="function-gc")
        )
        await self._start_servers()
        _log.info("controller started")

    def _start_controller(
        self, name: str, reconciler: _Reconciler, *, metrics: _controller.ControllerMetrics
    ) -> None:
        """A controller for ``reconciler``, fed by the informer handlers it registers itself."""
        r = self.settings.reconcile
        controller = _controller.Controller(
            name,
            reconciler.reconcile,
            workers=r.max_concurrent_reconciles,
            rate=r.max_reconciles_per_second,
            metrics=metrics,
        )
        reconciler.watch(controller.enqueue)
        controller.start()
        self._controllers.append(controller)

    async def _start_servers(self) -> None:
        o = self.settings.observability
        if o.metrics_address:
            self._servers.append(
                _observability.ProbeServer(o.metrics_address, metrics=self._metrics_text, probes=False)
            )
        if o.health_address:
            self._servers.append(_observability.ProbeServer(o.health_address, ready=lambda: self.ready))
        for server in self._servers:
            await server.start()

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

    async def wait_ready(self) -> None:
        """Wait until every informer started so far has synced."""
        assert self._informers is not None, "the manager has not started"
        for av, kind in self._informers.kinds():
            await self._informers.informer(av, kind).wait_synced()

    async def stop(self) -> None:
        """Stop taking work, finish in-flight reconciles, then release everything, in reverse order."""
        _log.info("stopping: finishing reconciles in flight")
        await asyncio.gather(*(c.stop(STOP_GRACE_SECONDS) for c in self._controllers))
        self._controllers = []
        if self._xr is not None:
            await self._xr.stop_all()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._informers is not None:
            await self._informers.stop()
        if self._transport is not None:
            await self._transport.aclose()
        for server in self._servers:
            await server.stop()
        self._servers = []
        if self._given_api is None and isinstance(self._api, _kube.KubeApi):
            await self._api.close()
            self._api = None
        _log.info("controller stopped")


def _composite_settings(r: _settings.ReconcileSettings) -> _composite.CompositeSettings:
    return _composite.CompositeSettings(
        poll_interval=r.poll_interval, min_poll_interval=r.min_poll_interval, realtime=r.realtime
    )


async def run(settings: _settings.Settings) -> None:
    """Run the controller until SIGTERM or SIGINT, then drain and return (``crossfn controller run``)."""
    _observability.configure_logging(settings.observability.log_format, debug=settings.observability.debug)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    manager = Manager(settings)
    try:
        await manager.start()
        await stop.wait()
    finally:
        with contextlib.suppress(NotImplementedError):
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
        await manager.stop()
