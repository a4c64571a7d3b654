"""Serve one function from several processes on one port.

One asyncio loop uses one core. A CPU-bound function (templating, Starlark,
big patch sets) scales by running N independent servers that all bind the same
port with SO_REUSEPORT; the kernel spreads incoming *connections* across them.

The supervisor (this module, in the parent process) starts the workers with
the ``spawn`` method (a fresh interpreter each: forking a process that has
touched gRPC is unsafe), forwards SIGTERM/SIGINT to them, and exits when they
have all stopped. If one worker dies the others are stopped too, so the
container restarts as a whole rather than running short of capacity unnoticed.

Metrics: Prometheus multiprocess mode. The parent points
``PROMETHEUS_MULTIPROC_DIR`` at a fresh directory before spawning, each worker
writes its samples there, and the parent serves their sum on the metrics
address.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import time
import types
from collections.abc import Sequence

from crossfn import errors
from crossfn.sdk import _services, metrics, runtime, settings

__all__ = ["supervise"]

_MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _worker_main(fn: object | str, config: settings.ServerSettings) -> None:
    try:
        runtime.serve_worker(fn, config, worker=True)
    except errors.CrossfnError as exc:
        # One line, as the CLI prints it, instead of multiprocessing's traceback; the supervisor
        # then stops the others and says which worker ended.
        print(f"crossfn: error: {exc}", file=sys.stderr)
        sys.exit(1)


def supervise(fn: object | str, config: settings.ServerSettings) -> None:
    """Run ``config.process.workers`` servers for ``fn`` and wait for them all to stop."""
    if config.listen.address.rpartition(":")[2] == "0":
        raise errors.InputError("cannot serve with several workers on port 0: give a fixed port in --address")
    # A busy port is one line from here, before any worker starts (each would fail alike).
    _services.check_free(config.listen.address, reuse_port=True)
    metrics_dir = None
    if config.observability.metrics_address:
        metrics_dir = tempfile.mkdtemp(prefix="crossfn-metrics-")
        os.environ[_MULTIPROC_ENV] = metrics_dir
    ctx = multiprocessing.get_context("spawn")
    procs = [
        ctx.Process(target=_worker_main, args=(fn, config), name=f"crossfn-worker-{i}", daemon=False)
        for i in range(config.process.workers)
    ]
    try:
        for p in procs:
            p.start()
        if metrics_dir is not None and config.observability.metrics_address:
            try:
                metrics.serve_multiprocess(config.observability.metrics_address, metrics_dir)
            except (ValueError, OSError) as exc:
                _stop(procs)
                raise errors.InputError(
                    f"cannot serve metrics on {config.observability.metrics_address}: {exc}"
                ) from exc
        _wait(procs, config.process.grace_period_seconds)
    finally:
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _stop(procs: Sequence[multiprocessing.process.BaseProcess]) -> None:
    for p in procs:
        if p.is_alive() and p.pid is not None:
            os.kill(p.pid, signal.SIGTERM)
    for p in procs:
        p.join()


def _wait(procs: Sequence[multiprocessing.process.BaseProcess], grace: float) -> None:
    """Forward stop signals to the workers; stop all when one ends; kill stragglers after the grace."""

    def forward(signum: int, frame: types.FrameType | None) -> None:
        for p in procs:
            if p.is_alive() and p.pid is not None:
                os.kill(p.pid, signal.SIGTERM)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        multiprocessing.connection.wait([p.sentinel for p in procs])
        forward(signal.SIGTERM, None)
        # Each worker ends itself within the grace period (it exits even with stuck
        # calls); one that does not is killed, so the whole stop stays within grace + 1 s.
        deadline = time.monotonic() + grace + 1
        for p in procs:
            p.join(max(deadline - time.monotonic(), 0))
            if p.is_alive():
                p.kill()
                p.join()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    failed = [p for p in procs if p.exitcode not in (0, -signal.SIGTERM)]
    if failed:
        raise errors.FunctionRunError(
            f"cannot keep serving: worker {failed[0].name} exited with status {failed[0].exitcode}"
        )
