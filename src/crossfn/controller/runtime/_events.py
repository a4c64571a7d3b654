"""Kubernetes Events for the objects the controllers reconcile, the way client-go records them.

Crossplane reports what a reconcile did (a Composition selected, a pipeline
result, a composed resource rejected) as core/v1 Events on the object, with its
own reasons (upstream core-2.18). :class:`EventRecorder` writes them.

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
* **One object cannot flood the API server with Events**, as client-go's
  correlator guarantees: events about one object that differ only by message
  (same source, type and reason) are, from the 10th distinct message within
  10 minutes, one Event ``(combined from similar events): <latest message>``
  whose count goes up (client-go's ``EventAggregator``); and each source may
  write 25 events about one object at once, then one every 5 minutes (its
  ``EventSourceObjectSpamFilter``: a token bucket per source and object).
  Events past that are dropped and counted in :attr:`EventRecorder.filtered`.
  A function returning a new timestamped warning on every reconcile of a
  looping XR made thousands of Events a minute without these.
* **A reconcile never waits for an event.** As client-go's broadcaster,
  :meth:`EventRecorder.event` only correlates and queues; background tasks
  write the queued events, each object's in order. The queue is bounded
  (client-go's 1000 events): when it is full, an event is dropped, counted
  in :attr:`EventRecorder.dropped` and logged, before it is correlated (as
  client-go's broadcaster drops it before its correlator sees it: a dropped
  event bumps no count and spends no spam budget). A sender task runs only
  while it has events to write; :meth:`EventRecorder.flush` waits until all
  queued events are written and :meth:`EventRecorder.close` is the same for
  shutdown, so no event recorded before a clean stop is lost.

:class:`NoEvents` is the no-op recorder for tests and embeddings that want none.
:func:`record_pipeline_events` records a composition's events on the XR and,
for those a function aimed at ``CompositeAndClaim``, on a legacy XR's claim.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import datetime
import functools
import logging
import socket
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Protocol

from crossfn import engine, errors
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _xr
from crossfn.engine import _clock

__all__ = [
    "AGGREGATE_INTERVAL",
    "AGGREGATE_MAX_EVENTS",
    "AGGREGATE_PREFIX",
    "CLOSE_TIMEOUT",
    "MAX_QUEUED",
    "MAX_REMEMBERED",
    "SENDERS",
    "SPAM_BURST",
    "SPAM_QPS",
    "EventRecorder",
    "NoEvents",
    "Recorder",
    "for_controller",
    "record_pipeline_events",
    "with_annotations",
]

_log = logging.getLogger("crossfn.controller.events")

MAX_REMEMBERED = 4096
"""Distinct events remembered for count bumps: client-go's ``maxLruCacheEntries``."""

MAX_QUEUED = 1000
"""Events waiting to be written before new ones are dropped: client-go's ``maxQueuedEvents``."""

SENDERS = 4
"""Events written at once; each object's events go through one sender, in order."""

CLOSE_TIMEOUT = 10.0
"""How long :meth:`EventRecorder.close` waits for queued events to be written."""

AGGREGATE_MAX_EVENTS = 10
"""Distinct messages of one (source, object, type, reason) before they are combined: client-go's
``defaultAggregateMaxEvents``,"""
AGGREGATE_INTERVAL = 600.0
"""within this many seconds of the last one (``defaultAggregateIntervalInSeconds``)."""
AGGREGATE_PREFIX = "(combined from similar events): "
"""client-go's ``EventAggregatorByReasonMessageFunc``."""
SPAM_BURST = 25
"""Events one source may write about one object at once: client-go's ``defaultSpamBurst``;"""
SPAM_QPS = 1.0 / 300.0
"""then one per 5 minutes (``defaultSpamQPS``)."""


class Recorder(Protocol):
    """Records an event about an object; never raises."""

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        """Record a ``Normal`` or ``Warning`` event with Crossplane's ``reason``."""
        ...


class StepFailure(errors.CrossfnError):
    """A failed reconcile step: the Warning event's reason travels with Crossplane's message.

    Each reconciler subclasses it, so it catches its own steps' failures only.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@contextlib.asynccontextmanager
async def warning_on_api_error(
    recorder: Recorder, obj: Mapping[str, Any], reason: str, doing: str
) -> AsyncIterator[None]:
    """Run the body; an API error in it becomes a Warning event ``cannot <doing>: <error>`` on ``obj``, and is raised on.

    A :class:`~_api.Conflict` only means "try again", so it gets no event.
    """
    try:
        yield
    except _api.Conflict:
        raise
    except _api.ApiError as exc:
        await recorder.event(obj, "Warning", reason, f"cannot {doing}: {exc}")
        raise


class NoEvents:
    """A recorder that records nothing."""

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        return None

    def for_controller(self, name: str) -> NoEvents:
        return self

    def with_annotations(self, annotations: Mapping[str, str]) -> NoEvents:
        return self

    async def flush(self) -> None:
        return None

    async def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        return None


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


def with_annotations(recorder: Recorder, annotations: Mapping[str, str]) -> Recorder:
    """``recorder`` whose events also carry ``annotations``, when it can take them; else ``recorder`` itself.

    crossplane-runtime's ``Recorder.WithAnnotations``: the XR controller's
    events carry ``controller: composite/<xrd>``, a claim's ``controller:
    claim/<xrd>``, ``external-name`` and ``composite-name``, as the Event's
    ``metadata.annotations``, so filters and alerts can key on them.
    """
    annotated = getattr(recorder, "with_annotations", None)
    if annotated is None:
        return recorder
    out: Recorder = annotated(annotations)
    return out


@dataclasses.dataclass
class _Memory:
    """What every recorder of one broadcaster shares: the recorded events and the last name's time."""

    max: int
    outbox: _Outbox
    seen: collections.OrderedDict[tuple[str, ...], _Seen] = dataclasses.field(
        default_factory=collections.OrderedDict
    )
    last_ns: int = 0
    similar: collections.OrderedDict[tuple[str, ...], _Similar] = dataclasses.field(
        default_factory=collections.OrderedDict
    )
    """Messages seen per (source, object, type, reason), for aggregation."""
    buckets: collections.OrderedDict[tuple[str, ...], _Bucket] = dataclasses.field(
        default_factory=collections.OrderedDict
    )
    """Token buckets per (source, object), for the spam filter."""
    filtered: int = 0


@dataclasses.dataclass
class _Similar:
    messages: set[str]
    last: float


@dataclasses.dataclass
class _Bucket:
    tokens: float
    at: float

    def take(self, now: float, *, burst: int, qps: float) -> bool:
        """One token if there is one (refilled at ``qps`` up to ``burst`` since ``at``)."""
        self.tokens = min(float(burst), self.tokens + max(0.0, now - self.at) * qps)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


def _lru_get(cache: collections.OrderedDict[tuple[str, ...], Any], key: tuple[str, ...], limit: int) -> Any:
    """``cache[key]`` (or None), marked most recent; the least recent entries past ``limit`` are dropped."""
    found = cache.get(key)
    if found is not None:
        cache.move_to_end(key)
    while len(cache) > limit:
        cache.popitem(last=False)
    return found


_Job = Callable[[], Awaitable[None]]


class _Outbox:
    """Queued writes in ``senders`` lanes, each drained in order by a task that runs while it has work."""

    def __init__(self, size: int, senders: int) -> None:
        self._lane_size = max(1, size // senders)
        self._lanes: list[collections.deque[_Job]] = [collections.deque() for _ in range(senders)]
        self._tasks: list[asyncio.Task[None] | None] = [None] * senders
        self.dropped = 0

    def lane(self, lane_key: str) -> int | None:
        """The lane of ``lane_key`` when it has room for one more job; ``None`` (and counted as a drop) when full."""
        index = zlib.crc32(lane_key.encode()) % len(self._lanes)
        if len(self._lanes[index]) >= self._lane_size:
            self.dropped += 1
            return None
        return index

    def put(self, index: int, job: _Job) -> None:
        """Queue ``job`` in lane ``index`` (one :meth:`lane` gave, with nothing awaited since)."""
        lane = self._lanes[index]
        lane.append(job)
        task = self._tasks[index]
        loop = asyncio.get_running_loop()
        if task is None or task.done() or task.get_loop() is not loop:
            self._tasks[index] = loop.create_task(self._drain(lane), name="crossfn-events")

    @staticmethod
    async def _drain(lane: collections.deque[_Job]) -> None:
        while lane:
            try:
                await lane[0]()
            finally:
                lane.popleft()

    def abandon(self) -> int:
        """Stop the senders and drop what is queued (counted as dropped); how many were dropped."""
        for task in self._tasks:
            if task is not None and not task.done():
                task.cancel()
        left = sum(len(lane) for lane in self._lanes)
        for lane in self._lanes:
            lane.clear()
        self.dropped += left
        return left

    async def flush(self) -> None:
        """Wait until every queued job has run (jobs queued meanwhile included)."""
        loop = asyncio.get_running_loop()
        while True:
            running = [t for t in self._tasks if t is not None and not t.done() and t.get_loop() is loop]
            if not running:
                return
            await asyncio.gather(*running, return_exceptions=True)


@dataclasses.dataclass(frozen=True)
class _Pending:
    """An event as recorded, waiting to be written."""

    key: tuple[str, ...]
    ref: dict[str, str]
    type: str
    reason: str
    message: str
    now: str
    annotations: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class _Seen:
    """An Event already in the API server: where it is and how often it happened."""

    name: str
    namespace: str
    count: int


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
    """Writes core/v1 Events through :class:`~crossfn.controller.kube._api.Api`, correlating repeats.

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
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
        max_remembered: int = MAX_REMEMBERED,
        max_queued: int = MAX_QUEUED,
        senders: int = SENDERS,
        annotations: Mapping[str, str] | None = None,
    ) -> None:
        """``annotations`` go on every Event this recorder writes (:meth:`with_annotations`)."""
        self._api = api
        self._component = component
        self._annotations = dict(annotations or {})
        self._host = socket.gethostname() if host is None else host
        self._clock = clock
        self._memory = _Memory(max=max_remembered, outbox=_Outbox(max_queued, senders))

    @property
    def component(self) -> str:
        """The ``source.component`` of this recorder's events."""
        return self._component

    @property
    def dropped(self) -> int:
        """Events dropped because the queue was full, by this recorder and its siblings."""
        return self._memory.outbox.dropped

    @property
    def filtered(self) -> int:
        """Events not written because their object's source had used its budget (the spam filter)."""
        return self._memory.filtered

    async def flush(self) -> None:
        """Wait until every event recorded so far (by this recorder or its siblings) is written or failed."""
        await self._memory.outbox.flush()

    async def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Write the queued events before shutdown, for at most ``timeout`` seconds; then drop the rest.

        The manager awaits it once its controllers have stopped, before it
        closes the API client; an API server that does not answer delays
        shutdown by ``timeout`` at most.
        """
        try:
            await asyncio.wait_for(self.flush(), timeout)
        except TimeoutError:
            left = self._memory.outbox.abandon()
            _log.warning("cannot record %d events before shutdown: not written within %g s", left, timeout)

    def for_controller(self, name: str) -> EventRecorder:
        """A recorder whose events come from controller ``name``; repeats are counted across all of them."""
        named = EventRecorder(self._api, name, host=self._host, clock=self._clock)
        named._memory = self._memory
        return named

    def with_annotations(self, annotations: Mapping[str, str]) -> EventRecorder:
        """This recorder, its events also carrying ``annotations`` (crossplane-runtime's ``WithAnnotations``).

        As client-go's correlator, a repeat is the same event whatever its
        annotations: the count of the Event already written goes up.
        """
        annotated = EventRecorder(
            self._api, self._component, host=self._host, clock=self._clock,
            annotations={**self._annotations, **annotations},
        )  # fmt: skip
        annotated._memory = self._memory
        return annotated

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        """Record the event: queue its creation, or a bump of the count of the same event recorded before."""
        ref = involved_object(obj)
        if not ref.get("name"):
            _log.warning("cannot record event %s %r: the object has no name", reason, message)
            return
        outbox = self._memory.outbox
        lane = outbox.lane(f"{ref.get('namespace', '')}/{ref['name']}")
        if lane is None:
            # Dropped before it is correlated, as client-go's broadcaster drops it before its
            # correlator sees it: it counts toward no Event, aggregate or spam budget.
            dropped = outbox.dropped
            if dropped & (dropped - 1) == 0:  # the 1st, 2nd, 4th, 8th… drop: a burst logs a few lines
                _log.warning(
                    "cannot record event %s %r on %s %s: too many events queued (%d dropped so far)",
                    reason, message, ref.get("kind"), ref["name"], dropped,
                )  # fmt: skip
            return
        identity = (ref.get("apiVersion", ""), ref.get("kind", ""), ref.get("namespace", ""), ref["name"],
                    ref.get("uid", ""))  # fmt: skip
        now = self._clock()
        message, key = self._aggregate((self._component, *identity, type, reason), message, now.timestamp())
        allowed = self._allowed((self._component, *identity), now.timestamp())
        event = _Pending(key, ref, type, reason, message, _timestamp(now), self._annotations)
        seen = self._memory.seen.get(key)
        if seen is not None:
            # Counted now, not when sent, so repeats queued together each get their own count; a
            # filtered repeat counts too (its next bump carries it), as client-go's correlator.
            seen.count += 1
            self._memory.seen.move_to_end(key)
        if not allowed:
            self._memory.filtered += 1
            return
        if seen is not None:
            job: _Job = functools.partial(self._bump, event, seen, seen.count)
        else:
            seen = self._new(event)
            job = functools.partial(self._create, event, seen)
        outbox.put(lane, job)

    def _aggregate(self, similar: tuple[str, ...], message: str, now: float) -> tuple[str, tuple[str, ...]]:
        """The message to record and the key to count it under: the event's own, or, from the
        10th distinct message of ``similar`` within 10 minutes, the combined event's."""
        memory = self._memory
        record = _lru_get(memory.similar, similar, memory.max)
        if record is None or now - record.last > AGGREGATE_INTERVAL:
            record = memory.similar[similar] = _Similar(set(), now)
            _lru_get(memory.similar, similar, memory.max)
        record.messages.add(message)
        record.last = now
        if len(record.messages) < AGGREGATE_MAX_EVENTS:
            return message, (*similar, message)
        record.messages.pop()  # the set never grows past the threshold
        return AGGREGATE_PREFIX + message, (*similar, AGGREGATE_PREFIX)

    def _allowed(self, source_object: tuple[str, ...], now: float) -> bool:
        """Whether this source may write one more event about this object now (the spam filter)."""
        memory = self._memory
        bucket = _lru_get(memory.buckets, source_object, memory.max)
        if bucket is None:
            bucket = memory.buckets[source_object] = _Bucket(float(SPAM_BURST), now)
            _lru_get(memory.buckets, source_object, memory.max)
        allowed: bool = bucket.take(now, burst=SPAM_BURST, qps=SPAM_QPS)
        return allowed

    async def _bump(self, event: _Pending, seen: _Seen, count: int) -> None:
        """Patch the remembered Event's count (and message: a combined event shows the latest); create it
        again when it is gone."""
        patch = {"count": count, "lastTimestamp": event.now, "message": event.message}
        try:
            await self._api.patch("v1", "Event", seen.name, seen.namespace, patch)
        except _api.NotFound:
            await self._create(event, self._new(event))
        except Exception as exc:  # recording an event never fails anything (module docstring)
            _log.warning("cannot update event %s/%s: %s", seen.namespace, seen.name, exc)

    def _new(self, event: _Pending) -> _Seen:
        """Name (client-go's: the object's name and the time in hex nanoseconds) and remember an Event."""
        # Kept increasing so two events in one clock tick (or under a test's fixed clock) differ.
        memory = self._memory
        memory.last_ns = max(int(self._clock().timestamp() * 1e9), memory.last_ns + 1)
        name = f"{event.ref['name']}.{memory.last_ns:x}"
        seen = _Seen(name=name, namespace=event.ref.get("namespace") or "default", count=1)
        self._remember(event.key, seen)
        return seen

    async def _create(self, event: _Pending, seen: _Seen) -> None:
        metadata: dict[str, Any] = {"name": seen.name, "namespace": seen.namespace}
        if event.annotations:
            metadata["annotations"] = dict(event.annotations)
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": metadata,
            "involvedObject": dict(event.ref),
            "reason": event.reason,
            "message": event.message,
            "type": event.type,
            "source": {"component": self._component, "host": self._host},
            "reportingComponent": self._component,
            "reportingInstance": self._host,
            "firstTimestamp": event.now,
            "lastTimestamp": event.now,
            "count": 1,
        }
        try:
            await self._api.create(body)
        except Exception as exc:  # recording an event never fails anything (module docstring)
            self._forget(event.key, seen)
            ref = event.ref
            _log.warning(
                "cannot create event %s %r on %s %s: %s",
                event.reason,
                event.message,
                ref.get("kind"),
                ref["name"],
                exc,
            )

    def _forget(self, key: tuple[str, ...], seen: _Seen) -> None:
        """Forget an Event never written, unless a newer one took its place."""
        if self._memory.seen.get(key) is seen:
            del self._memory.seen[key]

    def _remember(self, key: tuple[str, ...], seen: _Seen) -> None:
        remembered = self._memory.seen
        remembered[key] = seen
        remembered.move_to_end(key)
        while len(remembered) > self._memory.max:
            remembered.popitem(last=False)


async def record_pipeline_events(recorder: Recorder, xr: _xr.XR, events: tuple[engine.Event, ...]) -> None:
    """The pipeline's events on the XR (``<detail>: <message>``); on its claim too when so targeted
    (upstream controllers-2.5).

    A claim's copy carries the bare message, as Crossplane's ``AsEvent``; it
    is recorded on the object the XR's claim reference names (modern XRs have no claim).
    """
    claim = _claim_of(xr)
    for e in events:
        if claim is not None and e.target is engine.Target.COMPOSITE_AND_CLAIM:
            await recorder.event(claim, e.type, e.reason, e.message)
        await recorder.event(xr.obj, e.type, e.reason, e.xr_message)


def _claim_of(xr: _xr.XR) -> dict[str, Any] | None:
    ref = xr.claim_ref
    if ref is None or not ref.get("name"):
        return None
    meta = {"name": ref["name"], "namespace": ref.get("namespace") or ""}
    return {"apiVersion": ref.get("apiVersion", ""), "kind": ref.get("kind", ""), "metadata": meta}
