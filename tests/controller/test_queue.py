"""The work queue: de-duplication, delays, per-key backoff and shutdown (client-go's semantics)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from crossfn.controller.runtime import _queue

from .fake_clock import FakeClock


def new_queue() -> tuple[_queue.WorkQueue, FakeClock]:
    clock = FakeClock()
    return _queue.WorkQueue(clock=clock), clock


async def take(queue: _queue.WorkQueue) -> str | None:
    return await asyncio.wait_for(queue.get(), 1)


Step = Callable[[_queue.WorkQueue, FakeClock], None]


@pytest.mark.parametrize(
    ("steps", "want_ready", "reason"),
    [
        pytest.param(
            [lambda q, c: q.add("a"), lambda q, c: q.add("a"), lambda q, c: q.add("b")],
            ["a", "b"],
            "a key added twice before it is taken is queued once, in first-add order",
            id="DuplicateAddIsIgnored",
        ),
        pytest.param(
            [lambda q, c: q.add_after("a", 5), lambda q, c: c.advance(4.9)],
            [],
            "a delayed key is not ready before its delay",
            id="DelayedKeyWaits",
        ),
        pytest.param(
            [lambda q, c: q.add_after("a", 5), lambda q, c: c.advance(5)],
            ["a"],
            "a delayed key is ready once its delay has passed",
            id="DelayedKeyArrives",
        ),
        pytest.param(
            [lambda q, c: q.add_after("a", 10), lambda q, c: q.add_after("a", 2), lambda q, c: c.advance(2)],
            ["a"],
            "the earlier of two delays for one key wins",
            id="EarlierDelayWins",
        ),
        pytest.param(
            [lambda q, c: q.add_after("a", 2), lambda q, c: q.add_after("a", 10), lambda q, c: c.advance(2)],
            ["a"],
            "a later delay does not postpone an earlier one",
            id="LaterDelayDoesNotPostpone",
        ),
        pytest.param(
            [lambda q, c: q.add_after("a", 0)],
            ["a"],
            "a zero delay is an immediate add",
            id="ZeroDelayIsImmediate",
        ),
        pytest.param(
            [lambda q, c: q.add("a"), lambda q, c: q.add_after("a", 1), lambda q, c: c.advance(1)],
            ["a"],
            "a delayed add of a key already queued does not queue it twice",
            id="DelayedAddOfQueuedKeyDeduplicated",
        ),
        pytest.param(
            [lambda q, c: q.add_after("a", 1), lambda q, c: q.shutdown(), lambda q, c: c.advance(5)],
            [],
            "shutdown cancels pending delays",
            id="ShutdownCancelsDelays",
        ),
        pytest.param(
            [lambda q, c: q.shutdown(), lambda q, c: q.add("a")],
            [],
            "nothing is queued after shutdown",
            id="NoAddAfterShutdown",
        ),
    ],
)
def test_add(steps: list[Step], want_ready: list[str], reason: str) -> None:
    queue, clock = new_queue()
    for step in steps:
        step(queue, clock)
    assert list(queue._ready) == want_ready, reason


async def test_key_added_while_processing_is_requeued_after_done() -> None:
    """A key is never handed to two workers; an add during processing queues it again at done."""
    queue, _ = new_queue()
    queue.add("a")
    assert await take(queue) == "a"
    queue.add("a")
    queue.add("a")
    assert len(queue) == 0, "a key in flight must not be handed out again"
    queue.done("a")
    assert len(queue) == 1, "done re-queues a key added while in flight, once"
    assert await take(queue) == "a"
    queue.done("a")
    assert len(queue) == 0, "a key not added again is not re-queued"


def test_backoff_sequence() -> None:
    """Rate-limited adds wait 1, 2, 4, 8, 16 then 30 s (capped), per key, until forget resets them."""
    queue, clock = new_queue()
    delays = [queue.add_rate_limited("a") for _ in range(8)]
    assert delays == [1, 2, 4, 8, 16, 30, 30, 30]
    assert queue.add_rate_limited("b") == 1, "backoff is per key"
    assert queue.requeues("a") == 8
    queue.forget("a")
    assert queue.add_rate_limited("a") == 1, "forget resets the key's backoff"
    assert clock.pending()[0] == 1.0


async def test_rate_limited_key_arrives_after_its_backoff() -> None:
    """The backoff is a real delay on the injected clock."""
    queue, clock = new_queue()
    queue.add_rate_limited("a")
    queue.add_rate_limited("a")  # second failure: 2 s, but the first (1 s) is earlier and wins
    clock.advance(0.99)
    assert len(queue) == 0
    clock.advance(0.01)
    assert await take(queue) == "a"


async def test_get_waits_for_an_add() -> None:
    """A worker waiting on an empty queue is woken by the next add."""
    queue, _ = new_queue()
    waiter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    assert not waiter.done()
    queue.add("a")
    assert await asyncio.wait_for(waiter, 1) == "a"


async def test_cancelled_getter_passes_its_wake_up_on() -> None:
    """A getter cancelled after being woken must not swallow the key's wake-up."""
    queue, _ = new_queue()
    first = asyncio.create_task(queue.get())
    second = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.add("a")  # wakes `first`
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    assert await asyncio.wait_for(second, 1) == "a"


async def test_shutdown_releases_waiting_getters() -> None:
    """Workers blocked in get return None at shutdown, and later gets return None at once."""
    queue, _ = new_queue()
    waiter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.add("a")
    queue.shutdown()
    assert await asyncio.wait_for(waiter, 1) is None
    assert await take(queue) is None, "a queued key is not handed out after shutdown"
