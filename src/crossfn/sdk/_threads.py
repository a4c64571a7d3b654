"""The threaded server's function threads: a few threads, one queue, calls admitted as they arrive.

gRPC's thread-pool server takes each call on its polling thread and hands it to
a thread pool, one thread per call in flight. A method whose behaviour carries
an ``experimental_thread_pool`` attribute (a ``ThreadPoolExecutor``) is handed
to that pool instead. RunFunction is handed to :class:`FunctionThreads`:
``threads`` threads taking calls from one queue. A thread that finds the next
call waiting goes straight on to it, so a busy server does not wake a thread,
park it behind a semaphore and wake it again for every call, which cost more
CPU per call than a trivial function itself (``benchmarks/function_server.py``).
Health checks and reflection keep gRPC's own pool, so they never queue behind
function calls.

Calls are admitted on gRPC's polling thread as they arrive (:meth:`submit`):

* a call beyond the :class:`~crossfn.sdk._calls.Gate`'s bound is refused: it
  runs on gRPC's pool, where :meth:`FunctionThreads.ticket` tells the server to
  end it with RESOURCE_EXHAUSTED, without waiting for a function thread;
* an admitted call is due by the server's cap on call time, counted from its
  arrival (the client's own deadline is gRPC's to enforce while it waits, and
  the server's when it runs). A call still queued when it is due is taken out
  of the queue by the watchdog and ended with DEADLINE_EXCEEDED on gRPC's pool.

Each call's :class:`Ticket` is what the server reads while running it.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from crossfn.sdk import _calls

__all__ = ["FunctionThreads", "Ticket"]

_log = logging.getLogger("crossfn.sdk.runtime")


class Ticket:
    """One call handed to :class:`FunctionThreads`: gRPC's work, when it is due, and how it was admitted.

    gRPC keeps the object :meth:`FunctionThreads.submit` returns only to learn
    when the call is done (``add_done_callback``); a ``Future`` would cost a
    condition variable per call for that.
    """

    __slots__ = ("_callbacks", "_done", "admitted", "args", "due", "expired", "fn", "holds_place")

    def __init__(
        self, fn: Callable[..., object], args: tuple[object, ...], due: float, *, admitted: bool
    ) -> None:
        self.fn, self.args, self.due, self.admitted = fn, args, due, admitted
        self.holds_place = admitted
        self.expired = False
        self._callbacks: list[Callable[[Ticket], object]] = []
        self._done = False

    def add_done_callback(self, callback: Callable[[Ticket], object]) -> None:
        """Call ``callback(self)`` once the call is done: now, if it already is."""
        with _DONE_LOCK:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def _finish(self) -> None:
        with _DONE_LOCK:
            self._done = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback(self)
            except Exception:
                _log.exception("a call's done callback raised")


_DONE_LOCK = threading.Lock()
"""Orders a ticket's ``add_done_callback`` (gRPC's polling thread) against its end (a function thread)."""


class FunctionThreads(concurrent.futures.ThreadPoolExecutor):
    """``threads`` threads calling the function, fed from one queue (see the module docstring).

    A ``ThreadPoolExecutor`` by type only, since that is what gRPC accepts as a
    method's pool; it uses none of the base class's machinery. ``spare`` is
    gRPC's own pool, which runs refused and expired calls.
    """

    def __init__(
        self, threads: int, gate: _calls.Gate, cap_seconds: float, spare: concurrent.futures.Executor
    ) -> None:
        super().__init__(max_workers=1)  # never given work: it starts no thread
        self._count, self._gate, self._cap, self._spare = threads, gate, cap_seconds, spare
        self._queue: queue.SimpleQueue[Ticket] = queue.SimpleQueue()
        self._queued: dict[Ticket, None] = {}
        self._local = threading.local()
        self._started = False
        self._start_lock = threading.Lock()
        self.watchdog = _calls.Watchdog(self._expire_queued)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Admit or refuse a call as gRPC hands it over, on gRPC's polling thread (module docstring)."""
        if kwargs:
            raise TypeError("FunctionThreads.submit takes positional arguments only")
        if not self._started:
            self._start()
        if not self._gate.enter():
            ticket = Ticket(fn, args, 0.0, admitted=False)
            self._spare.submit(self._run, ticket)
            return ticket
        ticket = Ticket(fn, args, time.monotonic() + self._cap, admitted=True)
        self._queued[ticket] = None
        self._queue.put(ticket)
        return ticket

    def release(self, ticket: Ticket) -> None:
        """Give back the place ``ticket`` holds in the gate, if it still holds one.

        The server releases it as the function's call ends, before gRPC sends the
        answer, so a server that has answered every call has no place taken; this
        pool releases it after gRPC's work, for a call that never reached the function.
        """
        if ticket.holds_place:
            ticket.holds_place = False
            self._gate.leave()

    def ticket(self) -> Ticket | None:
        """The ticket of the call this thread is running; ``None`` when gRPC ran it elsewhere."""
        ticket: Ticket | None = getattr(self._local, "ticket", None)
        return ticket

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to shut down: the function threads are daemons, idle between calls."""

    def _start(self) -> None:
        with self._start_lock:
            if self._started:
                return
            for i in range(self._count):
                threading.Thread(target=self._work, name=f"crossfn-fn_{i}", daemon=True).start()
            self.watchdog.start()
            self._started = True

    def _work(self) -> None:
        while True:
            ticket = self._queue.get()
            if self._claim(ticket):  # else the watchdog took it: it expired
                self._run(ticket)

    def _run(self, ticket: Ticket) -> None:
        self._local.ticket = ticket
        try:
            ticket.fn(*ticket.args)
        except BaseException:  # gRPC's own code reports what its calls raise; none may end this thread
            _log.exception("a function call escaped gRPC's handling")
        finally:
            self._local.ticket = None
            self.release(ticket)
            ticket._finish()

    def _claim(self, ticket: Ticket) -> bool:
        """Take ``ticket`` off the queued calls; False if the other taker (a thread, the watchdog) has."""
        return self._queued.pop(ticket, _GONE) is not _GONE

    def _expire_queued(self, now: float) -> None:
        """The watchdog's sweep: calls still queued when due leave the queue for gRPC's pool."""
        for ticket in list(self._queued):  # a copy: the dict changes under other threads
            if ticket.due <= now and self._claim(ticket):
                ticket.expired = True
                self._spare.submit(self._run, ticket)


_GONE = object()
