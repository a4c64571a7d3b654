"""The controllers the XRD controller starts at run time: ``composite/<xrd>`` and ``claim/<xrd>``.

Crossplane's *defined* controller starts one XR controller per established
XRD, and its *offered* controller one claim controller per XRD that offers a
claim (upstream controllers-1.6, controllers-2.1). crossfn's XRD controller calls :meth:`XrControllers.start`
once both CRDs are established, so this class starts both, and keeps them in
step with the XRD:

* the same XR (or claim) kind: the running reconciler takes the new XRD
  (``set_xrd``: a new default or enforced Composition needs no restart);
* another kind: that controller is drained and started again (Crossplane's
  restart rule);
* a claim offered or withdrawn: the claim controller starts or stops alone.

Each reconciler registers its own informer handlers: a composite reconciler
the XR kind (through its watch circuit breaker) and CompositionRevisions, a
claim reconciler the claim kind and the XR kind (to find the claim an XR names). Stopping drains the in-flight
reconciles, removes the handlers and stops the informers of kinds nobody else
needs (their CRD may be going too). Each start and stop is counted in
Crossplane's ``engine_*`` metrics.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from crossfn.controller.runtime import _controller, _informer, _metrics
from crossfn.schemas import xrd as xrd_schemas

__all__ = [
    "STOP_GRACE_SECONDS",
    "Reconciler",
    "Together",
    "Watching",
    "XrControllers",
]

_log = logging.getLogger("crossfn.controller.manager")

STOP_GRACE_SECONDS = 30.0
"""How long in-flight reconciles may take to finish at shutdown before they are cancelled."""


class Reconciler(Protocol):
    """A reconciler of one XRD's objects (``CompositeReconciler``, ``ClaimReconciler``)."""

    def set_enqueue(self, enqueue: Callable[[str], None]) -> None: ...

    def set_xrd(self, xrd: Mapping[str, Any]) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    async def reconcile(self, key: str) -> _controller.Result: ...


class Watching(Protocol):
    """A reconciler that registers its own informer handlers (the controllers the manager starts once)."""

    async def reconcile(self, key: str) -> _controller.Result: ...

    def watch(self, enqueue: Callable[[str], None]) -> None: ...


@dataclasses.dataclass
class _Running:
    """One running controller of an XRD: which kind it serves, its reconciler and its loop."""

    type_: tuple[str, str]
    reconciler: Reconciler
    controller: _controller.Controller


class XrControllers:
    """One XR controller, and one claim controller where offered, per XRD; see the module docstring."""

    def __init__(
        self,
        make: Callable[[dict[str, Any]], Reconciler],
        informers: _informer.InformerFactory | Any,
        *,
        workers: int,
        rate: float | None,
        metrics: _metrics.Metrics | None = None,
        make_claim: Callable[[dict[str, Any]], Reconciler] | None = None,
    ) -> None:
        """``make(xrd)`` and ``make_claim(xrd)`` return new, not yet started, reconcilers; without
        ``make_claim`` no claim controller is started."""
        self._make = make
        self._make_claim = make_claim
        self._informers = informers
        self._workers = workers
        self._rate = rate
        self._metrics: _metrics.Metrics = metrics or _metrics.NoMetrics()
        self._composite: dict[str, _Running] = {}
        self._claims: dict[str, _Running] = {}

    def names(self) -> list[str]:
        """The XRDs whose XR controller runs."""
        return sorted(self._composite)

    def claim_names(self) -> list[str]:
        """The XRDs whose claim controller runs."""
        return sorted(self._claims)

    async def start(self, xrd: dict[str, Any]) -> None:
        """Start or update the XRD's controllers (called on every reconcile of an established XRD)."""
        name = str(xrd["metadata"]["name"])
        await self._start_composite(name, xrd)
        offered = self._make_claim is not None and xrd_schemas.offers_claim(xrd)
        running = self._claims.get(name)
        if running is not None and (not offered or xrd_schemas.claim_type(xrd) != running.type_):
            await self._stop_claim(name)
            running = None
        if running is not None:
            running.reconciler.set_xrd(xrd)
        elif offered:
            self._start_claim(name, xrd)

    async def _start_composite(self, name: str, xrd: dict[str, Any]) -> None:
        running = self._composite.get(name)
        xr_type = xrd_schemas.composite_type(xrd)
        if running is not None and xr_type == running.type_:
            running.reconciler.set_xrd(xrd)
            return
        if running is not None:
            await self._stop_composite(name)
        reconciler = self._make(xrd)
        controller = self._new(f"composite/{name}", reconciler)
        reconciler.start()  # watches the XR kind itself, through its circuit breaker
        self._metrics.watch_started(controller.name, "CompositeResource")
        controller.start()
        self._composite[name] = _Running(xr_type, reconciler, controller)
        self._started(controller)

    def _start_claim(self, name: str, xrd: dict[str, Any]) -> None:
        assert self._make_claim is not None
        reconciler = self._make_claim(xrd)
        controller = self._new(f"claim/{name}", reconciler)
        reconciler.start()  # watches the claim kind and the XR kind itself
        self._metrics.watch_started(controller.name, "Claim")
        self._metrics.watch_started(controller.name, "CompositeResource")
        controller.start()
        self._claims[name] = _Running(xrd_schemas.claim_type(xrd), reconciler, controller)
        self._started(controller)

    def _new(self, name: str, reconciler: Reconciler) -> _controller.Controller:
        controller = _metrics.new_controller(
            name, reconciler.reconcile, workers=self._workers, rate=self._rate, metrics=self._metrics
        )
        reconciler.set_enqueue(controller.enqueue)
        return controller

    def _started(self, controller: _controller.Controller) -> None:
        self._metrics.controller_started(controller.name)
        _log.info("started controller", extra={"controller": controller.name})

    async def stop(self, xrd_name: str) -> None:
        """Stop the XRD's claim controller, then its XR controller; a no-op when none runs."""
        await self._stop_claim(xrd_name)
        await self._stop_composite(xrd_name)

    async def _stop_composite(self, name: str) -> None:
        running = self._composite.pop(name, None)
        if running is None:
            return
        running.reconciler.stop()
        await running.controller.stop(STOP_GRACE_SECONDS)
        self._metrics.watch_stopped(running.controller.name, "CompositeResource")
        await self._informers.stop_informer(*running.type_)
        self._stopped(running.controller)

    async def _stop_claim(self, name: str) -> None:
        running = self._claims.pop(name, None)
        if running is None:
            return
        running.reconciler.stop()
        await running.controller.stop(STOP_GRACE_SECONDS)
        self._metrics.watch_stopped(running.controller.name, "Claim")
        self._metrics.watch_stopped(running.controller.name, "CompositeResource")
        await self._informers.stop_informer(*running.type_)
        self._stopped(running.controller)

    def _stopped(self, controller: _controller.Controller) -> None:
        self._metrics.controller_stopped(controller.name)
        _log.info("stopped controller", extra={"controller": controller.name})

    async def stop_all(self) -> None:
        """Stop every controller (in parallel: each drains its own in-flight reconciles)."""
        await asyncio.gather(*(self.stop(name) for name in {*self._composite, *self._claims}))


class Together:
    """Reconcilers that share one controller (``packages/function``): each ignores the others' objects.

    Crossplane has one Function controller (``packages/function``); crossfn
    splits it by route (built-in and annotated Functions, packages), and both
    halves must see every key.
    """

    def __init__(self, reconcilers: list[Watching]) -> None:
        self._reconcilers = reconcilers

    def watch(self, enqueue: Callable[[str], None]) -> None:
        for r in self._reconcilers:
            r.watch(enqueue)

    async def reconcile(self, key: str) -> _controller.Result:
        """Every reconciler, in order; the soonest requeue wins; a failure is raised after the others ran."""
        after: list[float] = []
        failure: BaseException | None = None
        for r in self._reconcilers:
            try:
                result = await r.reconcile(key)
            except Exception as exc:
                failure = failure or exc
                continue
            if result.requeue_after is not None:
                after.append(result.requeue_after)
        if failure is not None:
            raise failure
        return _controller.Result(requeue_after=min(after) if after else None)
