"""Informers: a local cache of one kind, kept current by list + watch, with change handlers.

This is client-go's shared informer, reduced to what the controllers need. An
:class:`Informer` lists the kind, then watches from the list's resourceVersion
with bookmarks (so a quiet kind's position stays fresh and a reconnect rarely
needs a relist). The watch ends every few minutes by design and is resumed
from the last resourceVersion seen. When that version is too old (410 Gone, as
an HTTP status or inside the stream) it lists again and reconciles the cache
with the list: new objects are ADDED, changed ones MODIFIED, and objects that
vanished while it was not watching are DELETED, so no handler misses a change.
Any other failure (the API server restarting, a CRD not served yet) is retried
with backoff, 0.2 s doubling to 5 s and reset by the first success, resuming
from the same resourceVersion (see :data:`RETRY_MAX` for why so short).

A lost watch is logged once per outage at warning, each further failed retry
at debug, and the recovery at info ("watch ... resumed"): an outage of the API
server is two lines per kind, not one per retry.
:meth:`InformerFactory.healthy` says whether every watch is connected (the
manager's ``/readyz``).

Handlers are synchronous and cheap: they enqueue keys. One that raises is
logged and does not stop the informer. :class:`InformerFactory` shares one
informer per kind across controllers and starts it on first use.

Reconcilers see informers through the Protocols here, each as narrow as its
readers need (:class:`Reader`, :class:`Feed`, :class:`Cache`, :class:`Informers`),
so their tests pass small fakes.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from crossfn.controller.kube import _api
from crossfn.controller.runtime import _controller, _queue

__all__ = ["Cache", "Feed", "Handler", "Informer", "InformerFactory", "Informers", "Reader", "watched"]

Object = dict[str, Any]
Handler = Callable[[str, Object, Object | None], None]
"""``handler(event_type, obj, old)``: ADDED / MODIFIED / DELETED, the object, its previous version."""

_log = logging.getLogger("crossfn.controller.informer")


class Reader(Protocol):
    """The read side of one informer's cache (:class:`Informer`)."""

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None: ...

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]: ...


class Feed(Reader, Protocol):
    """One informer's cache and its change events: what a controller started once watches."""

    def add_handler(self, fn: Handler) -> None: ...


class Cache(Feed, Protocol):
    """All a reconciler of run-time kinds needs of one informer: sync state, handlers on and off."""

    @property
    def synced(self) -> bool:
        """Whether the initial list has been loaded."""
        ...

    def remove_handler(self, fn: Handler) -> None: ...

    async def wait_synced(self) -> None: ...

    async def synced_within(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the first list; whether it is in the cache (:meth:`Informer.synced_within`)."""
        ...


class Informers(Protocol):
    """The shared informers (:class:`InformerFactory`): one per kind, started on first use."""

    def informer(self, api_version: str, kind: str) -> Cache: ...

    def kinds(self) -> Iterable[tuple[str, str]]:
        """The ``(apiVersion, kind)`` pairs watched now."""
        ...

    def running(self, api_version: str, kind: str) -> Cache | None:
        """The informer of the kind if one runs; never starts one, nor marks it needed."""
        ...

    def acquire(self, api_version: str, kind: str, holder: str) -> Cache:
        """The informer of a kind, held by ``holder`` until it :meth:`release` s it (a dependency watch)."""
        ...

    def release(self, api_version: str, kind: str, holder: str) -> None:
        """``holder`` no longer needs the kind; its informer stops when nothing else does."""
        ...


def watched(informers: Informers | None, api_version: str, kind: str) -> Cache | None:
    """The synced informer of a kind that is already watched, or ``None``; never starts one."""
    cache = informers.running(api_version, kind) if informers is not None else None
    return cache if cache is not None and cache.synced else None


RETRY_BASE = 0.2
"""Seconds before the first reconnect after a failed list or watch (client-go's reflector: 0.8 s)."""

RETRY_MAX = 5.0
"""The longest wait between reconnects. client-go waits up to 30 s, and then a change made just
after an outage waits up to 30 s for the watch to come back (measured: 20-30 s for an XR applied
after a 10 s outage). A reconnect resumes from the last resourceVersion and is one cheap request
that a server which is down refuses at once, so retrying every 5 s costs one request per kind per
5 s during the outage (20 a second for a hundred kinds) and bounds that wait to 5 s."""

WATCH_TIMEOUT = 300
"""Seconds the API server keeps one watch open before it ends it (resumed at once)."""


class Informer:
    """A cache of one kind (in one namespace, or all) kept current by list + watch."""

    def __init__(
        self,
        api: _api.Api,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        clock: _queue.Clock | None = None,
        watch_timeout: int = WATCH_TIMEOUT,
        logger: logging.Logger | None = None,
    ) -> None:
        self.api_version = api_version
        self.kind = kind
        self.namespace = namespace
        self._api = api
        self._clock: _queue.Clock = clock or _queue.LoopClock()
        self._watch_timeout = watch_timeout
        self._log = logger or _log
        self._cache: dict[str, Object] = {}
        self._handlers: list[Handler] = []
        self._synced = asyncio.Event()
        self._tried = asyncio.Event()
        """Set by the first list's outcome, loaded or failed: what :meth:`synced_within` waits for."""
        self._task: asyncio.Task[None] | None = None
        self.resource_version = ""
        """Where the next watch starts; empty: list first. Set before ``start()`` to resume from a version."""
        self._failures = 0
        self._outage = False
        self.last_error: Exception | None = None
        """Why the last list or watch failed, while it has not reconnected since; ``None`` when connected."""
        self.relists = 0
        """Lists done so far (the first one included): a test and a metric of watch health."""

    @property
    def synced(self) -> bool:
        """Whether the first list has been loaded into the cache."""
        return self._synced.is_set()

    @property
    def down(self) -> bool:
        """Whether the last list or watch failed and has not reconnected since.

        A kind the API server does not serve (``NoKindMatch``: a CRD not installed yet) does not
        count: that is a configuration the objects using the kind report, not a lost connection.
        An informer still making its first list is not down either.
        """
        return self.last_error is not None and not isinstance(self.last_error, _api.NoKindMatch)

    def start(self) -> None:
        """Start listing and watching in the background (idempotent)."""
        if self._task is None:
            if not self._synced.is_set():
                self._tried.clear()  # a restart after stop(): its first list is awaited again
            self._task = asyncio.create_task(self._run(), name=f"informer-{self.api_version}-{self.kind}")

    async def stop(self) -> None:
        """Stop watching; the cache keeps its last contents."""
        task, self._task = self._task, None
        self._tried.set()  # no list will come: a caller waiting in synced_within reads live now
        if task is None:
            return
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    async def wait_synced(self) -> None:
        """Wait until the first list is in the cache."""
        await self._synced.wait()

    async def synced_within(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the first list; whether it is in the cache.

        ``False`` at once when no list has loaded and the last attempt failed (a kind not served,
        the API server down), when the informer has stopped, and when the first list takes longer:
        the caller reads live instead of waiting on. Once a list has loaded, ``True`` while the watch
        re-establishes itself, as controller-runtime's cache stays the answer then.
        """
        if not self._synced.is_set() and self.last_error is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds):
                    await self._tried.wait()
        return self._synced.is_set()

    def get(self, name: str, namespace: str = "") -> Object | None:
        """The cached object, or ``None``. Callers must not mutate it (copy first)."""
        return self._cache.get(f"{namespace}/{name}" if namespace else name)

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> builtins.list[Object]:
        """Cached objects in ``namespace`` (``None``: all) whose labels include ``labels``; do not mutate them."""
        found = []
        for obj in self._cache.values():
            metadata = obj.get("metadata") or {}
            if namespace is not None and (metadata.get("namespace") or "") != namespace:
                continue
            if labels:
                have = metadata.get("labels") or {}
                if any(have.get(k) != v for k, v in labels.items()):
                    continue
            found.append(obj)
        return found

    def add_handler(self, handler: Handler) -> None:
        """Call ``handler`` on every change; objects already cached are replayed to it as ADDED."""
        self._handlers.append(handler)
        for obj in builtins.list(self._cache.values()):
            self._call(handler, "ADDED", obj, None)

    def remove_handler(self, handler: Handler) -> None:
        """Stop calling ``handler`` (a controller that stops watches this kind no longer)."""
        if handler in self._handlers:
            self._handlers.remove(handler)

    async def _run(self) -> None:
        while True:
            try:
                if not self.resource_version:
                    await self._relist()
                    self._connected()
                await self._watch()
            except _api.Gone:
                self._log.info("watch of %s %s expired, listing again", self.api_version, self.kind)
                self.resource_version = ""
            except Exception as exc:
                await self._clock.sleep(self._failed(exc))

    def _connected(self) -> None:
        """A list or watch worked: reset the backoff, and say so once if it had been lost."""
        self._failures = 0
        self.last_error = None
        if self._outage:
            self._outage = False
            self._log.info("watch of %s %s resumed", self.api_version, self.kind)

    def _failed(self, exc: Exception) -> float:
        """Record a failed list or watch; the seconds to wait. Warns once per outage, then debug."""
        self._failures += 1
        self.last_error = exc
        self._tried.set()
        delay = min(RETRY_BASE * 2.0 ** min(self._failures - 1, 10), RETRY_MAX)
        level = logging.DEBUG if self._outage else logging.WARNING
        self._outage = True
        self._log.log(
            level, "cannot watch %s %s, retrying in %.1fs: %s", self.api_version, self.kind, delay, exc
        )
        return delay

    async def _watch(self) -> None:
        """Apply one watch's events until the server ends it; always close the stream."""
        events = self._api.watch(
            self.api_version,
            self.kind,
            self.namespace,
            resource_version=self.resource_version,
            timeout_seconds=self._watch_timeout,
        )
        try:
            async for event in events:
                if self._failures:
                    self._connected()
                self._apply(event)
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    async def _relist(self) -> None:
        items, resource_version = await self._api.list(self.api_version, self.kind, self.namespace)
        self.relists += 1
        fresh = {_controller.key_of(item): item for item in items}
        for key, gone in builtins.list(self._cache.items()):
            if key not in fresh:
                del self._cache[key]
                self._emit("DELETED", gone, None)
        for key, obj in fresh.items():
            old = self._cache.get(key)
            self._cache[key] = obj
            if old is None:
                self._emit("ADDED", obj, None)
            elif _version(old) != _version(obj):
                self._emit("MODIFIED", obj, old)
        self.resource_version = resource_version
        self._synced.set()
        self._tried.set()

    def _apply(self, event: _api.WatchEvent) -> None:
        obj = event.object
        version = _version(obj)
        if event.type == "BOOKMARK":
            self.resource_version = version or self.resource_version
            return
        obj.setdefault("apiVersion", self.api_version)
        obj.setdefault("kind", self.kind)
        key = _controller.key_of(obj)
        old = self._cache.get(key)
        if event.type == "DELETED":
            self._cache.pop(key, None)
            self._emit("DELETED", obj, old)
        else:
            self._cache[key] = obj
            self._emit("ADDED" if old is None else "MODIFIED", obj, old)
        self.resource_version = version or self.resource_version

    def _emit(self, event_type: str, obj: Object, old: Object | None) -> None:
        for handler in builtins.list(self._handlers):
            self._call(handler, event_type, obj, old)

    def _call(self, handler: Handler, event_type: str, obj: Object, old: Object | None) -> None:
        try:
            handler(event_type, obj, old)
        except Exception:
            self._log.exception("an event handler of %s %s failed", self.api_version, self.kind)


def _version(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion", ""))


class InformerFactory:
    """One shared, cluster-wide informer per kind, started on first use, stopped when nothing needs it.

    An informer is needed in two ways. :meth:`informer` is a standing need (the
    kinds the controllers are built on: XRDs, Compositions, an XRD's XR and
    claim kinds), ended by :meth:`stop_informer`. :meth:`acquire` is a need of
    one holder (``composite/<xrd>`` watching what its XRs compose and require),
    ended by :meth:`release`. An informer stops once neither remains, so a
    watch on a kind nothing needs any more ends (Crossplane's watch garbage
    collector, upstream controllers-1.6).

    Readiness (:meth:`problems`, :meth:`standing`) counts only the standing
    informers: a watch one XR's requirement started must not keep a replica
    unready (a kind whose CRD was removed, or that the controller may not list).
    """

    def __init__(self, api: _api.Api, *, clock: _queue.Clock | None = None) -> None:
        self._api = api
        self._clock = clock
        self._informers: dict[tuple[str, str], Informer] = {}
        self._standing: set[tuple[str, str]] = set()
        self._holders: dict[tuple[str, str], set[str]] = {}
        self._stopping: set[asyncio.Task[None]] = set()

    def _get(self, key: tuple[str, str]) -> Informer:
        found = self._informers.get(key)
        if found is None:
            found = Informer(self._api, *key, clock=self._clock)
            self._informers[key] = found
            found.start()
        return found

    def informer(self, api_version: str, kind: str) -> Informer:
        """The informer of this kind, created and started if it is the first request; a standing need."""
        self._standing.add((api_version, kind))
        return self._get((api_version, kind))

    def acquire(self, api_version: str, kind: str, holder: str) -> Informer:
        """The informer of this kind, held by ``holder`` until :meth:`release`."""
        self._holders.setdefault((api_version, kind), set()).add(holder)
        return self._get((api_version, kind))

    def release(self, api_version: str, kind: str, holder: str) -> None:
        """Drop ``holder``'s need of the kind; stop its informer (in the background) if nothing needs it."""
        key = (api_version, kind)
        holders = self._holders.get(key)
        if holders is not None:
            holders.discard(holder)
            if not holders:
                del self._holders[key]
        self._stop_unneeded(key)

    def holders(self, api_version: str, kind: str) -> set[str]:
        """Who holds the kind with :meth:`acquire` (a test and a metric of dependency watches)."""
        return set(self._holders.get((api_version, kind), ()))

    def _stop_unneeded(self, key: tuple[str, str]) -> None:
        if key in self._standing or key in self._holders:
            return
        found = self._informers.pop(key, None)
        if found is not None:
            task = asyncio.get_running_loop().create_task(found.stop(), name=f"stop-informer-{key[1]}")
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)

    def kinds(self) -> list[tuple[str, str]]:
        """``(apiVersion, kind)`` of every informer running."""
        return sorted(self._informers)

    def running(self, api_version: str, kind: str) -> Informer | None:
        """The informer of the kind if one runs; never starts one (metrics and probes read it)."""
        return self._informers.get((api_version, kind))

    def standing(self) -> list[tuple[str, str]]:
        """The kinds with a standing need (:meth:`informer`): the ones readiness counts."""
        return sorted(k for k in self._informers if k in self._standing)

    def healthy(self) -> bool:
        """Whether no standing watch is down (see :attr:`Informer.down`): what ``/readyz`` reports."""
        return not self.problems()

    def problems(self) -> list[str]:
        """One line per standing watch that is down, ``<apiVersion> <kind>: <error>`` (``/readyz``'s body)."""
        return [
            f"{i.api_version} {i.kind}: {i.last_error}"
            for key, i in sorted(self._informers.items())
            if key in self._standing and i.down and i.last_error is not None
        ]

    async def stop_informer(self, api_version: str, kind: str) -> None:
        """End the standing need of one kind (its XRD is gone); it stops unless a holder still needs it."""
        key = (api_version, kind)
        self._standing.discard(key)
        if key in self._holders:
            return
        found = self._informers.pop(key, None)
        if found is not None:
            await found.stop()

    async def stop(self) -> None:
        """Stop every informer."""
        informers, self._informers = builtins.list(self._informers.values()), {}
        self._standing.clear()
        self._holders.clear()
        await asyncio.gather(*(i.stop() for i in informers), *self._stopping, return_exceptions=True)
