"""A clock for the controller runtime's unit tests: time moves only when the test says so."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable


class FakeHandle:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """Implements ``_queue.Clock``; :meth:`advance` fires due timers in order and wakes sleepers."""

    def __init__(self) -> None:
        self.time = 0.0
        self.sleeps: list[float] = []
        self._timers: list[tuple[float, int, Callable[[], None], FakeHandle]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self.time

    def call_later(self, delay: float, callback: Callable[[], None]) -> FakeHandle:
        handle = FakeHandle()
        heapq.heappush(self._timers, (self.time + delay, next(self._seq), callback, handle))
        return handle

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        self.call_later(seconds, wake)
        await future

    def pending(self) -> list[float]:
        """Due times of the timers not yet fired or cancelled."""
        return sorted(due for due, _, _, handle in self._timers if not handle.cancelled)

    def advance(self, seconds: float) -> None:
        target = self.time + seconds
        while self._timers and self._timers[0][0] <= target:
            due, _, callback, handle = heapq.heappop(self._timers)
            self.time = due
            if not handle.cancelled:
                callback()
        self.time = target
