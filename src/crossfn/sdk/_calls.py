"""Bounds on function calls that both servers share: how many, and for how long.

A server must not be wedged by its functions or its clients. Four things
see to that, each cheap on the fast path (a counter and a dict entry):

* :class:`Gate` counts calls in flight (running or waiting for a thread) and
  refuses one beyond the bound at once, so requests never pile up in memory;
  a burst of refused calls (each request received whole, up to the message
  limit, before it is refused) leaves the allocator holding hundreds of MB it
  does not give back by itself, so a second after the last refusal
  :func:`release_memory` hands the free memory back to the system;
* :func:`deadline` is when a call must end: the client's deadline, capped by
  the server's own limit;
* :class:`Expiry` cancels an asyncio call past its deadline, from one
  sweeping task rather than a timer per call (scheduling and cancelling a
  timer is a measurable share of a trivial call);
* :class:`Watchdog` interrupts a *sync* function that runs past its deadline.
  A thread cannot be killed in Python, but CPython can raise an exception in
  it (``PyThreadState_SetAsyncExc``) at its next bytecode: a function looping
  in Python (a runaway patch, a quantity with a huge exponent) stops there.
  One stuck inside a single C call stops when that call returns; until then
  it keeps its place in the :class:`Gate`, so it cannot multiply.

The exception raised, :class:`DeadlineExceeded`, derives from
``BaseException`` so that a function's own ``except Exception`` cannot
swallow it; the servers turn it into the ``DEADLINE_EXCEEDED`` status.
:func:`interrupt` is the primitive underneath, which the engine's in-process
runner also uses to stop a function whose caller timed out.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import logging
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["DeadlineExceeded", "Expiry", "Gate", "Watchdog", "deadline", "interrupt", "release_memory"]

_T = TypeVar("_T")

_log = logging.getLogger("crossfn.sdk.runtime")

_TICK_SECONDS = 0.05
"""How often the watchdog looks at the running calls: a deadline is kept to within this."""


class DeadlineExceeded(BaseException):
    """A call ran past its deadline (raised inside the function's thread by the watchdog)."""


def deadline(client_remaining: float | None, cap_seconds: float) -> float:
    """The monotonic time a call must end by: the client's deadline or the server's cap, whichever is first."""
    budget = cap_seconds if client_remaining is None else min(client_remaining, cap_seconds)
    return time.monotonic() + budget


class Gate:
    """Places for calls: :meth:`enter` takes one, or says no when all ``limit`` are taken.

    The places are tokens in a ``queue.SimpleQueue``, whose C implementation
    makes taking and giving back one a fraction of a microsecond, a fifth of
    a ``threading.Semaphore``'s cost.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._places: queue.SimpleQueue[None] = queue.SimpleQueue()
        for _ in range(limit):
            self._places.put(None)

    def enter(self) -> bool:
        """Take a place; False (and none taken) if there is none."""
        try:
            self._places.get_nowait()
        except queue.Empty:
            _AFTER_REFUSALS.refused()
            return False
        return True

    def leave(self) -> None:
        """Give back a place taken by :meth:`enter`."""
        self._places.put(None)
        if _AFTER_REFUSALS.pending and self._places.qsize() == self.limit:
            _AFTER_REFUSALS.idle()  # the last call of a burst ended: what it held is free now

    @property
    def in_flight(self) -> int:
        """Places taken now."""
        return self.limit - self._places.qsize()


def release_memory() -> bool:
    """Give the allocator's free memory back to the system (glibc's ``malloc_trim``); False where there
    is no such call (another C library), which keeps its own policy."""
    if _MALLOC_TRIM is None:
        return False
    _MALLOC_TRIM(0)
    return True


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


_MALLOC_TRIM = _malloc_trim()


class _AfterRefusals:
    """Calls :func:`release_memory` once refusals have stopped for ``quiet`` seconds (one timer at most),
    and again when the calls in flight during them have all ended."""

    def __init__(self, quiet: float = 1.0) -> None:
        self._quiet = quiet
        self._lock = threading.Lock()
        self._last = 0.0
        self._timer: threading.Timer | None = None
        self.pending = False
        """A refusal happened since the calls in flight last all ended."""
        self.releases = 0

    def idle(self) -> None:
        """No call in flight after refusals: release once more, off the caller's thread."""
        self.pending = False
        threading.Thread(target=self._release, daemon=True, name="crossfn-release-memory").start()

    def _release(self) -> None:
        # Refused calls leave cycles (an aborted call's exception, its traceback and the request it
        # holds) that only the cycle collector frees; collect them first, then give the memory back.
        gc.collect()
        release_memory()
        self.releases += 1

    def refused(self) -> None:
        self._last = time.monotonic()
        self.pending = True
        if self._timer is None:
            with self._lock:
                if self._timer is None:
                    self._arm(self._quiet)

    def _arm(self, delay: float) -> None:
        timer = threading.Timer(delay, self._fire)
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _fire(self) -> None:
        with self._lock:
            waited = time.monotonic() - self._last
            if waited < self._quiet:  # refused again meanwhile: the burst goes on
                self._arm(self._quiet - waited)
                return
            self._timer = None
        self._release()


_AFTER_REFUSALS = _AfterRefusals()


def interrupt(thread_id: int, exc: type[BaseException] | None = DeadlineExceeded) -> None:
    """Raise ``exc`` in a thread at its next bytecode; ``None`` withdraws one not raised yet."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None
    )


class Watchdog:
    """Interrupts sync function calls that run past their deadline (see the module docstring).

    One daemon thread, started on first use, looks every 50 ms at the calls
    registered by :meth:`run`. Registering is one dict entry keyed by thread,
    since a thread runs one call at a time. ``sweep(now)``, when given, is called
    on every look as well (the threaded server expires queued calls with it).
    """

    def __init__(self, sweep: Callable[[float], object] | None = None) -> None:
        self._deadlines: dict[int, float] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._sweep = sweep

    def run(self, due: float, fn: Callable[..., _T], *args: object) -> _T:
        """Call ``fn(*args)`` in this thread; raise :class:`DeadlineExceeded` if it runs past ``due``."""
        if self._thread is None:
            self.start()
        me = threading.get_ident()
        self._deadlines[me] = due
        try:
            out = fn(*args)
        finally:
            if self._deadlines.pop(me, None) is None:
                self._withdraw(me)
        return out

    def _withdraw(self, me: int) -> None:
        # The watchdog took this call off the list, so it has raised (or is raising) in
        # it. The lock waits for it to be done; whatever has not fired yet is withdrawn,
        # so nothing fires later in code that is not the function's.
        with self._lock:
            interrupt(me, None)
        raise DeadlineExceeded

    def start(self) -> None:
        """Start the watching thread, unless it runs already (:meth:`run` starts it too)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="crossfn-watchdog", daemon=True)
                self._thread.start()

    def _watch(self) -> None:
        while True:
            time.sleep(_TICK_SECONDS)
            now = time.monotonic()
            for thread_id, due in list(self._deadlines.items()):
                if due > now:
                    continue
                with self._lock:
                    if self._deadlines.pop(thread_id, None) is not None:
                        interrupt(thread_id)
            if self._sweep is not None:
                try:
                    self._sweep(now)
                except Exception:  # the watchdog must outlive anything a sweep meets
                    _log.exception("cannot sweep waiting calls")


class Expiry:
    """Cancels asyncio calls that run past their deadline (see the module docstring).

    A call registers its task; one sweeping task, alive while calls are, cancels
    those past due every 50 ms. The cancellation is told apart from gRPC's own
    (a client that went away) and becomes :class:`DeadlineExceeded`.
    """

    def __init__(self) -> None:
        self._deadlines: dict[asyncio.Task[Any], float] = {}
        self._expired: set[asyncio.Task[Any]] = set()
        self._sweeper: asyncio.Task[None] | None = None

    async def run(self, due: float, call: Awaitable[_T]) -> _T:
        """Await ``call``; raise :class:`DeadlineExceeded` if it runs past ``due``."""
        task = asyncio.current_task()
        if task is None:
            return await call
        self._deadlines[task] = due
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.ensure_future(self._sweep())
        try:
            return await call
        except asyncio.CancelledError:
            if task not in self._expired:
                raise
            self._expired.discard(task)
            task.uncancel()
            raise DeadlineExceeded from None
        finally:
            self._deadlines.pop(task, None)

    async def _sweep(self) -> None:
        while self._deadlines:
            await asyncio.sleep(_TICK_SECONDS)
            now = time.monotonic()
            for task, due in list(self._deadlines.items()):
                if due <= now and self._deadlines.pop(task, None) is not None:
                    self._expired.add(task)
                    task.cancel()
