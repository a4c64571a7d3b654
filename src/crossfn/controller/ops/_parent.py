"""What the two parent kinds' controllers, CronOperation and WatchOperation, do alike (upstream ops-2, ops-3, ops-4).

* their Operations: an Operation's changes wake the parent that controls it (:func:`owner_handler`);
  they delete the ones past the history limits (``GarbageCollectOperations`` when that fails) and
  the running ones a ``Replace`` concurrency policy replaces (``ReplaceRunningOperation``); an
  Operation already gone is fine;
* themselves: the pause annotation (:func:`paused`), conditions marked with the parent's generation
  (:func:`mark`) and the status written with an update (:func:`write_status`).

A failed step is :class:`Failure`, which carries the Warning event's reason.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.ops import _lifecycle
from crossfn.controller.runtime import _conditions, _events, _informer

__all__ = ["Failure", "delete_garbage", "delete_running", "mark", "owner_handler", "paused", "write_status"]

_ANNOTATION_PAUSED = "crossplane.io/paused"


class Failure(_events.StepFailure):
    """A step of a CronOperation's or WatchOperation's reconcile failed: the event's reason and message."""


def _name(op: Mapping[str, Any]) -> str:
    meta = op.get("metadata")
    return str((meta.get("name") if isinstance(meta, Mapping) else "") or "")


async def _delete(api: _api.Api, name: str, reason: str, doing: str) -> None:
    try:
        await api.delete(_lifecycle.API_VERSION, "Operation", name)
    except _api.NotFound:
        return
    except _api.ApiError as exc:
        raise Failure(reason, f"cannot {doing} {errors.quote(name)}: {exc}") from exc


async def delete_garbage(api: _api.Api, garbage: Iterable[Mapping[str, Any]]) -> None:
    """Delete the Operations past the history limits (:func:`_lifecycle.garbage`)."""
    for op in garbage:
        await _delete(api, _name(op), "GarbageCollectOperations", "garbage collect Operation")


async def delete_running(api: _api.Api, ops: Iterable[Mapping[str, Any]], running: Iterable[str]) -> None:
    """Delete the running Operations, for ``concurrencyPolicy: Replace``."""
    names = set(running)
    for op in ops:
        if _name(op) in names:
            await _delete(api, _name(op), "ReplaceRunningOperation", "delete running Operation")


def owner_handler(kind: str, enqueue: Callable[[str], None]) -> _informer.Handler:
    """An Operation handler that reconciles the ``kind`` (CronOperation or WatchOperation) controlling it."""

    def on_operation(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
            if (
                ref.get("controller")
                and ref.get("kind") == kind
                and ref.get("apiVersion") == _lifecycle.API_VERSION
            ):
                enqueue(str(ref.get("name") or ""))

    return on_operation


def paused(obj: Mapping[str, Any]) -> bool:
    """Whether the object carries ``crossplane.io/paused: "true"``."""
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    return isinstance(annotations, Mapping) and annotations.get(_ANNOTATION_PAUSED) == "true"


def mark(obj: dict[str, Any], now: datetime.datetime, *conditions: tuple[str, str, str, str]) -> None:
    """Set conditions ``(type, status, reason, message)`` on ``obj``, marked with its generation."""
    for type_, status, reason, message in conditions:
        _conditions.set_condition(
            obj, _conditions.condition(obj, type_, status, reason, now=now, message=message)
        )


async def write_status(api: _api.Api, obj: dict[str, Any], *, quietly: bool = False) -> None:
    """Write ``obj``'s status (an update: a stale copy fails with a Conflict); take the server's metadata.

    ``quietly`` when a failure is already being reported: Crossplane ignores that write's error.
    """
    try:
        updated = await api.update(obj, status=True)
    except _api.ApiError:
        if quietly:
            return
        raise
    obj["metadata"] = updated.get("metadata", obj.get("metadata"))
