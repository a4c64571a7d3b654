"""The in-process runner's workers: off the caller's loop, abandoned on timeout, side by side, gone when idle."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from crossfn import engine
from crossfn.engine import _inprocess
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response


def _workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "crossfn-in-process"]


async def test_a_runaway_function_is_interrupted_and_the_runner_goes_on() -> None:
    """A timeout around the call holds although the function never yields; the next call gets a fresh worker."""

    def runaway(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        if req.meta.tag == "loop":
            while True:
                pass
        response.normal(rsp, "fine")

    runner = engine.InProcessRunner({"fn": runaway})
    # The function never returns by itself: a TimeoutError at all means the timeout held (a run that
    # hangs fails on pytest's timeout).
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await runner.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="loop")))
    rsp = await runner.run_function("fn", fnv1.RunFunctionRequest())
    assert [r.message for r in rsp.results] == ["fine"]


async def test_concurrent_calls_run_side_by_side() -> None:
    """Two pipelines sharing a runner are not serialised on one worker: both reach the barrier."""
    barrier = threading.Barrier(2, timeout=5)

    def meet(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        barrier.wait()

    runner = engine.InProcessRunner({"fn": meet})
    rsps = await asyncio.gather(*(runner.run_function("fn", fnv1.RunFunctionRequest()) for _ in range(2)))
    assert [list(r.results) for r in rsps] == [[], []]


async def test_idle_workers_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """A runner that is done with (one per render) leaves no thread behind."""
    monkeypatch.setattr(_inprocess, "_IDLE_SECONDS", 0.1)
    before = set(_workers())
    runner = engine.InProcessRunner({"fn": lambda req, rsp: None})
    await runner.run_function("fn", fnv1.RunFunctionRequest())
    ours = set(_workers()) - before
    assert ours, "the call ran on a worker thread"
    deadline = time.monotonic() + 5
    while any(t.is_alive() for t in ours) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not any(t.is_alive() for t in ours)
    await runner.run_function("fn", fnv1.RunFunctionRequest())  # an ended worker is replaced


def _where(rsp: fnv1.RunFunctionResponse, on_loop: asyncio.AbstractEventLoop | None) -> None:
    loop = "none" if on_loop is None else str(id(on_loop))
    response.normal(rsp, f"{threading.get_ident()} {loop}")


def _sync_fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    _where(rsp, running)


async def _async_fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    await asyncio.sleep(0)
    _where(rsp, asyncio.get_running_loop())


@pytest.mark.parametrize(
    ("fn", "want_loop", "reason"),
    [
        pytest.param(_sync_fn, False, "a sync function is called straight from the worker thread", id="sync"),
        pytest.param(_async_fn, True, "an async function runs on the worker's own event loop", id="async"),
    ],
)
async def test_functions_run_on_a_worker_thread(fn: object, want_loop: bool, reason: str) -> None:
    runner = engine.InProcessRunner({"fn": fn})
    rsp = await runner.run_function("fn", fnv1.RunFunctionRequest())
    thread, loop = rsp.results[0].message.split()
    assert int(thread) != threading.get_ident(), reason
    assert loop != str(id(asyncio.get_running_loop())), reason
    assert (loop != "none") == want_loop, reason


async def test_a_runaway_async_function_is_interrupted_too() -> None:
    async def runaway(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        if req.meta.tag == "loop":
            while True:
                pass
        response.normal(rsp, "fine")

    runner = engine.InProcessRunner({"fn": runaway})
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await runner.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="loop")))
    rsp = await runner.run_function("fn", fnv1.RunFunctionRequest())
    assert [r.message for r in rsp.results] == ["fine"]
