"""``WorkQueue``: client-go's rate-limited work queue, for the controller's reconcile keys.

A key is a string naming one object (``"namespace/name"`` or ``"name"``). The
queue guarantees what controllers rely on:

- **de-duplication**: a key waiting in the queue is not added twice, and a key
  being processed is not handed to a second worker; added meanwhile, it is
  queued again when :meth:`WorkQueue.done` is called, so the change that caused
  the add is reconciled after the one in flight, never concurrently with it;
- **delays**: :meth:`WorkQueue.add_after` keeps the earliest of several pending
  delays for one key;
- **per-key exponential backoff**: :meth:`WorkQueue.add_rate_limited` waits
  1 s, 2 s, 4 s ... up to 30 s (Crossplane's controllers use these bounds),
  until :meth:`WorkQueue.forget` resets the key after a successful reconcile.

Time comes from an injected :class:`Clock`, so unit tests advance a fake clock
instead of sleeping; :class:`LoopClock` is the event loop's.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from typing import Protocol

__all__ = ["Clock", "Handle", "LoopClock", "WorkQueue"]

BASE_DELAY = 1.0
"""Seconds before the first retry of a failed key (Crossplane: 1 s)."""

MAX_DELAY = 30.0
"""The longest wait between retries of a failing key (Crossplane: 30 s)."""


class Handle(Protocol):
    """A scheduled callback that can be cancelled (``asyncio.TimerHandle`` is one)."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Monotonic time, timers and sleeps: the only way the controller's runtime sees time."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        """Call ``callback`` after ``delay`` seconds (on the event loop)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""
        ...


class LoopClock:
    """The running event loop's clock."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        return asyncio.get_running_loop().call_later(delay, callback)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class WorkQueue:
    """Keys to reconcile, de-duplicated, with delays and per-key backoff.

    One consumer protocol: ``key = await queue.get()`` (``None`` once shut
    down), reconcile, then ``queue.done(key)``, always, even on failure.
    """

    def __init__(
        self, *, clock: Clock | None = None, base_delay: float = BASE_DELAY, max_delay: float = MAX_DELAY
    ) -> None:
        self._clock: Clock = clock or LoopClock()
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._ready: collections.deque[str] = collections.deque()
        self._dirty: set[str] = set()
        self._processing: set[str] = set()
        self._waiting: dict[str, tuple[float, Handle]] = {}
        self._failures: dict[str, int] = {}
        self._getters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._shutting_down = False

    def __len__(self) -> int:
        """Keys ready to be handed out (not counting delayed or in-flight ones)."""
        return len(self._ready)

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    def waiting(self) -> int:
        """Keys waiting for a delay or a backoff to pass."""
        return len(self._waiting)

    def add(self, key: str) -> None:
        """Queue ``key`` now, unless it is already queued; a key in flight is queued after ``done``."""
        if self._shutting_down or key in self._dirty:
            return
        self._dirty.add(key)
        if key in self._processing:
            return
        self._ready.append(key)
        self._wake_one()

    def add_after(self, key: str, seconds: float) -> None:
        """Queue ``key`` after ``seconds``; an earlier pending delay for it wins."""
        if self._shutting_down:
            return
        if seconds <= 0:
            self.add(key)
            return
        due = self._clock.now() + seconds
        pending = self._waiting.get(key)
        if pending is not None:
            if pending[0] <= due:
                return
            pending[1].cancel()
        handle = self._clock.call_later(seconds, lambda: self._fire(key))
        self._waiting[key] = (due, handle)

    def add_rate_limited(self, key: str) -> float:
        """Queue ``key`` after its next backoff (1 s, 2 s, 4 s ... 30 s) and return that delay."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        delay = min(self._base_delay * 2.0 ** min(failures, 62), self._max_delay)
        self.add_after(key, delay)
        return delay

    def forget(self, key: str) -> None:
        """Reset ``key``'s backoff (after a successful reconcile)."""
        self._failures.pop(key, None)

    def requeues(self, key: str) -> int:
        """How many rate-limited adds ``key`` has had since it was last forgotten."""
        return self._failures.get(key, 0)

    async def get(self) -> str | None:
        """The next key to process, waiting for one; ``None`` once the queue is shut down."""
        while not self._ready:
            if self._shutting_down:
                return None
            getter = asyncio.get_running_loop().create_future()
            self._getters.append(getter)
            try:
                await getter
            except asyncio.CancelledError:
                if getter in self._getters:
                    self._getters.remove(getter)
                elif self._ready:  # it was woken for a key it will not take: pass the wake-up on
                    self._wake_one()
                raise
        if self._shutting_down:
            return None
        key = self._ready.popleft()
        self._processing.add(key)
        self._dirty.discard(key)
        return key

    def done(self, key: str) -> None:
        """Mark ``key`` processed; if it was added meanwhile, queue it again now."""
        self._processing.discard(key)
        if key in self._dirty and not self._shutting_down:
            self._ready.append(key)
            self._wake_one()

    def shutdown(self) -> None:
        """Stop handing out keys: waiting and later ``get`` calls return ``None``; timers are cancelled."""
        self._shutting_down = True
        for _, handle in self._waiting.values():
            handle.cancel()
        self._waiting.clear()
        while self._getters:
            getter = self._getters.popleft()
            if not getter.done():
                getter.set_result(None)

    def _fire(self, key: str) -> None:
        self._waiting.pop(key, None)
        self.add(key)

    def _wake_one(self) -> None:
        while self._getters:
            getter = self._getters.popleft()
            if not getter.done():
                getter.set_result(None)
                return
