"""The watch circuit breaker: an XR that its watches wake too often is reconciled only now and then.

A composed resource that flaps (two controllers fighting over a field) makes
its XR's watch fire without end, and every event is a reconcile. Crossplane's
XR controllers put a token bucket per XR between their watches and their work
queue (``internal/circuit``), and crossfn does the same:

* every watch event aimed at an XR takes a token from that XR's bucket
  (``--circuit-breaker-burst`` tokens, 100, refilled at
  ``--circuit-breaker-refill-rate``, 1 a second); an update event is two
  (the old object and the new one each map to the XR, as in controller-runtime);
* an empty bucket **opens** the circuit for ``--circuit-breaker-cooldown`` (5 m):
  events are dropped, except one every 30 s (half-open), and the XR reports
  ``Responsive=False``/``WatchCircuitOpen`` naming the object that fired most
  among its last 16 events;
* after the cooldown the next event closes it again;
* events about an object being deleted always pass, and an XR's own deletion
  resets its bucket, so an XR created again with the same name starts fresh;
* an XR untouched for 24 h is forgotten.

Each decision is counted in Crossplane's metrics (``circuit_breaker_opens_total``,
``circuit_breaker_closes_total``, ``circuit_breaker_events_total{result}``).
The clock is injected (seconds, monotonic).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from crossfn.controller.runtime import _metrics

__all__ = [
    "ALLOWED",
    "DROPPED",
    "HALF_OPEN_ALLOWED",
    "Breaker",
    "CircuitSettings",
    "State",
    "source_of",
]

ALLOWED, DROPPED, HALF_OPEN_ALLOWED = "Allowed", "Dropped", "HalfOpenAllowed"
_RECENT = 16
"""How many recent event sources a bucket remembers, to name the one that opened it."""


@dataclasses.dataclass(frozen=True)
class CircuitSettings:
    """Crossplane's circuit breaker settings (``crossplane core start`` flags and fixed values)."""

    burst: float = 100.0
    """``--circuit-breaker-burst``: tokens in a full bucket, the events an XR may get at once."""

    refill_rate: float = 1.0
    """``--circuit-breaker-refill-rate``: tokens added per second, the events an XR may get steadily."""

    cooldown: float = 300.0
    """``--circuit-breaker-cooldown``: seconds an open circuit stays open (5 m)."""

    half_open_interval: float = 30.0
    """Seconds between the events an open circuit lets through (fixed in Crossplane)."""

    expire_after: float = 86_400.0
    """Seconds after which an XR whose bucket saw no event is forgotten (fixed in Crossplane: 24 h)."""


@dataclasses.dataclass(frozen=True)
class State:
    """An XR's circuit: open or not, when it next lets an event through, and what opened it."""

    open: bool = False
    next_allowed_at: float = 0.0
    triggered_by: str = ""


def source_of(obj: Mapping[str, Any]) -> str:
    """``Kind/name`` or ``Kind/name (namespace)``: how Crossplane names an event's source."""
    meta = obj.get("metadata") or {}
    text = f"{obj.get('kind') or ''}/{meta.get('name') or ''}"
    namespace = meta.get("namespace")
    return f"{text} ({namespace})" if namespace else text


@dataclasses.dataclass
class _Bucket:
    tokens: float
    last_refill: float
    recent: list[str] = dataclasses.field(default_factory=lambda: [""] * _RECENT)
    """A ring of the last sources, ``next`` the slot written next (Crossplane's ``recentSources``)."""
    next: int = 0
    is_open: bool = False
    opened_at: float = 0.0
    last_allowed: float = 0.0
    triggered_by: str = ""


class Breaker:
    """One XR controller's buckets, keyed by XR (its work queue key)."""

    def __init__(
        self,
        controller: str,
        settings: CircuitSettings | None = None,
        *,
        metrics: _metrics.CircuitMetrics | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._controller = controller
        self._settings = settings or CircuitSettings()
        self._metrics: _metrics.CircuitMetrics = metrics or _metrics.NoMetrics()
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def state(self, target: str) -> State:
        """The target's circuit now."""
        bucket = self._buckets.get(target)
        if bucket is None or not bucket.is_open:
            return State()
        return State(True, bucket.last_allowed + self._settings.half_open_interval, bucket.triggered_by)

    def reset(self, target: str) -> None:
        """Forget the target (its XR is being deleted: one created again starts with a full bucket)."""
        self._buckets.pop(target, None)

    def filter(self, obj: Mapping[str, Any], targets: Iterable[str]) -> list[str]:
        """The targets an event about ``obj`` may wake (Crossplane's ``circuit.NewMapFunc``)."""
        source = source_of(obj)
        deleting = bool((obj.get("metadata") or {}).get("deletionTimestamp"))
        out = []
        for target in targets:
            if deleting:
                out.append(target)
                continue
            state = self.state(target)
            if not state.open:
                self.record(target, source, ALLOWED)
                out.append(target)
            elif self._clock() > state.next_allowed_at:
                self.record(target, source, HALF_OPEN_ALLOWED)
                out.append(target)
            else:
                self.record(target, source, DROPPED)
        return out

    def record(self, target: str, source: str, result: str) -> None:
        """Take a token for an event from ``source`` aimed at ``target``; open or close its circuit."""
        now = self._clock()
        bucket = self._buckets.get(target)
        if bucket is None:
            self._expire(now)
            bucket = self._buckets[target] = _Bucket(tokens=self._settings.burst, last_refill=now)
        s = self._settings
        bucket.tokens = min(s.burst, bucket.tokens + s.refill_rate * (now - bucket.last_refill))
        bucket.last_refill = now
        bucket.recent[bucket.next] = source
        bucket.next = (bucket.next + 1) % _RECENT
        if bucket.is_open:
            if result == HALF_OPEN_ALLOWED:
                bucket.last_allowed = now
            if now - bucket.opened_at < s.cooldown:
                self._metrics.circuit_event(self._controller, result)
                return
            bucket.is_open = False
            bucket.recent, bucket.next = [""] * _RECENT, 0  # the event closing it is forgotten too
            self._metrics.circuit_closed(self._controller)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            self._metrics.circuit_event(self._controller, result)
            return
        bucket.is_open = True
        bucket.opened_at = bucket.last_allowed = now
        bucket.triggered_by = _most_frequent(bucket.recent)
        self._metrics.circuit_opened(self._controller)
        self._metrics.circuit_event(self._controller, result)

    def _expire(self, now: float) -> None:
        for target in [
            t for t, b in self._buckets.items() if now - b.last_refill > self._settings.expire_after
        ]:
            del self._buckets[target]


def _most_frequent(recent: Iterable[str]) -> str:
    """The source seen most often; of those tied, the one in the ring's later slot (Crossplane's scan)."""
    counts: dict[str, int] = {}
    best, most = "", 0
    for source in recent:
        if not source:
            continue
        counts[source] = counts.get(source, 0) + 1
        if counts[source] >= most:
            best, most = source, counts[source]
    return best
