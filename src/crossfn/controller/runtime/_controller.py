"""``Controller``: a work queue drained by a bounded pool of reconcile workers.

This is controller-runtime's controller in miniature. Events (informer
handlers, realtime watches, timers) call :meth:`Controller.enqueue` with a key;
``workers`` tasks take keys from the :class:`~crossfn.controller.runtime._queue.WorkQueue`
and await ``reconcile(key)``. The queue guarantees that one key is never
reconciled by two workers at once, so a reconciler needs no locks per object.

What a reconcile returns or raises decides what happens next, as in
controller-runtime: a :class:`Result` with ``requeue_after`` comes back after that
delay (the poll interval, a pipeline's TTL); ``_api.Conflict`` (someone wrote the
object first) retries with the key's backoff without logging an error. Other
failures retry with the key's backoff too (1 s doubling to 30 s) and are logged
as Crossplane's reconcilers log them: a ``CrossfnError`` is a failure the
reconciler has already reported on the object (a condition, an event), mostly a
user's mistake that persists until the user fixes it, so it is logged at debug
with the key and message (at error it would repeat every 30 s per bad object);
any other exception is a bug in crossfn and is logged at error with its
traceback. The controller never dies of a reconcile. ``rate`` caps reconciles per second over
all workers (a token bucket, ``--max-reconcile-rate``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _queue

__all__ = ["Controller", "ControllerMetrics", "NoMetrics", "Result", "TokenBucket", "key_of", "split_key"]

_log = logging.getLogger("crossfn.controller")


@dataclasses.dataclass(frozen=True)
class Result:
    """What a reconcile wants next: ``requeue_after`` seconds from now, or nothing (``None``)."""

    requeue_after: float | None = None


def key_of(obj: Mapping[str, Any]) -> str:
    """The queue key of an object: ``"namespace/name"``, or ``"name"`` when cluster-scoped."""
    metadata = obj.get("metadata") or {}
    namespace = metadata.get("namespace") or ""
    name = str(metadata.get("name", ""))
    return f"{namespace}/{name}" if namespace else name


def split_key(key: str) -> tuple[str, str]:
    """``(namespace, name)`` of a key; the namespace is ``""`` for cluster-scoped objects."""
    namespace, _, name = key.rpartition("/")
    return namespace, name


class ControllerMetrics(Protocol):
    """What a controller reports (controller-runtime's reconcile metrics); see :class:`NoMetrics`."""

    def reconciled(self, controller: str, result: str, seconds: float) -> None:
        """One reconcile finished: ``result`` is controller-runtime's label: success, requeue (a
        Conflict, retried silently), requeue_after or error."""
        ...

    def queue_depth(self, controller: str, depth: int) -> None:
        """Keys ready to be reconciled, after each take from the queue."""
        ...

    def active_workers(self, controller: str, count: int) -> None:
        """Reconciles in flight."""
        ...


class NoMetrics:
    """Reports nothing: the default, so a controller never depends on a metrics backend."""

    def reconciled(self, controller: str, result: str, seconds: float) -> None:
        return None

    def queue_depth(self, controller: str, depth: int) -> None:
        return None

    def active_workers(self, controller: str, count: int) -> None:
        return None


class TokenBucket:
    """At most ``rate`` takes per second on average, bursts of up to ``burst`` (default ``rate``, at least 1)."""

    def __init__(self, rate: float, *, burst: float | None = None, clock: _queue.Clock | None = None) -> None:
        if rate <= 0:
            raise errors.InputError(
                f"cannot limit reconciles to {rate} per second: the rate must be positive"
            )
        self._rate = rate
        self._burst = max(1.0, burst if burst is not None else rate)
        self._clock: _queue.Clock = clock or _queue.LoopClock()
        self._tokens = self._burst
        self._last: float | None = None

    async def take(self) -> None:
        """Wait for one token. Tokens are reserved when taken, so concurrent takers queue fairly."""
        now = self._clock.now()
        if self._last is not None:
            self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        self._tokens -= 1.0
        if self._tokens < 0:
            await self._clock.sleep(-self._tokens / self._rate)


class Controller:
    """Reconciles keys with ``workers`` concurrent tasks; see the module docstring for the rules.

    ``start()`` needs a running event loop; ``await stop()`` lets in-flight
    reconciles finish (up to ``grace`` seconds, then cancels them) and starts
    no new one. A stopped controller is not restarted: make a new one.
    """

    def __init__(
        self,
        name: str,
        reconcile: Callable[[str], Awaitable[Result]],
        *,
        workers: int = 10,
        rate: float | None = None,
        clock: _queue.Clock | None = None,
        metrics: ControllerMetrics | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        if workers < 1:
            raise errors.InputError(
                f"cannot start controller {name}: workers must be at least 1, not {workers}"
            )
        self.name = name
        self._reconcile = reconcile
        self._workers = workers
        self._clock: _queue.Clock = clock or _queue.LoopClock()
        self._bucket = TokenBucket(rate, clock=self._clock) if rate is not None else None
        self._metrics: ControllerMetrics = metrics or NoMetrics()
        self._log = logger or _log
        self.queue = _queue.WorkQueue(clock=self._clock)
        self._tasks: list[asyncio.Task[None]] = []
        self._active = 0

    def enqueue(self, key: str) -> None:
        """Reconcile ``key`` soon (at most once, however often it is enqueued meanwhile)."""
        self.queue.add(key)

    def enqueue_after(self, key: str, seconds: float) -> None:
        """Reconcile ``key`` after ``seconds``."""
        self.queue.add_after(key, seconds)

    @property
    def running(self) -> bool:
        return bool(self._tasks) and not self.queue.shutting_down

    def start(self) -> None:
        """Start the workers (idempotent)."""
        if self._tasks:
            return
        self._tasks = [
            asyncio.create_task(self._work(), name=f"{self.name}-worker-{i}") for i in range(self._workers)
        ]

    async def stop(self, grace: float | None = None) -> None:
        """Start no new reconcile, let the ones in flight finish (``grace`` seconds at most), then return."""
        self.queue.shutdown()
        if not self._tasks:
            return
        _, pending = await asyncio.wait(self._tasks, timeout=grace)
        for task in pending:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []

    async def _work(self) -> None:
        while True:
            key = await self.queue.get()
            if key is None:
                return
            self._metrics.queue_depth(self.name, len(self.queue))
            try:
                if self._bucket is not None:
                    await self._bucket.take()
                await self._reconcile_one(key)
            finally:
                self.queue.done(key)

    async def _reconcile_one(self, key: str) -> None:
        """Run one reconcile and decide its requeue; never raises but for cancellation."""
        self._active += 1
        self._metrics.active_workers(self.name, self._active)
        started = time.perf_counter()
        outcome = "success"
        try:
            result = await self._reconcile(key)
        except _api.Conflict as exc:
            outcome = "requeue"  # controller-runtime's label for a silent, rate-limited requeue
            delay = self.queue.add_rate_limited(key)
            self._log.debug(
                "conflict reconciling %s, retrying in %.0fs: %s",
                key,
                delay,
                exc,
                extra={"controller": self.name, "key": key},
            )
        except errors.CrossfnError as exc:
            outcome = "error"
            delay = self.queue.add_rate_limited(key)
            self._log.debug(
                "cannot reconcile %s, retrying in %.0fs: %s",
                key,
                delay,
                exc,
                extra={"controller": self.name, "key": key, "retry_after": delay},
            )
        except Exception as exc:
            outcome = "error"
            delay = self.queue.add_rate_limited(key)
            self._log.error(
                "cannot reconcile %s: %s",
                key,
                exc,
                exc_info=exc,
                extra={"controller": self.name, "key": key, "retry_after": delay},
            )
        else:
            self.queue.forget(key)
            if result.requeue_after is not None:
                outcome = "requeue_after"
                self.queue.add_after(key, result.requeue_after)
        finally:
            self._active -= 1
            self._metrics.active_workers(self.name, self._active)
        self._metrics.reconciled(self.name, outcome, time.perf_counter() - started)
