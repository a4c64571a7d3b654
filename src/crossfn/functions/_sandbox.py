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
dies. At most ``size`` scripts run at once; further calls wait.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import selectors
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from crossfn import errors

__all__ = ["Pool", "SandboxError", "SandboxTimeoutError"]


class SandboxError(errors.CrossfnError):
    """The sandbox process died or could not be reached; the message is one line."""


class SandboxTimeoutError(SandboxError):
    """The sandbox process overran its hard deadline and was killed."""


class _Worker:
    """One sandbox process and its pipes."""

    def __init__(self, worker: Path, memory_limit: int) -> None:
        self._memory_limit = memory_limit
        self._proc = subprocess.Popen(  # our own interpreter and file, no shell
            [sys.executable, "-I", str(worker), str(memory_limit)],
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
                    raise SandboxError(self._death())
                self._buf += chunk
        line, _, rest = self._buf.partition(b"\n")
        self._buf = bytearray(rest)
        reply: dict[str, Any] = json.loads(line)
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

    def close(self) -> None:
        """Kill the process and release its pipes."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._stdin().close()
        self._stdout().close()


class Pool:
    """Up to ``size`` reusable sandbox processes running ``worker``."""

    def __init__(self, worker: Path, *, size: int, memory_limit: int) -> None:
        self._worker = worker
        self._memory_limit = memory_limit
        self._slots = threading.BoundedSemaphore(size)
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False
        atexit.register(self.close)

    def run(self, job: dict[str, Any], *, hard_timeout: float) -> dict[str, Any]:
        """Run one job in a free worker; kill the worker if it overruns ``hard_timeout`` seconds."""
        with self._slots:
            worker = self._take()
            try:
                reply = worker.call(job, time.monotonic() + hard_timeout)
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

    def _take(self) -> _Worker:
        while True:
            try:
                worker = self._idle.get_nowait()
            except queue.Empty:
                try:
                    return _Worker(self._worker, self._memory_limit)
                except OSError as exc:
                    raise SandboxError(f"cannot start the script sandbox process: {exc}") from exc
            if worker.alive():
                return worker
            worker.close()

    def close(self) -> None:
        """Stop every idle worker; calls still running stop their own worker when done."""
        with self._lock:
            self._closed = True
            while True:
                try:
                    self._idle.get_nowait().close()
                except queue.Empty:
                    break
        atexit.unregister(self.close)
