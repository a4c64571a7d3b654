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
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import logging
import socket
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from crossfn.controller import _api

__all__ = ["MAX_REMEMBERED", "EventRecorder", "NoEvents", "Recorder"]

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

    ``component`` is the event's ``source.component`` (Crossplane uses the
    controller's name). Events about cluster-scoped objects go to the
    ``default`` namespace, as client-go puts them.
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
        self._max = max_remembered
        self._seen: collections.OrderedDict[tuple[str, ...], _Seen] = collections.OrderedDict()
        self._last_ns = 0

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        """Record the event: create it, or bump the count of the same event recorded before."""
        ref = involved_object(obj)
        if not ref.get("name"):
            _log.warning("cannot record event %s %r: the object has no name", reason, message)
            return
        key = (*(ref.get(k, "") for k in ("apiVersion", "kind", "namespace", "name", "uid")), type, reason, message)
        now = _timestamp(self._clock())
        seen = self._seen.get(key)
        if seen is not None:
            # Bumped before any await, so concurrent repeats each get their own count.
            seen.count += 1
            self._seen.move_to_end(key)
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
        self._last_ns = max(int(self._clock().timestamp() * 1e9), self._last_ns + 1)
        name = f"{ref['name']}.{self._last_ns:x}"
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
            self._seen.pop(key, None)
            _log.warning("cannot create event %s %r on %s %s: %s", reason, message, ref.get("kind"), ref["name"], exc)

    def _remember(self, key: tuple[str, ...], seen: _Seen) -> None:
        self._seen[key] = seen
        self._seen.move_to_end(key)
        while len(self._seen) > self._max:
            self._seen.popitem(last=False)
