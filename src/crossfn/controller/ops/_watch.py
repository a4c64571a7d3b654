"""The WatchOperation controller and the controllers it starts: an Operation for each change of a watched resource
(upstream ops-3).

:class:`WatchOperationReconciler` keeps a WatchOperation: the ``watchoperation.ops.crossplane.io``
finalizer (removed, with its watch, when it is deleted), ``Watching`` False ``WatchPaused`` while it
is paused, and otherwise, from its Operations (labelled ``ops.crossplane.io/watchoperation``),
``lastScheduleTime``, ``lastSuccessfulTime``, ``runningOperationRefs``, the history limits, and
``watchingResources`` (the watched kind in ``spec.watch.namespace`` with its labels, counted best
effort); then it starts the watched controller and marks ``Watching`` True ``WatchActive``.

The watched controller (``watched/<name>``, :class:`_WatchedReconciler`) has a handler on the
shared informer of the watched kind that enqueues every resource in the namespace with the labels
(its existing ones too, when it starts, as controller-runtime's initial list does). For each it
takes the resource from the cache, or a stand-in with a deletion time and the resource version
``ops.crossplane.io/synthetic-deleted`` when it is gone, applies the ``concurrencyPolicy``, and
creates the Operation named for that version of the resource (:func:`_lifecycle.operation_name`)
unless it exists: the WatchOperation's template, the resource as every step's
``ops.crossplane.io/watched-resource`` requirement, its label, annotations and owner reference.

Crossplane keeps the filter a watch started with until the controller restarts; crossfn reads the
WatchOperation's current namespace and labels at every event.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import datetime
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.ops import _lifecycle, _parent
from crossfn.controller.runtime import _controller, _events, _informer, _metrics
from crossfn.engine import _clock
from crossfn.gocompat import time as gotime

__all__ = [
    "CONTROLLER_NAME",
    "FINALIZER",
    "WATCH_TYPE",
    "WatchOperationReconciler",
    "watched_controller_name",
]

CONTROLLER_NAME = "watchoperation/watchoperation.ops.crossplane.io"
"""Crossplane's name of the WatchOperation controller: also its events' source."""
FINALIZER = "watchoperation.ops.crossplane.io"
WATCH_TYPE = "WatchOperation"
"""The type of the watched controllers' watches, as Crossplane's engine metrics label them."""
STOP_GRACE_SECONDS = 5.0
"""How long a stopping watched controller lets its reconciles in flight finish."""


def watched_controller_name(name: str) -> str:
    """The name of the controller that watches resources for WatchOperation ``name``."""
    return f"watched/{name}"


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _watch(wo: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = wo.get("spec")
    watch = spec.get("watch") if isinstance(spec, Mapping) else None
    return watch if isinstance(watch, Mapping) else {}


def _kind(wo: Mapping[str, Any]) -> tuple[str, str]:
    watch = _watch(wo)
    return str(watch.get("apiVersion") or ""), str(watch.get("kind") or "")


def _selects(wo: Mapping[str, Any], obj: Mapping[str, Any]) -> bool:
    """Whether the WatchOperation's namespace and labels select ``obj`` (a cluster-scoped one ignores the namespace)."""
    watch = _watch(wo)
    namespace = str(watch.get("namespace") or "")
    have_ns = str(_meta(obj).get("namespace") or "")
    if namespace and have_ns and have_ns != namespace:
        return False
    labels = watch.get("matchLabels") or {}
    have = _meta(obj).get("labels") or {}
    return all(have.get(k) == v for k, v in labels.items())


@dataclasses.dataclass
class _Running:
    """One WatchOperation's watched controller: its loop, the informer it watches and its handler there."""

    kind: tuple[str, str]
    controller: _controller.Controller
    cache: _informer.Cache
    handler: _informer.Handler


class _WatchedReconciler:
    """Creates an Operation for each change of a resource a WatchOperation watches."""

    def __init__(
        self,
        api: _api.Api,
        cache: _informer.Reader,
        operations: _informer.Reader,
        recorder: _events.Recorder,
        *,
        watch_operation: str,
        kind: tuple[str, str],
        clock: Callable[[], datetime.datetime],
    ) -> None:
        self._api = api
        self._cache = cache
        self._operations = operations
        self._recorder = recorder
        self._name = watch_operation
        self._kind = kind
        self._clock = clock

    def _watched(self, key: str) -> dict[str, Any]:
        """The resource as cached, or the stand-in for one that was deleted."""
        namespace, name = _controller.split_key(key)
        found = self._cache.get(name, namespace)
        if found is not None:
            return copy.deepcopy(found)
        meta: dict[str, Any] = {"name": name}
        if namespace:
            meta["namespace"] = namespace
        meta["deletionTimestamp"] = gotime.format_rfc3339(self._clock())
        meta["resourceVersion"] = _lifecycle.RESOURCE_VERSION_DELETED
        return {"apiVersion": self._kind[0], "kind": self._kind[1], "metadata": meta}

    async def reconcile(self, key: str) -> _controller.Result:
        watched = self._watched(key)
        wo = await self._api.get(_lifecycle.API_VERSION, "WatchOperation", self._name)
        if wo is None or _parent.paused(wo) or _meta(wo).get("deletionTimestamp"):
            return _controller.Result()
        ops = self._operations.list(labels={_lifecycle.LABEL_WATCH: self._name})
        running = _lifecycle.running(ops)
        policy = (wo.get("spec") or {}).get("concurrencyPolicy") or "Allow"
        try:
            if running and policy == "Forbid":
                return _controller.Result()
            if running and policy == "Replace":
                await _parent.delete_running(self._api, ops, running)
            name = _lifecycle.operation_name(wo, watched)
            if any(_meta(op).get("name") == name for op in ops):
                return _controller.Result()
            op = _lifecycle.watch_operation(wo, watched, name)
            try:
                await self._api.create(op)
            except _api.ApiError as exc:
                raise _parent.Failure(
                    "CreateOperation", f"cannot create Operation {errors.quote(name)}: {exc}"
                ) from exc
        except _parent.Failure as exc:
            await self._recorder.event(wo, "Warning", exc.reason, str(exc))
            raise
        return _controller.Result()


class WatchOperationReconciler:
    """Reconciles WatchOperations and runs their watched controllers (see the module docstring)."""

    def __init__(
        self,
        api: _api.Api,
        informers: _informer.Informers,
        recorder: _events.Recorder,
        *,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
        workers: int = 10,
        rate: float | None = None,
        metrics: _metrics.Metrics | None = None,
    ) -> None:
        """``workers``, ``rate`` and ``metrics`` are each watched controller's, as the manager gives every controller."""
        self._api = api
        self._informers = informers
        self._recorder = recorder
        self._clock = clock
        self._workers = workers
        self._rate = rate
        self._metrics: _metrics.Metrics = metrics or _metrics.NoMetrics()
        self._operations = informers.informer(_lifecycle.API_VERSION, "Operation")
        self._watches = informers.informer(_lifecycle.API_VERSION, "WatchOperation")
        self._running: dict[str, _Running] = {}

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Reconcile a WatchOperation on any change to it, and when one of its Operations changes."""
        self._watches.add_handler(lambda _type, obj, _old: enqueue(_controller.key_of(obj)))
        self._operations.add_handler(_parent.owner_handler("WatchOperation", enqueue))

    def running(self) -> list[str]:
        """The names of the watched controllers running now."""
        return sorted(self._running)

    async def reconcile(self, key: str) -> _controller.Result:
        _, name = _controller.split_key(key)
        wo = await self._api.get(_lifecycle.API_VERSION, "WatchOperation", name)
        if wo is None:
            await self._stop(name)
            return _controller.Result()
        now = self._clock()
        try:
            if _meta(wo).get("deletionTimestamp"):
                await self._stop(name)
                await self._finalizer(wo, add=False)
                return _controller.Result()
            await self._finalizer(wo, add=True)
            if _parent.paused(wo):
                _parent.mark(
                    wo,
                    now,
                    ("Watching", "False", "WatchPaused", ""),
                    ("Synced", "False", "ReconcilePaused", ""),
                )
                await _parent.write_status(self._api, wo)
                return _controller.Result()
            await self._observe(wo, name)
            await self._start(wo, name, now)
        except _parent.Failure as exc:
            await self._recorder.event(wo, "Warning", exc.reason, str(exc))
            _parent.mark(wo, now, ("Synced", "False", "ReconcileError", str(exc)))
            await _parent.write_status(self._api, wo, quietly=True)
            raise
        _parent.mark(
            wo, now, ("Watching", "True", "WatchActive", ""), ("Synced", "True", "ReconcileSuccess", "")
        )
        await _parent.write_status(self._api, wo)
        return _controller.Result()

    async def _finalizer(self, wo: dict[str, Any], *, add: bool) -> None:
        finalizers = list(_meta(wo).get("finalizers") or [])
        if (FINALIZER in finalizers) == add:
            return
        wo["metadata"]["finalizers"] = (
            [*finalizers, FINALIZER] if add else [f for f in finalizers if f != FINALIZER]
        )
        doing = "add" if add else "remove"
        try:
            updated = await self._api.update(wo)
        except _api.Conflict:
            raise
        except _api.ApiError as exc:
            reason = "EstablishWatched" if add else "TerminateWatched"
            raise _parent.Failure(reason, f"cannot {doing} watched resource finalizer: {exc}") from exc
        wo["metadata"] = updated.get("metadata", wo["metadata"])

    async def _observe(self, wo: dict[str, Any], name: str) -> None:
        """The status from the WatchOperation's Operations and what it watches; the history collected."""
        ops = self._operations.list(labels={_lifecycle.LABEL_WATCH: name})
        status = wo.setdefault("status", {})
        created = _lifecycle.latest_created(ops)
        if created is not None:
            status["lastScheduleTime"] = gotime.format_rfc3339(created)
        succeeded = _lifecycle.latest_succeeded(ops)
        if succeeded is not None:
            status["lastSuccessfulTime"] = gotime.format_rfc3339(succeeded)
        watch = _watch(wo)
        api_version, kind = _kind(wo)
        try:
            found, _ = await self._api.list(
                api_version,
                kind,
                str(watch.get("namespace") or "") or None,
                labels=watch.get("matchLabels") or None,
            )
        except _api.ApiError:
            pass  # best effort, as Crossplane's: the count stays as it was
        else:
            if found:
                status["watchingResources"] = len(found)
            else:
                status.pop("watchingResources", None)
        spec = wo.get("spec") or {}
        keep_ok = spec.get("successfulHistoryLimit", _lifecycle.DEFAULT_SUCCESSFUL_HISTORY)
        keep_failed = spec.get("failedHistoryLimit", _lifecycle.DEFAULT_FAILED_HISTORY)
        await _parent.delete_garbage(self._api, _lifecycle.garbage(ops, keep_ok, keep_failed))
        running = _lifecycle.running(ops)
        if running:
            status["runningOperationRefs"] = [{"name": n} for n in running]
        else:
            status.pop("runningOperationRefs", None)

    async def _start(self, wo: dict[str, Any], name: str, now: datetime.datetime) -> None:
        """Start the watched controller unless it runs (idempotent), ``Watching`` False when it cannot."""
        kind = _kind(wo)
        running = self._running.get(name)
        if running is not None and running.kind == kind:
            return
        await self._stop(name)
        try:
            await self._api.is_namespaced(*kind)
        except _api.ApiError as exc:
            message = f"cannot start watched resource controller watches: {exc}"
            _parent.mark(wo, now, ("Watching", "False", "WatchFailed", message))
            raise _parent.Failure("EstablishWatched", message) from exc
        controller_name = watched_controller_name(name)
        cache = self._informers.informer(*kind)
        reconciler = _WatchedReconciler(
            self._api, cache, self._operations, self._recorder,
            watch_operation=name, kind=kind, clock=self._clock,
        )  # fmt: skip
        controller = _metrics.new_controller(
            controller_name,
            reconciler.reconcile,
            workers=self._workers,
            rate=self._rate,
            metrics=self._metrics,
        )

        def on_watched(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            current = self._watches.get(name)
            if current is not None and _selects(current, obj):
                controller.enqueue(_controller.key_of(obj))

        controller.start()
        self._metrics.controller_started(controller_name)
        self._running[name] = _Running(kind, controller, cache, on_watched)
        cache.add_handler(on_watched)
        self._metrics.watch_started(controller_name, WATCH_TYPE)

    async def _stop(self, name: str) -> None:
        running = self._running.pop(name, None)
        if running is None:
            return
        controller_name = watched_controller_name(name)
        running.cache.remove_handler(running.handler)
        self._metrics.watch_stopped(controller_name, WATCH_TYPE)
        await running.controller.stop(STOP_GRACE_SECONDS)
        self._metrics.controller_stopped(controller_name)

    async def stop_all(self) -> None:
        """Stop every watched controller (the manager is stopping, or standing down)."""
        await asyncio.gather(*(self._stop(name) for name in list(self._running)))
