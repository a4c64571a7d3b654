"""Realtime compositions: which XRs depend on which objects, and the watches that wake them
(upstream controllers-1.6).

With ``--enable-realtime-compositions`` (the default) an XR is not polled: a
change to anything it depends on reconciles it at once. Crossplane keeps a
per-controller *dependency tracker* (HEAD): for each XR, the composed
resources it applied and the selectors of the resources its functions
required. After each compose the controller watches every kind the tracker
names; an event on one of those kinds enqueues the XRs that depend on the
object.

:class:`Dependencies` is the tracker. An object maps to XRs in three ways:

* it has a controller owner reference to an XR of this controller's kind
  (a composed resource; the XR's namespace is the object's, or none for a
  cluster-scoped XR);
* it carries the ``crossplane.io/composite`` label but no controller (a
  composed resource whose owner reference was removed): that label names the
  root XR, in the object's namespace for a namespaced XR;
* it matches a selector some XR's functions required (by name, labels, or
  every object of the kind).

:class:`Watches` holds one shared informer per kind (``acquire``, in the
controller's name), adds a handler to it and turns events into
``enqueue(key)`` calls. Watches end as Crossplane's do: every minute the XR
controller asks :meth:`Watches.collect` to release the kinds no XR of it
depends on any more (an XR deleted, a Composition changed); an informer that
nothing else needs then stops. Each watch started and stopped is counted as
Crossplane's ``engine_watches_*{type="Dependency"}``.

The tracker also remembers each XR's last requirements, which the engine
uses to pre-fetch what a function will ask for again (``seed``, upstream
core-2.3). Both are in memory: after a restart every XR is listed and
reconciled once anyway, which rebuilds them.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from crossfn.controller.runtime import _informer, _metrics
from crossfn.engine import _metadata
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["WATCH_TYPE", "Dependencies", "Selector", "Watches", "xr_key"]

WATCH_TYPE = "Dependency"
"""The ``type`` label of these watches in ``engine_watches_*`` (Crossplane's ``WatchTypeDependency``)."""

_log = logging.getLogger("crossfn.controller.realtime")

Kind = tuple[str, str]


def xr_key(namespace: str, name: str) -> str:
    """A work-queue key: ``namespace/name``, or ``name`` for a cluster-scoped object."""
    return f"{namespace}/{name}" if namespace else name


@dataclasses.dataclass(frozen=True)
class Selector:
    """A required resource selector, reduced to what matching an object needs."""

    api_version: str
    kind: str
    namespace: str | None = None
    name: str | None = None
    labels: tuple[tuple[str, str], ...] | None = None

    @classmethod
    def from_proto(cls, sel: fnv1.ResourceSelector) -> Selector:
        match = sel.WhichOneof("match")
        return cls(
            api_version=sel.api_version,
            kind=sel.kind,
            namespace=sel.namespace if sel.HasField("namespace") else None,
            name=sel.match_name if match == "match_name" else None,
            labels=tuple(sorted(sel.match_labels.labels.items())) if match == "match_labels" else None,
        )

    def matches(self, obj: Mapping[str, Any]) -> bool:
        meta = obj.get("metadata") or {}
        if self.namespace is not None and (meta.get("namespace") or "") != self.namespace:
            return False
        if self.name is not None:
            return bool(meta.get("name") == self.name)
        have = meta.get("labels") or {}
        return all(have.get(k) == v for k, v in self.labels or ())


class Dependencies:
    """Per XR: the composed kinds, the required selectors and the last requirements."""

    def __init__(self, xr_api_version: str, xr_kind: str, *, namespaced: bool) -> None:
        self._group = xr_api_version.rpartition("/")[0]
        self._kind = xr_kind
        self._namespaced = namespaced
        self._composed: dict[str, set[Kind]] = {}
        self._required: dict[str, set[Selector]] = {}
        self._requirements: dict[str, Mapping[str, fnv1.Requirements]] = {}
        # Indexes by kind, so an event costs the XRs that care about its kind, not every XR.
        self._composers: collections.Counter[Kind] = collections.Counter()
        self._requiring: dict[Kind, dict[str, set[Selector]]] = {}

    def record(
        self,
        key: str,
        composed: Iterable[Mapping[str, Any]],
        required: Iterable[Selector],
        requirements: Mapping[str, fnv1.Requirements],
    ) -> set[Kind]:
        """Remember what the XR ``key`` depends on now; returns every kind it depends on."""
        self._unindex(key)
        kinds = {(str(o.get("apiVersion") or ""), str(o.get("kind") or "")) for o in composed}
        selectors = set(required)
        self._composed[key] = kinds
        self._required[key] = selectors
        self._requirements[key] = dict(requirements)
        self._composers.update(kinds)
        for s in selectors:
            self._requiring.setdefault((s.api_version, s.kind), {}).setdefault(key, set()).add(s)
        return kinds | {(s.api_version, s.kind) for s in selectors}

    def _unindex(self, key: str) -> None:
        """Take the XR ``key``'s composed kinds and selectors out of the indexes."""
        self._composers.subtract(self._composed.get(key, ()))
        for kind in self._composed.get(key, ()):
            if self._composers[kind] <= 0:
                del self._composers[kind]
        for kind in {(s.api_version, s.kind) for s in self._required.get(key, ())}:
            by_key = self._requiring.get(kind, {})
            by_key.pop(key, None)
            if not by_key:
                self._requiring.pop(kind, None)

    def kinds(self) -> set[Kind]:
        """Every kind some XR depends on now (Crossplane's tracker's ``GVKs``)."""
        out: set[Kind] = set()
        for composed in self._composed.values():
            out |= composed
        for selectors in self._required.values():
            out |= {(s.api_version, s.kind) for s in selectors}
        return out

    def forget(self, key: str) -> None:
        self._unindex(key)
        self._composed.pop(key, None)
        self._required.pop(key, None)
        self._requirements.pop(key, None)

    def requirements(self, key: str) -> Mapping[str, fnv1.Requirements]:
        """The XR's last requirements per step, to seed the next compose."""
        return self._requirements.get(key, {})

    def dependants(self, obj: Mapping[str, Any]) -> set[str]:
        """The keys of the XRs that depend on ``obj``."""
        meta = obj.get("metadata") or {}
        namespace = str(meta.get("namespace") or "") if self._namespaced else ""
        out: set[str] = set()
        kind = (str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
        owner = self._controller(obj)
        if owner is not None:
            out.add(xr_key(namespace, owner))
        elif (root := (meta.get("labels") or {}).get(_metadata.LABEL_COMPOSITE)) and kind in self._composers:
            out.add(xr_key(namespace, str(root)))
        for key, selectors in self._requiring.get(kind, {}).items():
            if any(s.matches(obj) for s in selectors):
                out.add(key)
        return out

    def _controller(self, obj: Mapping[str, Any]) -> str | None:
        """The name of the XR of this kind that controls ``obj``, if one does."""
        for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
            if not isinstance(ref, Mapping) or not ref.get("controller"):
                continue
            group = str(ref.get("apiVersion") or "").rpartition("/")[0]
            if ref.get("kind") == self._kind and group == self._group:
                return str(ref.get("name") or "")
            return None
        return None


class Watches:
    """One held informer and handler per kind an XR depends on; events become ``enqueue(key)`` calls.

    ``heard(key, obj)`` sees each event first: ``True`` means the XR must not be queued for it
    now (the XR reconciler's own writes coming back, ``_echoes``).
    """

    def __init__(
        self,
        informers: _informer.Informers,
        dependencies: Dependencies,
        enqueue: Callable[[str], None],
        *,
        controller: str = "",
        metrics: _metrics.Metrics | None = None,
        admit: Callable[[Mapping[str, Any], list[str]], list[str]] | None = None,
        heard: Callable[[str, Mapping[str, Any]], bool] | None = None,
    ) -> None:
        """``controller`` (``composite/<xrd>``) holds the informers and labels the metrics; ``admit(obj,
        keys)`` keeps the keys an event about ``obj`` may enqueue (the circuit breaker; default all);
        ``heard(key, obj)`` then holds back the XR reconciler's own writes coming back (``_echoes``)."""
        self._informers = informers
        self._dependencies = dependencies
        self.enqueue = enqueue
        self._controller = controller
        self._metrics: _metrics.Metrics = metrics or _metrics.NoMetrics()
        self._held: dict[Kind, _informer.Cache] = {}
        self._admit = admit or _all
        self._heard = heard or _not_heard
        self.stopped = False

    def ensure(self, kinds: Iterable[Kind]) -> None:
        """Watch every kind in ``kinds`` not watched yet (the shared informer starts on first use).

        Once closed, nothing: a reconcile still running as its controller stops starts no watch that
        nobody would release.
        """
        if self.stopped:
            return
        for kind in kinds:
            if kind in self._held or not kind[0] or not kind[1]:
                continue
            cache = self._informers.acquire(*kind, self._controller)
            self._held[kind] = cache
            cache.add_handler(self._handle)
            self._metrics.watch_started(self._controller, WATCH_TYPE)

    def kinds(self) -> set[Kind]:
        return set(self._held)

    def collect(self, needed: set[Kind]) -> list[Kind]:
        """Stop watching the kinds not in ``needed``; the kinds stopped (Crossplane's watch GC)."""
        gone = sorted(set(self._held) - needed)
        for kind in gone:
            self._stop(kind)
        if gone:
            _log.debug("stopped watches no composite resource needs", extra={"controller": self._controller})
        return gone

    def _stop(self, kind: Kind) -> None:
        cache = self._held.pop(kind)
        cache.remove_handler(self._handle)
        self._informers.release(*kind, self._controller)
        self._metrics.watch_stopped(self._controller, WATCH_TYPE)

    def close(self) -> None:
        """Stop reacting: remove the handlers and release every kind."""
        self.stopped = True
        for kind in sorted(self._held):
            self._stop(kind)

    def _handle(self, event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Enqueue the XRs that depended on the object before or depend on it now."""
        if self.stopped:
            return
        dependants = self._dependencies.dependants(obj)
        keys = set(self._admit(obj, sorted(dependants)))
        if old is not None:  # an update maps both objects, as controller-runtime's handler does
            old_dependants = self._dependencies.dependants(old)
            keys.update(self._admit(old, sorted(old_dependants)))
            dependants |= old_dependants
        for key in sorted(dependants):
            try:
                held = self._heard(key, obj)  # noted even when the breaker drops the event
                if key in keys and not held:
                    self.enqueue(key)
            except Exception:  # a handler must never break the informer that calls it
                _log.exception("cannot enqueue %s after a %s event", key, event_type)


def _all(obj: Mapping[str, Any], keys: list[str]) -> list[str]:
    """Admit every key (no circuit breaker)."""
    return keys


def _not_heard(key: str, obj: Mapping[str, Any]) -> bool:
    return False
