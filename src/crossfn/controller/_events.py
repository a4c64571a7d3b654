"""Kubernetes Events for the objects the controllers reconcile, the way client-go records them.

Crossplane reports what a reconcile did (a Composition selected, a pipeline
result, a composed resource rejected) as core/v1 Events on the object, with its
own reasons (§2.18 of the core spec). :class:`EventRecorder` writes them.

Two properties matter more than any single event:

* **Recording never fails a reconcile.** An event is a side concern: every API
  error (RBAC, a namespace being deleted, a slow server) is logged and dropped,
  never raised (STYLE rule 5).
* **A repeated event is one object with a count.** A controller that fails the
  same way every 30 s must not fill etcd with identical Events. As client-go's
  ``EventCorrelator`` does, an event identical to one recorded before (same
  object, type, reason, message, source) bumps that Event's ``count`` and
  ``lastTimestamp`` with a patch instead of creating another. The memory of
  recorded events is a bounded LRU (client-go's 4096 entries); a forgotten or
  expired Event (the API server drops them after an hour) is simply created
  again.

:class:`NoEvents` is the no-op recorder for tests and embeddings that want none.
:func:`record_pipeline_events` records a composition's events on the XR and,
for those a function aimed at ``CompositeAndClaim``, on a legacy XR's claim.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import logging
import socket
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from crossfn import engine
from crossfn.controller import _api

__all__ = ["MAX_REMEMBERED", "EventRecorder", "NoEvents", "Recorder", "for_controller", "record_pipeline_events"]

_log = logging.getLogger("crossfn.controller.events")

MAX_REMEMBERED = 4096
"""Distinct events remembered for count bumps: client-go's ``maxLruCacheEntries``."""


class Recorder(Protocol):
    """Records an event about an object; never raises."""

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        """Record a ``Normal`` or ``Warning`` event with Crossplane's ``reason``."""
        ...


class NoEvents:
    """A recorder that records nothing."""

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        return None

    def for_controller(self, name: str) -> NoEvents:
        return self


def for_controller(recorder: Recorder, name: str) -> Recorder:
    """``recorder`` with ``name`` as its events' source, when it can take one; else ``recorder`` itself.

    Crossplane gives each controller its own recorder
    (``mgr.GetEventRecorderFor(name)``), so an event's ``source.component``
    says which controller wrote it (``composite/<xrd>``, ``claim/<xrd>``).
    A recorder without a ``for_controller`` method (a test's) is used as is.
    """
    named = getattr(recorder, "for_controller", None)
    if named is None:
        return recorder
    renamed: Recorder = named(name)
    return renamed


@dataclasses.dataclass
class _Memory:
    """What every recorder of one broadcaster shares: the recorded events and the last name's time."""

    max: int
    seen: collections.OrderedDict[tuple[str, ...], _Seen] = dataclasses.field(default_factory=collections.OrderedDict)
    last_ns: int = 0


@dataclasses.dataclass
class _Seen:
    """An Event already in the API server: where it is and how often it happened."""

    name: str
    namespace: str
    count: int


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _timestamp(t: datetime.datetime) -> str:
    """A ``metav1.Time``: RFC 3339 in UTC, whole seconds."""
    return t.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def involved_object(obj: Mapping[str, Any]) -> dict[str, str]:
    """The ``involvedObject`` reference of an event about ``obj``: empty fields left out."""
    meta = obj.get("metadata") or {}
    ref = {
        "apiVersion": str(obj.get("apiVersion") or ""),
        "kind": str(obj.get("kind") or ""),
        "name": str(meta.get("name") or ""),
        "namespace": str(meta.get("namespace") or ""),
        "uid": str(meta.get("uid") or ""),
        "resourceVersion": str(meta.get("resourceVersion") or ""),
    }
    return {k: v for k, v in ref.items() if v}


class EventRecorder:
    """Writes core/v1 Events through :class:`~crossfn.controller._api.Api`, correlating repeats.

    ``component`` is the event's ``source.component``. Crossplane uses the
    controller's name: :meth:`for_controller` gives a recorder for one
    controller that shares this one's memory of recorded events, as client-go's
    recorders share their broadcaster's correlator. Events about
    cluster-scoped objects go to the ``default`` namespace, as client-go puts them.
    """

    def __init__(
        self,
        api: _api.Api,
        component: str = "crossfn",
        *,
        host: str | None = None,
        clock: Callable[[], datetime.datetime] = _utcnow,
        max_remembered: int = MAX_REMEMBERED,
    ) -> None:
        self._api = api
        self._component = component
        self._host = socket.gethostname() if host is None else host
        self._clock = clock
        self._memory = _Memory(max=max_remembered)

    @property
    def component(self) -> str:
        """The ``source.component`` of this recorder's events."""
        return self._component

    def for_controller(self, name: str) -> EventRecorder:
        """A recorder whose events come from controller ``name``; repeats are counted across all of them."""
        named = EventRecorder(self._api, name, host=self._host, clock=self._clock)
        named._memory = self._memory
        return named

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        """Record the event: create it, or bump the count of the same event recorded before."""
        ref = involved_object(obj)
        if not ref.get("name"):
            _log.warning("cannot record event %s %r: the object has no name", reason, message)
            return
        identity = (ref.get(k, "") for k in ("apiVersion", "kind", "namespace", "name", "uid"))
        key = (self._component, *identity, type, reason, message)
        now = _timestamp(self._clock())
        seen = self._memory.seen.get(key)
        if seen is not None:
            # Bumped before any await, so concurrent repeats each get their own count.
            seen.count += 1
            self._memory.seen.move_to_end(key)
            if await self._bump(seen, now):
                return
        await self._create(key, ref, type=type, reason=reason, message=message, now=now)

    async def _bump(self, seen: _Seen, now: str) -> bool:
        """Patch the remembered Event's count; ``False`` when it is gone and must be created again."""
        patch = {"count": seen.count, "lastTimestamp": now}
        try:
            await self._api.patch("v1", "Event", seen.name, seen.namespace, patch)
        except _api.NotFound:
            return False
        except Exception as exc:  # recording an event never fails the reconcile (module docstring)
            _log.warning("cannot update event %s/%s: %s", seen.namespace, seen.name, exc)
        return True

    async def _create(
        self, key: tuple[str, ...], ref: Mapping[str, str], *, type: str, reason: str, message: str, now: str
    ) -> None:
        namespace = ref.get("namespace") or "default"
        # client-go's name: the object's name and the time in hex nanoseconds; kept
        # increasing so two events in one clock tick (or under a test's fixed clock) differ.
        memory = self._memory
        memory.last_ns = max(int(self._clock().timestamp() * 1e9), memory.last_ns + 1)
        name = f"{ref['name']}.{memory.last_ns:x}"
        seen = _Seen(name=name, namespace=namespace, count=1)
        self._remember(key, seen)
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": dict(ref),
            "reason": reason,
            "message": message,
            "type": type,
            "source": {"component": self._component, "host": self._host},
            "reportingComponent": self._component,
            "reportingInstance": self._host,
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
        }
        try:
            await self._api.create(event)
        except Exception as exc:  # recording an event never fails the reconcile (module docstring)
            self._memory.seen.pop(key, None)
            _log.warning("cannot create event %s %r on %s %s: %s", reason, message, ref.get("kind"), ref["name"], exc)

    def _remember(self, key: tuple[str, ...], seen: _Seen) -> None:
        remembered = self._memory.seen
        remembered[key] = seen
        remembered.move_to_end(key)
        while len(remembered) > self._memory.max:
            remembered.popitem(last=False)


async def record_pipeline_events(
    recorder: Recorder, xr: Mapping[str, Any], events: tuple[engine.Event, ...], *, legacy: bool
) -> None:
    """The pipeline's events on the XR (``<detail>: <message>``); on its claim too when so targeted (§2.5).

    A claim's copy carries the bare message, as Crossplane's ``AsEvent``; it
    is recorded on the object ``spec.claimRef`` names (modern XRs have no claim).
    """
    claim = _claim_of(xr) if legacy else None
    for e in events:
        if claim is not None and e.target is engine.Target.COMPOSITE_AND_CLAIM:
            await recorder.event(claim, e.type, e.reason, e.message)
        await recorder.event(xr, e.type, e.reason, e.xr_message)


def _claim_of(xr: Mapping[str, Any]) -> dict[str, Any] | None:
    ref = (xr.get("spec") or {}).get("claimRef")
    if not isinstance(ref, Mapping) or not ref.get("name"):
        return None
    meta = {"name": ref["name"], "namespace": ref.get("namespace") or ""}
    return {"apiVersion": ref.get("apiVersion", ""), "kind": ref.get("kind", ""), "metadata": meta}
