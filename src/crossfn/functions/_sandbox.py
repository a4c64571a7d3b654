"""A small pool of sandbox processes that run user scripts (Starlark, Python), each killable.

Why processes: starlark-pyo3 evaluates in Rust while holding the GIL, and a
Python script is arbitrary code. A cancellation hook stops loops, but one
builtin call (``"a" * 10**9``, ``sorted`` of a huge list) runs to the end
without asking, and memory use is unbounded. In a child process both are
contained: the child has an address space limit, and the parent kills it at
a hard deadline. The server thread that waits here blocks on a pipe, not on
the GIL, so other requests go on.

Each built-in gives its own worker file (``crossfn.functions.starlark._worker``,
``crossfn.functions.python._worker``), run as ``python -I <worker> <memory
limit>``: one JSON job a stdin line, one JSON reply a stdout line. Workers are
started on first use, reused across calls, and replaced when one is killed or
dies. At most ``size`` scripts run at once; further calls wait. A built-in
makes its pool when it is made (that starts nothing) and closes it in its own
``close``; a pool runs again after :meth:`Pool.close`, with new workers.

:meth:`Pool.run` blocks its thread; :meth:`Pool.run_async` (function-kcl's
way) waits in a thread too, and when its caller is cancelled (render's
``--timeout``, a controller shutting down) the worker running the job is
killed at once, so nothing outlives the caller: the thread's wait ends with
the pipe, and a job still queued never starts.

A pool made with ``readable`` starts its workers through
:mod:`crossfn.functions._landlock`: each may then read only the interpreter's
files and ``readable``, write nothing and reach no TCP socket. Where the kernel
cannot confine a worker, a pool that ``requires`` it (the controller's:
:mod:`crossfn.functions._files`) fails every job with :class:`SandboxError`
saying why, and never runs unconfined; another runs the worker as it is.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import queue
import selectors
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
    """The sandbox process died or could not be reached; the message is one line."""


class SandboxTimeoutError(SandboxError):
    """The sandbox process overran its hard deadline and was killed."""


class SandboxDiedError(SandboxError):
    """The sandbox process died during a job: ``signal`` is what killed it (0 when it exited)."""

    def __init__(self, message: str, *, signal: int) -> None:
        super().__init__(message)
        self.signal = signal


class _CancelledError(SandboxError):
    """The caller gave up before its job ran; never seen by the caller, whose await was cancelled."""


_LANDLOCK = Path(__file__).with_name("_landlock.py")


class _Worker:
    """One sandbox process and its pipes; confined to reading ``readable`` when that is not ``None``."""

    def __init__(
        self, worker: Path, memory_limit: int, readable: Sequence[str] | None = None, *, required: bool = True
    ) -> None:
        self._memory_limit = memory_limit
        argv = [sys.executable, "-I", str(worker), str(memory_limit)]
        if readable is not None:
            policy = {"readable": list(readable), "required": required}
            argv[2:2] = [str(_LANDLOCK), json.dumps(policy)]
        self._proc = subprocess.Popen(  # our own interpreter and files, no shell
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
            env=None
            if readable is None
            else {},  # a confined program reads nothing of ours, environment included
        )
        self._buf = bytearray()

    def _stdin(self) -> IO[bytes]:
        assert self._proc.stdin is not None  # PIPE was requested above
        return self._proc.stdin

    def _stdout(self) -> IO[bytes]:
        assert self._proc.stdout is not None  # PIPE was requested above
        return self._proc.stdout

    def call(self, job: dict[str, Any], deadline: float) -> dict[str, Any]:
        """Send one job and wait for its reply until ``deadline`` (monotonic seconds)."""
        try:
            self._stdin().write(json.dumps(job, separators=(",", ":")).encode() + b"\n")
        except (BrokenPipeError, OSError) as exc:
            raise SandboxError("the script sandbox process exited unexpectedly") from exc
        fd = self._stdout().fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not sel.select(remaining):
                    raise SandboxTimeoutError("the script sandbox process overran its hard deadline")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    message = self._death()
                    raise SandboxDiedError(message, signal=max(0, -(self._proc.returncode or 0)))
                self._buf += chunk
        line, _, rest = self._buf.partition(b"\n")
        self._buf = bytearray(rest)
        reply: dict[str, Any] = json.loads(line)
        if "sandbox_error" in reply:  # the process could not be confined, and has ended
            raise SandboxError(str(reply["sandbox_error"]))
        return reply

    def _death(self) -> str:
        code = self._proc.wait()
        # An allocation over RLIMIT_AS aborts Rust code (SIGABRT) or kills the process.
        if code < 0:
            return (
                f"script exceeded its memory limit of {self._memory_limit >> 20} MiB "
                f"(its sandbox process was killed by signal {-code})"
            )
        return f"the script sandbox process exited with status {code}"

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
    """One job's link between an awaiting coroutine and the thread that runs the job."""

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
    """Up to ``size`` reusable sandbox processes running ``worker``, confined to reading ``readable`` (and the
    interpreter's own files) when it is not ``None``: always when ``required``, else where the kernel can."""

    def __init__(
        self,
        worker: Path,
        *,
        size: int,
        memory_limit: int,
        readable: Sequence[str] | None = None,
        required: bool = True,
    ) -> None:
        self._worker = worker
        self._memory_limit = memory_limit
        self._readable = None if readable is None else tuple(readable)
        self._required = required
        self._slots = threading.BoundedSemaphore(size)
        self._idle: queue.SimpleQueue[tuple[_Worker, int]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._generation = 0
        """Bumped by :meth:`close`: a worker of an earlier generation is stopped when its job ends."""
        self._at_exit = False

    def run(self, job: dict[str, Any], *, hard_timeout: float) -> dict[str, Any]:
        """Run one job in a free worker; kill the worker if it overruns ``hard_timeout`` seconds."""
        return self._run(job, hard_timeout, None)

    async def run_async(self, job: dict[str, Any], *, hard_timeout: float) -> dict[str, Any]:
        """:meth:`run` for a coroutine: cancelling the caller kills the job's worker (or keeps it from starting)."""
        ticket = _Ticket()
        try:
            return await asyncio.to_thread(self._run, job, hard_timeout, ticket)
        except asyncio.CancelledError:
            ticket.cancel()
            raise

    def _slot(self, deadline: float, ticket: _Ticket | None) -> None:
        if ticket is None:
            self._slots.acquire()
            return
        while not self._slots.acquire(timeout=0.05):
            if ticket.cancelled:
                raise _CancelledError("cancelled")
            if time.monotonic() > deadline:
                raise SandboxTimeoutError("no sandbox process became free before the hard deadline")

    def _run(self, job: dict[str, Any], hard_timeout: float, ticket: _Ticket | None) -> dict[str, Any]:
        deadline = time.monotonic() + hard_timeout
        self._slot(deadline, ticket)
        try:
            worker, generation = self._take()
            if ticket is not None and not ticket.attach(worker):
                worker.close()
                raise _CancelledError("cancelled")
            try:
                reply = worker.call(job, deadline)
            except BaseException:
                # Whatever went wrong, this process may be mid-job: never reuse it.
                worker.close()
                raise
            with self._lock:
                if generation != self._generation:
                    worker.close()
                else:
                    self._idle.put((worker, generation))
            return reply
        finally:
            self._slots.release()

    def _take(self) -> tuple[_Worker, int]:
        while True:
            try:
                worker, generation = self._idle.get_nowait()
            except queue.Empty:
                return self._start()
            if worker.alive():
                return worker, generation
            worker.close()

    def _start(self) -> tuple[_Worker, int]:
        with self._lock:
            generation = self._generation
            if not self._at_exit:
                atexit.register(self.close)
                self._at_exit = True
        try:
            return _Worker(
                self._worker, self._memory_limit, self._readable, required=self._required
            ), generation
        except OSError as exc:
            raise SandboxError(f"cannot start the script sandbox process: {exc}") from exc

    def close(self) -> None:
        """Stop every idle worker (calls still running stop their own worker when done); a later call starts new ones."""
        with self._lock:
            self._generation += 1
            while True:
                try:
                    self._idle.get_nowait()[0].close()
                except queue.Empty:
                    break
            if self._at_exit:
                atexit.unregister(self.close)
                self._at_exit = False
