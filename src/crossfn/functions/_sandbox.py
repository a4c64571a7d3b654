"""Reusable worker processes that run a built-in's user code (a KCL program), each killable.

Why processes: a KCL program is user code run by a native runtime that has no
cancellation hook. A runaway comprehension never returns, unbounded recursion
overflows the stack and kills the process (SIGSEGV), and a huge allocation
aborts it (SIGABRT). In a child process all three are contained: the child has
an address-space limit (``RLIMIT_AS``), the parent kills it at a hard deadline,
and a crash costs one worker, never the caller.

A worker is ``python -I <worker file> <args...>``: it reads one JSON job per
stdin line and writes one JSON reply per stdout line. Workers start on first
use, are reused across calls, and are replaced when one is killed or dies. At
most ``size`` jobs run at once; further calls wait.

:meth:`Pool.run` is a coroutine that waits on the pipe in a thread. When the
caller is cancelled (render's ``--timeout``, a controller shutting down), the
worker running the job is killed at once, so nothing outlives the caller: the
thread's wait ends with the pipe, and a job still queued never starts.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from crossfn import errors

__all__ = ["Pool", "SandboxDiedError", "SandboxError", "SandboxTimeoutError"]


class SandboxError(errors.CrossfnError):
    """The worker process could not be started or reached; the message is one line."""


class SandboxTimeoutError(SandboxError):
    """The worker overran its hard deadline and was killed."""


class SandboxDiedError(SandboxError):
    """The worker process died during a job: ``signal`` is what killed it (0 when it exited)."""

    def __init__(self, message: str, *, signal: int, status: int) -> None:
        super().__init__(message)
        self.signal = signal
        self.status = status


class _CancelledError(SandboxError):
    """The caller gave up before its job ran; never seen by the caller, whose await was cancelled."""


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, argv: Sequence[str]) -> None:
        self._proc = subprocess.Popen(  # our own interpreter and file, no shell
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        self._buf = bytearray()

    def _stdin(self) -> IO[bytes]:
        assert self._proc.stdin is not None  # PIPE was requested above
        return self._proc.stdin

    def _stdout(self) -> IO[bytes]:
        assert self._proc.stdout is not None  # PIPE was requested above
        return self._proc.stdout

    def call(self, line: bytes, deadline: float) -> dict[str, Any]:
        """Send one job line and wait for its reply until ``deadline`` (monotonic seconds)."""
        try:
            self._stdin().write(line)
        except OSError as exc:  # BrokenPipeError included: the worker died before reading
            raise self._death() from exc
        fd = self._stdout().fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not sel.select(remaining):
                    raise SandboxTimeoutError("the worker process overran its hard deadline")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._death()
                self._buf += chunk
        reply, _, rest = self._buf.partition(b"\n")
        self._buf = bytearray(rest)
        decoded: dict[str, Any] = json.loads(reply)
        return decoded

    def _death(self) -> SandboxDiedError:
        code = self._proc.wait()
        if code < 0:
            return SandboxDiedError(
                f"the worker process was killed by signal {-code} ({signal.Signals(-code).name})",
                signal=-code,
                status=code,
            )
        return SandboxDiedError(f"the worker process exited with status {code}", signal=0, status=code)

    def alive(self) -> bool:
        """Whether the process is still running (an idle one may have been killed from outside)."""
        return self._proc.poll() is None

    def kill(self) -> None:
        """Kill the process; its pipes stay open until :meth:`close`. Safe from any thread."""
        with contextlib.suppress(ProcessLookupError):
            self._proc.kill()

    def close(self) -> None:
        """Kill the process and release its pipes."""
        if self._proc.poll() is None:
            self.kill()
        self._proc.wait()
        self._stdin().close()
        self._stdout().close()


class _Ticket:
    """One job's link between the awaiting coroutine and the thread that runs it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._worker: _Worker | None = None

    def attach(self, worker: _Worker) -> bool:
        """Record the job's worker; False when the caller has already given up."""
        with self._lock:
            if self._cancelled:
                return False
            self._worker = worker
            return True

    def cancel(self) -> None:
        """The caller gave up: kill the job's worker, or keep the job from starting."""
        with self._lock:
            self._cancelled = True
            worker = self._worker
        if worker is not None:
            worker.kill()

    @property
    def cancelled(self) -> bool:
        with self._lock:
            return self._cancelled


class Pool:
    """Up to ``size`` reusable worker processes running ``python -I <worker> <args...>``."""

    def __init__(self, *, worker: Path, args: Sequence[str] = (), size: int) -> None:
        self._argv = [sys.executable, "-I", str(worker), *args]
        self._slots = threading.BoundedSemaphore(size)
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False
        atexit.register(self.close)

    async def run(self, job: dict[str, Any], *, hard_timeout: float) -> dict[str, Any]:
        """Run one job in a free worker and return its reply; the worker is killed past ``hard_timeout`` seconds.

        Raises :class:`SandboxTimeoutError`, :class:`SandboxDiedError` or
        :class:`SandboxError`. Cancelling the caller kills the job's worker.
        """
        line = json.dumps(job, separators=(",", ":")).encode() + b"\n"
        ticket = _Ticket()
        try:
            return await asyncio.to_thread(self._run, line, hard_timeout, ticket)
        except asyncio.CancelledError:
            ticket.cancel()
            raise

    def _run(self, line: bytes, hard_timeout: float, ticket: _Ticket) -> dict[str, Any]:
        deadline = time.monotonic() + hard_timeout
        while not self._slots.acquire(timeout=0.05):
            if ticket.cancelled:
                raise _CancelledError("cancelled")
            if time.monotonic() > deadline:
                raise SandboxTimeoutError("no worker process became free before the hard deadline")
        try:
            worker = self._take()
            if not ticket.attach(worker):
                worker.close()
                raise _CancelledError("cancelled")
            try:
                reply = worker.call(line, deadline)
            except BaseException:
                # Whatever went wrong, this process may be mid-job: never reuse it.
                worker.close()
                raise
            with self._lock:
                if self._closed:
                    worker.close()
                else:
                    self._idle.put(worker)
            return reply
        finally:
            self._slots.release()

    def _take(self) -> _Worker:
        while True:
            try:
                worker = self._idle.get_nowait()
            except queue.Empty:
                try:
                    return _Worker(self._argv)
                except OSError as exc:
                    raise SandboxError(f"cannot start the worker process: {exc}") from exc
            if worker.alive():
                return worker
            worker.close()

    def close(self) -> None:
        """Stop every idle worker; jobs still running stop their own worker when done."""
        with self._lock:
            self._closed = True
            while True:
                try:
                    self._idle.get_nowait().close()
                except queue.Empty:
                    break
        atexit.unregister(self.close)
