"""The controller runtime: requeue rules, bounded workers, one reconcile per key, rate, clean stop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _controller

from .fake_clock import FakeClock


async def settle() -> None:
    """Let every ready task run until none is runnable (the loop's own scheduling, no sleeping)."""
    for _ in range(20):
        await asyncio.sleep(0)


class Recorder:
    """A reconcile that records calls and answers from a script (one outcome per call, then success)."""

    def __init__(self, outcomes: list[_controller.Result | Exception] | None = None) -> None:
        self.outcomes = list(outcomes or [])
        self.calls: list[str] = []

    async def __call__(self, key: str) -> _controller.Result:
        self.calls.append(key)
        outcome = self.outcomes.pop(0) if self.outcomes else _controller.Result()
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


class Metrics:
    def __init__(self) -> None:
        self.results: list[str] = []

    def reconciled(self, controller: str, result: str, seconds: float) -> None:
        self.results.append(result)

    def queue_depth(self, controller: str, depth: int) -> None:
        return None

    def active_workers(self, controller: str, count: int) -> None:
        return None


@pytest.mark.parametrize(
    ("outcome", "want", "reason"),
    [
        pytest.param(
            _api.Conflict("the object has been modified", status=409),
            (
                1.0,
                "requeue",
                [("DEBUG", "conflict reconciling ns/a, retrying in 1s: the object has been modified")],
            ),
            "a Conflict is retried with backoff and is not an error worth logging",
            id="ConflictRequeuesSilently",
        ),
        pytest.param(
            RuntimeError("boom"),
            (1.0, "error", [("ERROR", "cannot reconcile ns/a: boom", "traceback")]),
            "any other exception is a bug: logged at error with its traceback, retried; the controller survives",
            id="BugLogsAnErrorWithTraceback",
        ),
        pytest.param(
            errors.InputError("cannot compose: bad input"),
            (1.0, "error", [("DEBUG", "cannot reconcile ns/a, retrying in 1s: cannot compose: bad input")]),
            "crossfn's own errors were reported on the object (user-caused): debug, no traceback, retried",
            id="ReportedFailureLogsAtDebug",
        ),
        pytest.param(
            _api.ApiError('admission webhook "x" denied the request', status=400),
            (
                1.0,
                "error",
                [
                    (
                        "DEBUG",
                        'cannot reconcile ns/a, retrying in 1s: admission webhook "x" denied the request',
                    )
                ],
            ),
            "an API error is a crossfn error too (reported, retried), not a bug",
            id="ApiErrorLogsAtDebug",
        ),
        pytest.param(
            _controller.Result(requeue_after=60),
            (60.0, "requeue_after", []),
            "a Result with requeue_after comes back after that delay",
            id="RequeueAfter",
        ),
        pytest.param(
            _controller.Result(),
            (None, "success", []),
            "a plain success is not requeued",
            id="SuccessIsDone",
        ),
    ],
)
async def test_what_a_reconcile_returns_decides_the_requeue(
    caplog: pytest.LogCaptureFixture,
    outcome: _controller.Result | Exception,
    want: tuple[float | None, str, list[tuple[str, ...]]],
    reason: str,
) -> None:
    """``want``: when it comes back, the metric's result label, and what is logged (level,
    message, and "traceback" when the record carries one)."""
    want_retry_at, want_result, want_logged = want
    clock, metrics, reconcile = FakeClock(), Metrics(), Recorder([outcome])
    controller = _controller.Controller("test", reconcile, workers=2, clock=clock, metrics=metrics)
    controller.start()
    controller.enqueue("ns/a")
    with caplog.at_level(logging.DEBUG, logger="crossfn.controller"):
        await settle()
    assert reconcile.calls == ["ns/a"], reason
    assert metrics.results == [want_result], reason
    assert clock.pending() == ([want_retry_at] if want_retry_at is not None else []), reason
    logged = [
        (r.levelname, r.getMessage(), *(["traceback"] if r.exc_info else []))
        for r in caplog.records
        if r.name == "crossfn.controller"
    ]
    assert logged == want_logged, reason
    assert all(getattr(r, "key", None) == "ns/a" for r in caplog.records), "every record names the key"
    if want_retry_at is not None:
        clock.advance(want_retry_at)
        await settle()
        assert reconcile.calls == ["ns/a", "ns/a"], reason
    await controller.stop()


async def test_failures_back_off_and_success_resets() -> None:
    """Consecutive failures of one key wait 1, 2, 4 s; a success forgets, so the next failure waits 1 s."""
    clock = FakeClock()
    boom = RuntimeError("boom")
    reconcile = Recorder([boom, boom, boom, _controller.Result(), boom])
    controller = _controller.Controller("test", reconcile, clock=clock)
    controller.start()
    controller.enqueue("a")
    waits = []
    for _ in range(3):
        await settle()
        waits.append(clock.pending()[0] - clock.now())
        clock.advance(waits[-1])
    await settle()
    assert waits == [1.0, 2.0, 4.0]
    assert len(reconcile.calls) == 4 and clock.pending() == []
    controller.enqueue("a")
    await settle()
    assert clock.pending()[0] - clock.now() == 1.0, "success forgot the backoff"
    await controller.stop()


async def test_workers_bound_concurrency_and_keys_never_overlap() -> None:
    """At most `workers` reconciles run at once, and never two of the same key."""
    gate = asyncio.Event()
    running: set[str] = set()
    peak = 0
    overlaps: list[str] = []
    calls: list[str] = []

    async def reconcile(key: str) -> _controller.Result:
        nonlocal peak
        if key in running:
            overlaps.append(key)
        running.add(key)
        calls.append(key)
        peak = max(peak, len(running))
        await gate.wait()
        running.discard(key)
        return _controller.Result()

    controller = _controller.Controller("test", reconcile, workers=3, clock=FakeClock())
    controller.start()
    for i in range(10):
        controller.enqueue(f"k{i}")
    await settle()
    assert peak == 3 and len(calls) == 3
    controller.enqueue("k0")  # in flight: must wait for its own reconcile to finish
    gate.set()
    await settle()
    assert peak == 3
    assert overlaps == []
    assert calls.count("k0") == 2, "a key enqueued while in flight is reconciled again afterwards"
    assert sorted(set(calls)) == sorted(f"k{i}" for i in range(10))
    await controller.stop()


async def test_stop_finishes_in_flight_reconciles_and_starts_none() -> None:
    """stop() waits for running reconciles, then returns; queued keys are not started."""
    gate = asyncio.Event()
    finished: list[str] = []

    async def reconcile(key: str) -> _controller.Result:
        await gate.wait()
        finished.append(key)
        return _controller.Result()

    controller = _controller.Controller("test", reconcile, workers=1, clock=FakeClock())
    controller.start()
    controller.enqueue("a")
    controller.enqueue("b")
    await settle()
    stopping = asyncio.create_task(controller.stop())
    await settle()
    assert not stopping.done(), "stop waits for the reconcile in flight"
    gate.set()
    await asyncio.wait_for(stopping, 1)
    assert finished == ["a"]


async def test_stop_cancels_after_grace() -> None:
    """A reconcile that outlives the grace period is cancelled so that shutdown cannot hang."""
    never = asyncio.Event()

    async def reconcile(key: str) -> _controller.Result:
        await never.wait()
        return _controller.Result()

    controller = _controller.Controller("test", reconcile, workers=1, clock=FakeClock())
    controller.start()
    controller.enqueue("a")
    await settle()
    await asyncio.wait_for(controller.stop(grace=0.01), 2)
    assert not controller.running


async def test_rate_limits_reconciles_per_second() -> None:
    """With rate=2, reconciles beyond the burst wait 0.5 s each on the clock."""
    clock = FakeClock()
    reconcile = Recorder()
    controller = _controller.Controller("test", reconcile, workers=4, rate=2, clock=clock)
    controller.start()
    for i in range(5):
        controller.enqueue(f"k{i}")
    await settle()
    assert len(reconcile.calls) == 2, "a burst of `rate` reconciles goes through at once"
    clock.advance(0.5)
    await settle()
    assert len(reconcile.calls) == 3
    clock.advance(1.0)
    await settle()
    assert len(reconcile.calls) == 5
    await controller.stop()


@pytest.mark.parametrize(
    ("obj", "key", "split", "reason"),
    [
        pytest.param(
            {"metadata": {"name": "a", "namespace": "ns"}}, "ns/a", ("ns", "a"), "namespaced", id="Namespaced"
        ),
        pytest.param({"metadata": {"name": "a"}}, "a", ("", "a"), "cluster-scoped", id="ClusterScoped"),
        pytest.param(
            {"metadata": {"name": "a", "namespace": ""}},
            "a",
            ("", "a"),
            "empty namespace",
            id="EmptyNamespace",
        ),
    ],
)
def test_keys(obj: dict[str, dict[str, str]], key: str, split: tuple[str, str], reason: str) -> None:
    assert _controller.key_of(obj) == key, reason
    assert _controller.split_key(key) == split, reason


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        pytest.param(
            lambda: _controller.Controller("c", Recorder(), workers=0), "no workers", id="NoWorkers"
        ),
        pytest.param(lambda: _controller.Controller("c", Recorder(), rate=0), "a zero rate", id="ZeroRate"),
    ],
)
def test_bad_settings_are_input_errors(make: Callable[[], object], reason: str) -> None:
    with pytest.raises(errors.InputError):
        make()
