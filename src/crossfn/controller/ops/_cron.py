"""The CronOperation controller: an Operation for each time a cron schedule comes round (upstream ops-2).

One reconcile, in Crossplane's order: a CronOperation being deleted is left alone; a paused one
(``crossplane.io/paused: "true"``) is marked ``Scheduling`` False ``SchedulePaused``. Its
Operations (labelled ``ops.crossplane.io/cronoperation``) give ``lastScheduleTime``,
``lastSuccessfulTime`` and ``runningOperationRefs``, and the oldest beyond the history limits are
deleted. The schedule (robfig/cron's standard syntax, :mod:`crossfn.gocompat.cron`) names the next
time after the last one (or after the CronOperation's creation); not due yet, it comes back then.
Due, but later than ``startingDeadlineSeconds`` allows, the run is skipped; otherwise the
``concurrencyPolicy`` decides about Operations still running (``Allow``, ``Forbid``: skip,
``Replace``: delete them) and the Operation ``<name>-<unix seconds>`` is created. Every reconcile
writes the status and asks to come back at the next scheduled time.

Time is the ``clock`` the reconciler is given, so a test moves it instead of waiting.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.ops import _lifecycle, _parent
from crossfn.controller.runtime import _controller, _events, _informer
from crossfn.engine import _clock
from crossfn.gocompat import cron
from crossfn.gocompat import time as gotime

__all__ = ["CONTROLLER_NAME", "CronOperationReconciler"]

CONTROLLER_NAME = "ops/cronoperation.ops.crossplane.io"
"""Crossplane's name of the CronOperation controller: also its events' source."""

Scheduler = Callable[[str], cron.Schedule]


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _limit(spec: Mapping[str, Any], key: str, default: int) -> int:
    value = spec.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


class CronOperationReconciler:
    """Reconciles CronOperations (see the module docstring)."""

    def __init__(
        self,
        api: _api.Api,
        crons: _informer.Feed,
        operations: _informer.Feed,
        recorder: _events.Recorder,
        *,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
        scheduler: Scheduler = cron.parse_standard,
    ) -> None:
        self._api = api
        self._crons = crons
        self._operations = operations
        self._recorder = recorder
        self._clock = clock
        self._scheduler = scheduler

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Reconcile a CronOperation when its spec changes, and when one of its Operations changes."""

        def on_cron(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            if _lifecycle.generation_changed(event_type, obj, old):
                enqueue(_controller.key_of(obj))

        self._crons.add_handler(on_cron)
        self._operations.add_handler(_parent.owner_handler("CronOperation", enqueue))

    async def reconcile(self, key: str) -> _controller.Result:
        _, name = _controller.split_key(key)
        co = await self._api.get(_lifecycle.API_VERSION, "CronOperation", name)
        if co is None or _meta(co).get("deletionTimestamp"):
            return _controller.Result()
        now = self._clock()
        if _parent.paused(co):
            _parent.mark(
                co,
                now,
                ("Scheduling", "False", "SchedulePaused", ""),
                ("Synced", "False", "ReconcilePaused", ""),
            )
            await _parent.write_status(self._api, co)
            return _controller.Result()
        try:
            return await self._schedule(co, now)
        except _parent.Failure as exc:
            await self._recorder.event(co, "Warning", exc.reason, str(exc))
            _parent.mark(co, now, ("Synced", "False", "ReconcileError", str(exc)))
            await _parent.write_status(self._api, co, quietly=True)
            raise

    async def _schedule(self, co: dict[str, Any], now: datetime.datetime) -> _controller.Result:
        name = str(_meta(co).get("name") or "")
        spec = _spec(co)
        ops = self._operations.list(labels={_lifecycle.LABEL_CRON: name})
        status = co.setdefault("status", {})
        last_created = _lifecycle.latest_created(ops)
        if last_created is not None:
            status["lastScheduleTime"] = gotime.format_rfc3339(last_created)
        last_succeeded = _lifecycle.latest_succeeded(ops)
        if last_succeeded is not None:
            status["lastSuccessfulTime"] = gotime.format_rfc3339(last_succeeded)
        running = sorted(set(_lifecycle.running(ops)))
        _set_running(status, running)
        await self._collect(ops, spec)
        last = _time(status.get("lastScheduleTime")) or _time(_meta(co).get("creationTimestamp")) or now
        schedule_text = str(spec.get("schedule") or "")
        try:
            schedule = self._scheduler(schedule_text)
        except errors.GoError as exc:
            message = (
                f"cannot parse cron schedule {errors.quote(schedule_text)}: cannot parse cron schedule: {exc}"
            )
            await self._recorder.event(co, "Warning", "InvalidSchedule", message)
            _parent.mark(
                co,
                now,
                ("Scheduling", "False", "ScheduleInvalid", message),
                ("Synced", "False", "ReconcileError", message),
            )
            # No retry: the schedule stays wrong until someone fixes it.
            await _parent.write_status(self._api, co)
            return _controller.Result()
        _parent.mark(co, now, ("Scheduling", "True", "ScheduleActive", ""))
        scheduled = schedule.next(last)
        if scheduled is None or scheduled > now:
            await _parent.write_status(self._api, co)
            return _controller.Result(None if scheduled is None else (scheduled - now).total_seconds())
        future = schedule.next(now)
        wait = None if future is None else (future - now).total_seconds()
        deadline = spec.get("startingDeadlineSeconds")
        if isinstance(deadline, int) and scheduled + datetime.timedelta(seconds=deadline) < now:
            await _parent.write_status(self._api, co)
            return _controller.Result(wait)
        if running and not await self._concurrency(spec, ops, running):
            await _parent.write_status(self._api, co)
            return _controller.Result(wait)
        op = _lifecycle.cron_operation(co, scheduled)
        try:
            await self._api.create(op)
        except _api.ApiError as exc:
            op_name = op["metadata"]["name"]
            raise _parent.Failure(
                "CreateOperation", f"cannot create scheduled Operation {errors.quote(op_name)}: {exc}"
            ) from exc
        _parent.mark(co, now, ("Synced", "True", "ReconcileSuccess", ""))
        await _parent.write_status(self._api, co)
        return _controller.Result(wait)

    async def _collect(self, ops: list[dict[str, Any]], spec: Mapping[str, Any]) -> None:
        """Delete the Operations beyond the history limits."""
        keep_ok = _limit(spec, "successfulHistoryLimit", _lifecycle.DEFAULT_SUCCESSFUL_HISTORY)
        keep_failed = _limit(spec, "failedHistoryLimit", _lifecycle.DEFAULT_FAILED_HISTORY)
        await _parent.delete_garbage(self._api, _lifecycle.garbage(ops, keep_ok, keep_failed))

    async def _concurrency(
        self, spec: Mapping[str, Any], ops: list[dict[str, Any]], running: list[str]
    ) -> bool:
        """Whether to create the Operation with others running: Allow yes, Forbid no, Replace after deleting them."""
        policy = spec.get("concurrencyPolicy") or "Allow"
        if policy == "Forbid":
            return False
        if policy == "Replace":
            await _parent.delete_running(self._api, ops, running)
        return True


def _time(text: object) -> datetime.datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return gotime.parse_rfc3339(text)
    except errors.GoError:
        return None


def _set_running(status: dict[str, Any], names: list[str]) -> None:
    if names:
        status["runningOperationRefs"] = [{"name": n} for n in names]
    else:
        status.pop("runningOperationRefs", None)
